// The daemon through its real gRPC and HTTP interfaces: a daemon on a unix socket and one on
// 127.0.0.1, built-in and zkey proofs on both curves (checked with the verifier against the
// exported vk), idempotency, cancel, await timeouts, priorities, bad requests (unknown key,
// witness of the wrong size or curve, oversized message) leaving the daemon healthy, a client
// that goes away mid-proof, /metrics, /status and /healthz, and config errors.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/random.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"
#include "server/client.h"
#include "server/config.h"
#include "server/daemon.h"
#include "test_util.h"

namespace snarkd::server {
namespace {

namespace pb = ::snarkd::v1;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snarkd_daemon_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (daemon_) daemon_->stop();
    daemon_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  DaemonConfig config(bool unix_socket) {
    DaemonConfig c;
    c.listen = unix_socket ? "unix://" + (dir_ / "snarkd.sock").string() : "127.0.0.1:0";
    c.http_listen = "127.0.0.1:0";
    c.engine.backend = engine::BackendKind::kCpu;
    c.engine.memory_budget = size_t(2) << 30;
    c.key_dir = (dir_ / "keys").string();
    c.engine.key_cache_dir = c.key_dir + "/cache";
    c.drain_seconds = 5;
    return c;
  }
  Client& start(DaemonConfig c) {
    auto d = Daemon::start(std::move(c));
    EXPECT_TRUE(d.ok()) << d.status().to_string();
    daemon_ = std::move(*d);
    client_ = Client::connect(daemon_->grpc_address());
    return *client_;
  }
  std::string builtin_key(const std::string& source) {
    pb::RegisterKeyRequest r;
    r.set_path(source);
    r.set_preload(true);
    auto k = client_->register_key(r);
    EXPECT_TRUE(k.ok()) << k.status().to_string();
    return k.ok() ? k->key_id() : "";
  }
  static pb::SubmitProofRequest job(const std::string& key, uint32_t partitions, uint64_t seed) {
    pb::SubmitProofRequest r;
    r.set_key_id(key);
    r.set_partitions(partitions);
    r.set_seed(seed);
    return r;
  }
  template <class E>
  static bool verifies(const std::string& vk_json, const pb::PartitionProof& p) {
    auto vk = formats::vk_from_json<E>(nlohmann::json::parse(vk_json));
    auto proof = formats::proof_from_json<E>(nlohmann::json::parse(p.proof_json()));
    auto publics = formats::public_from_json<groth16::Fr<E>>(nlohmann::json::parse(p.public_json()));
    if (!vk.ok() || !proof.ok() || !publics.ok()) return false;
    auto ok = groth16::verify<E>(*vk, *publics, *proof);
    return ok.ok() && *ok;
  }
  httplib::Client http() {
    const auto a = daemon_->http_address();
    const auto colon = a.rfind(':');
    return httplib::Client(a.substr(0, colon), std::stoi(a.substr(colon + 1)));
  }

  fs::path dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<Client> client_;
};

TEST_F(DaemonTest, ProvesBuiltinCircuitsOnAUnixSocketAndOnLocalhost) {
  for (bool unix_socket : {true, false}) {
    SCOPED_TRACE(unix_socket ? "unix socket" : "127.0.0.1");
    auto& c = start(config(unix_socket));
    if (unix_socket) {
      EXPECT_EQ(fs::status(dir_ / "snarkd.sock").permissions() & fs::perms::all,
                fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::group_write);
    } else {
      EXPECT_EQ(daemon_->grpc_address().rfind("127.0.0.1:", 0), 0u) << daemon_->grpc_address();
    }
    const std::string bn = builtin_key("builtin:chain:bn254:7");
    const std::string bls = builtin_key("builtin:chain:bls12-381:6");
    auto r = c.prove(job(bn, 3, 5));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(r->state(), pb::JOB_STATE_COMPLETED) << r->error_message();
    ASSERT_EQ(r->proofs_size(), 3);
    const std::string vk = *c.verifying_key(bn);
    for (const auto& p : r->proofs()) {
      EXPECT_TRUE(verifies<ec::bn254::Engine>(vk, p));
      EXPECT_EQ(p.proof().size(), 256u);
    }
    EXPECT_GT(r->timings().total_ms(), 0);
    EXPECT_GT(r->timings().slot_held_ms(), 0);
    auto b = c.prove(job(bls, 1, 1));
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(b->state(), pb::JOB_STATE_COMPLETED) << b->error_message();
    EXPECT_EQ(b->proofs(0).proof().size(), 192u);
    EXPECT_TRUE(verifies<ec::bls12_381::Engine>(*c.verifying_key(bls), b->proofs(0)));
    auto keys = c.list_keys();
    ASSERT_TRUE(keys.ok());
    EXPECT_EQ(keys->keys_size(), 2);
    daemon_->stop();
    daemon_.reset();
  }
}

TEST_F(DaemonTest, ProvesUploadedZkeysOnBothCurves) {
  auto& c = start(config(true));
  SeededRandom rng(snarkd::testing::test_seed());
  auto run = [&]<class E>() {
    using F = groth16::Fr<E>;
    auto [cs, w] = circuits::build_chain<F>({100, 30, rng()});
    auto pk = groth16::setup<E>(cs, poly::QuotientConvention::kSnarkjsOddCoset, rng);
    ASSERT_TRUE(pk.ok());
    const std::string zkey = (dir_ / "k.zkey").string(), wtns = (dir_ / "w.wtns").string();
    ASSERT_TRUE(formats::write_zkey<E>(*pk, zkey).ok());
    ASSERT_TRUE(formats::write_wtns<F>(w, wtns).ok());
    auto read = [](const std::string& p) {
      std::ifstream f(p, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(f), {});
    };
    pb::RegisterKeyRequest reg;
    reg.set_zkey_bytes(read(zkey));
    auto key = c.register_key(reg);
    ASSERT_TRUE(key.ok()) << key.status().to_string();
    pb::SubmitProofRequest req;
    req.set_key_id(key->key_id());
    req.set_witness(read(wtns));
    auto r = c.prove(req);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(r->state(), pb::JOB_STATE_COMPLETED) << r->error_message();
    EXPECT_TRUE(verifies<E>(*c.verifying_key(key->key_id()), r->proofs(0)));
    // A witness of the right curve but the wrong circuit: the job fails with INVALID_ARGUMENT.
    auto [cs2, w2] = circuits::build_chain<F>({40, 30, rng()});
    ASSERT_TRUE(formats::write_wtns<F>(w2, wtns).ok());
    req.set_witness(read(wtns));
    auto bad = c.prove(req);
    ASSERT_TRUE(bad.ok());
    EXPECT_EQ(bad->state(), pb::JOB_STATE_FAILED);
    EXPECT_EQ(bad->error_code(), int(StatusCode::kInvalidArgument));
    EXPECT_NE(bad->error_message().find("expects"), std::string::npos) << bad->error_message();
    // A witness of the other curve: refused with a message naming the curve.
    using Other = std::conditional_t<std::is_same_v<E, ec::bn254::Engine>, ec::bls12_381::Engine, ec::bn254::Engine>;
    std::vector<groth16::Fr<Other>> other(w.size(), groth16::Fr<Other>::one());
    ASSERT_TRUE(formats::write_wtns<groth16::Fr<Other>>(other, wtns).ok());
    req.set_witness(read(wtns));
    auto wrong_curve = c.prove(req);
    ASSERT_TRUE(wrong_curve.ok());
    EXPECT_EQ(wrong_curve->state(), pb::JOB_STATE_FAILED);
    EXPECT_EQ(wrong_curve->error_code(), int(StatusCode::kInvalidArgument)) << wrong_curve->error_message();
  };
  run.operator()<ec::bn254::Engine>();
  run.operator()<ec::bls12_381::Engine>();
}

TEST_F(DaemonTest, IdempotencyCancelTimeoutAndPriorityThroughTheApi) {
  auto cfg = config(false);
  cfg.engine.synthesis_workers = 1;
  auto& c = start(cfg);
  const std::string key = builtin_key("builtin:chain:bn254:10");
  auto req = job(key, 30, 1);
  req.set_request_id("same");
  auto a = c.submit(req), b = c.submit(req);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->job_id(), b->job_id());
  auto other = req;
  other.set_seed(2);
  EXPECT_EQ(c.submit(other).status().code(), StatusCode::kAlreadyExists);
  // Await with a short timeout: DEADLINE_EXCEEDED, the job goes on.
  auto early = c.await(a->job_id(), 5);
  EXPECT_EQ(early.status().code(), StatusCode::kDeadlineExceeded) << early.status().to_string();
  // A CRITICAL job overtakes the 30-partition NORMAL one.
  auto critical = job(key, 1, 3);
  critical.set_priority(pb::PRIORITY_CRITICAL);
  auto cr = c.prove(critical);
  ASSERT_TRUE(cr.ok());
  EXPECT_EQ(cr->state(), pb::JOB_STATE_COMPLETED);
  auto bulk = c.await(a->job_id(), 1);
  if (bulk.ok()) {
    ADD_FAILURE() << "the bulk job finished before the critical one";
  }
  auto cancelled = c.cancel(a->job_id());
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->state(), pb::JOB_STATE_CANCELLED);
  auto after = c.await(a->job_id(), 1000);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->state(), pb::JOB_STATE_CANCELLED);
  EXPECT_EQ(c.cancel(987654).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(c.await(987654, 10).status().code(), StatusCode::kNotFound);
}

TEST_F(DaemonTest, BadRequestsGetPreciseCodesAndLeaveTheDaemonHealthy) {
  auto cfg = config(true);
  cfg.max_message_bytes = uint64_t(1) << 20;
  auto& c = start(cfg);
  pb::SubmitProofRequest unknown;
  unknown.set_key_id("k-no-such-key");
  EXPECT_EQ(c.submit(unknown).status().code(), StatusCode::kNotFound);
  // No keys.register_dirs: paths are not registered, and the answer is the same whether the
  // file exists or not.
  pb::RegisterKeyRequest missing;
  missing.set_path((dir_ / "missing.zkey").string());
  auto m = c.register_key(missing);
  EXPECT_EQ(m.status().code(), StatusCode::kPermissionDenied) << m.status().to_string();
  pb::RegisterKeyRequest existing;
  existing.set_path("/etc/passwd");
  auto x = c.register_key(existing);
  EXPECT_EQ(x.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(x.status().message(), m.status().message()) << "nothing about the file leaks";
  pb::RegisterKeyRequest garbage;
  garbage.set_zkey_bytes("definitely not a zkey");
  auto g = c.register_key(garbage);
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << g.status().to_string();
  pb::RegisterKeyRequest empty;
  EXPECT_EQ(c.register_key(empty).status().code(), StatusCode::kInvalidArgument);
  const std::string key = builtin_key("builtin:chain:bn254:6");
  auto with_witness = job(key, 1, 1);
  with_witness.set_witness("a built-in key takes a seed");
  EXPECT_EQ(c.submit(with_witness).status().code(), StatusCode::kInvalidArgument);
  auto zero = job(key, 20000, 1);
  EXPECT_EQ(c.submit(zero).status().code(), StatusCode::kInvalidArgument);
  auto priority = job(key, 1, 1);
  priority.set_priority(pb::Priority(99));
  auto p = c.submit(priority);
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << p.status().to_string();
  auto long_id = job(key, 1, 1);
  long_id.set_request_id(std::string(300, 'r'));
  EXPECT_EQ(c.submit(long_id).status().code(), StatusCode::kInvalidArgument);
  // PoRep input: a prover id that is not 32 bytes, a key that is not a porep:SIZE key, and a
  // parameter file outside keys.register_dirs (none here).
  auto porep = job(key, 1, 1);
  porep.mutable_porep()->set_c1("{}");
  porep.mutable_porep()->set_prover_id("short");
  auto pr = c.submit(porep);
  EXPECT_EQ(pr.status().code(), StatusCode::kInvalidArgument) << pr.status().to_string();
  EXPECT_NE(pr.status().message().find("prover_id must be 32 bytes"), std::string::npos) << pr.status().message();
  porep.mutable_porep()->set_prover_id(std::string(32, '\0'));
  auto pk = c.submit(porep);
  EXPECT_EQ(pk.status().code(), StatusCode::kInvalidArgument) << pk.status().to_string();
  EXPECT_NE(pk.status().message().find("is not a PoRep key"), std::string::npos) << pk.status().message();
  pb::RegisterKeyRequest params;
  params.set_path("bellperson:porep:2KiB@/etc/passwd");
  EXPECT_EQ(c.register_key(params).status().code(), StatusCode::kPermissionDenied);
  // Over the daemon's message limit (1 MiB here).
  auto huge = job(key, 1, 1);
  huge.set_witness(std::string(size_t(2) << 20, 'x'));
  auto h = c.submit(huge);
  EXPECT_EQ(h.status().code(), StatusCode::kResourceExhausted) << h.status().to_string();
  // Still healthy.
  auto s = c.status();
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->accepting());
  auto r = c.prove(job(key, 1, 2));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state(), pb::JOB_STATE_COMPLETED);
}

TEST_F(DaemonTest, AClientThatGoesAwayMidProofDoesNotLeakItsJob) {
  auto cfg = config(true);
  cfg.engine.synthesis_workers = 1;
  auto& c = start(cfg);
  const std::string key = builtin_key("builtin:chain:bn254:10");
  // A Prove call whose client gives up after 100 ms.
  {
    auto channel = grpc::CreateChannel(daemon_->grpc_address(), grpc::InsecureChannelCredentials());
    auto stub = pb::Prover::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 100ms);
    pb::ProofResult out;
    auto st = stub->Prove(&ctx, job(key, 200, 1), &out);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // The daemon notices and cancels the job: nothing keeps running.
  bool drained = false;
  for (int i = 0; i < 300 && !drained; ++i) {
    auto s = c.status();
    ASSERT_TRUE(s.ok());
    drained = s->jobs_cancelled() == 1 && s->queues().jobs_running() == 0 && s->queues().proving() == 0 &&
              s->queues().synthesizing() == 0;
    if (!drained) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(drained);
}

TEST_F(DaemonTest, HttpServesMetricsStatusAndHealth) {
  auto& c = start(config(true));
  const std::string key = builtin_key("builtin:chain:bn254:6");
  ASSERT_EQ(c.prove(job(key, 2, 1))->state(), pb::JOB_STATE_COMPLETED);
  auto h = http();
  auto health = h.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto metrics = h.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  // Exposition format: every family has HELP and TYPE before its samples; samples are
  // `name{labels} value`; histogram buckets are cumulative and end at +Inf == _count.
  std::istringstream lines(metrics->body);
  std::string line, family;
  std::set<std::string> typed;
  while (std::getline(lines, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream in(line.substr(7));
      std::string type;
      in >> family >> type;
      EXPECT_TRUE(type == "counter" || type == "gauge" || type == "histogram") << line;
      typed.insert(family);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const auto name = line.substr(0, line.find_first_of("{ "));
    const bool known = typed.count(name) || typed.count(name.substr(0, name.rfind('_')));
    EXPECT_TRUE(known) << "sample before its TYPE: " << line;
    char* end = nullptr;
    const std::string value = line.substr(line.rfind(' ') + 1);
    std::strtod(value.c_str(), &end);
    EXPECT_TRUE(*end == '\0' || value == "+Inf") << line;
  }
  EXPECT_NE(metrics->body.find("snarkd_jobs_finished_total{state=\"completed\"} 1"), std::string::npos);
  EXPECT_NE(metrics->body.find("snarkd_stage_seconds_bucket{stage=\"prove\",le=\"+Inf\"} 2"), std::string::npos);
  auto status = h.Get("/status");
  ASSERT_TRUE(status);
  auto j = nlohmann::json::parse(status->body, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  for (const char* field : {"queues", "devices", "keys", "jobs", "memory", "totals", "uptime_seconds", "accepting"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["totals"]["completed"], 1);
  ASSERT_EQ(j["jobs"].size(), 1u);
  EXPECT_EQ(j["jobs"][0]["state"], "completed");
  EXPECT_EQ(j["jobs"][0]["partitions_done"], 2);
  EXPECT_EQ(h.Get("/nope")->status, 404);
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A small zkey (and its witness) of the chain circuit on BN254.
void write_small_zkey(const fs::path& zkey, const fs::path& wtns, uint64_t constraints, SeededRandom& rng) {
  using E = ec::bn254::Engine;
  using F = groth16::Fr<E>;
  auto [cs, w] = circuits::build_chain<F>({constraints, 30, rng()});
  auto pk = groth16::setup<E>(cs, poly::QuotientConvention::kSnarkjsOddCoset, rng);
  ASSERT_TRUE(pk.ok());
  ASSERT_TRUE(formats::write_zkey<E>(*pk, zkey.string()).ok());
  ASSERT_TRUE(formats::write_wtns<F>(w, wtns.string()).ok());
}

TEST_F(DaemonTest, PathRegistrationIsConfinedToRegisterDirs) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  const fs::path allowed = dir_ / "allowed", outside = dir_ / "outside";
  fs::create_directories(allowed);
  fs::create_directories(outside);
  write_small_zkey(allowed / "k.zkey", dir_ / "w.wtns", 50, rng);
  fs::copy_file(allowed / "k.zkey", outside / "k.zkey");
  fs::create_symlink(outside / "k.zkey", allowed / "escape.zkey");
  ASSERT_EQ(::mkfifo((allowed / "fifo.zkey").c_str(), 0600), 0);
  auto cfg = config(true);
  cfg.register_dirs = {allowed.string()};
  auto& c = start(cfg);
  auto reg = [&](const std::string& path) {
    pb::RegisterKeyRequest r;
    r.set_path(path);
    return c.register_key(r);
  };
  auto ok = reg((allowed / "k.zkey").string());
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  for (const std::string& p : {(outside / "k.zkey").string(), (allowed / ".." / "outside" / "k.zkey").string(),
                              (allowed / "escape.zkey").string(), std::string("relative.zkey")}) {
    auto r = reg(p);
    EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << p << ": " << r.status().to_string();
  }
  // A FIFO is refused at once (not opened for reading, which would wait for a writer).
  const auto t0 = std::chrono::steady_clock::now();
  auto fifo = reg((allowed / "fifo.zkey").string());
  EXPECT_EQ(fifo.status().code(), StatusCode::kInvalidArgument) << fifo.status().to_string();
  EXPECT_NE(fifo.status().message().find("not a regular file"), std::string::npos) << fifo.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  auto missing = reg((allowed / "missing.zkey").string());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().to_string();
}

TEST_F(DaemonTest, UploadsAreValidatedAndKeptWithinTheirQuota) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  write_small_zkey(dir_ / "a.zkey", dir_ / "a.wtns", 60, rng);
  write_small_zkey(dir_ / "b.zkey", dir_ / "b.wtns", 70, rng);
  const std::string a = read_file(dir_ / "a.zkey"), b = read_file(dir_ / "b.zkey");
  const fs::path uploads = dir_ / "keys" / "uploads";
  fs::create_directories(uploads);
  {
    // An upload from an earlier run that no key uses now.
    std::ofstream old(uploads / "00000000000000000000000000000000.zkey", std::ios::binary);
    old << std::string(b.size(), 'o');
  }
  fs::last_write_time(uploads / "00000000000000000000000000000000.zkey",
                      fs::file_time_type::clock::now() - std::chrono::hours(24));
  auto cfg = config(true);
  cfg.upload_quota = a.size() + b.size() + b.size() / 2;
  auto& c = start(cfg);
  auto upload = [&](const std::string& bytes) {
    pb::RegisterKeyRequest r;
    r.set_zkey_bytes(bytes);
    return c.register_key(r);
  };
  auto count = [&] {
    size_t n = 0;
    for ([[maybe_unused]] const auto& f : fs::directory_iterator(uploads)) ++n;
    return n;
  };
  // Garbage, and a key whose body is cut short: refused, nothing kept.
  EXPECT_EQ(upload(std::string(5000, 'g')).status().code(), StatusCode::kInvalidArgument);
  auto cut = upload(a.substr(0, a.size() - 100));
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidArgument) << cut.status().to_string();
  EXPECT_EQ(count(), 1u) << "only the old upload";
  auto ka = upload(a);
  ASSERT_TRUE(ka.ok()) << ka.status().to_string();
  EXPECT_EQ(count(), 2u);
  // b needs room: the old, unused upload goes; a (registered) stays.
  auto kb = upload(b);
  ASSERT_TRUE(kb.ok()) << kb.status().to_string();
  EXPECT_FALSE(fs::exists(uploads / "00000000000000000000000000000000.zkey"));
  EXPECT_EQ(count(), 2u);
  // Larger than the quota, or with no room left beside registered keys: refused.
  EXPECT_EQ(upload(a + std::string(b.size() * 2, 'x')).status().code(), StatusCode::kResourceExhausted);
  write_small_zkey(dir_ / "c.zkey", dir_ / "c.wtns", 80, rng);
  auto kc = upload(read_file(dir_ / "c.zkey"));
  EXPECT_EQ(kc.status().code(), StatusCode::kResourceExhausted) << kc.status().to_string();
  EXPECT_NE(kc.status().message().find("upload_quota"), std::string::npos);
  // The accepted keys prove.
  pb::SubmitProofRequest req;
  req.set_key_id(ka->key_id());
  req.set_witness(read_file(dir_ / "a.wtns"));
  auto r = c.prove(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state(), pb::JOB_STATE_COMPLETED) << r->error_message();
}

TEST_F(DaemonTest, ASecondDaemonOnTheSameAddressRefusesToStart) {
  for (bool unix_socket : {true, false}) {
    SCOPED_TRACE(unix_socket ? "unix socket" : "127.0.0.1");
    auto first = Daemon::start(config(unix_socket));
    ASSERT_TRUE(first.ok()) << first.status().to_string();
    auto cfg = config(unix_socket);
    cfg.listen = (*first)->grpc_address();
    cfg.http_listen = "";
    auto second = Daemon::start(cfg);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition) << second.status().to_string();
    EXPECT_NE(second.status().message().find("in use"), std::string::npos) << second.status().message();
    // The first still answers.
    auto s = Client::connect((*first)->grpc_address())->status();
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    // Its HTTP port is not shared either.
    auto cfg2 = config(true);
    cfg2.listen = "unix://" + (dir_ / "other.sock").string();
    cfg2.http_listen = (*first)->http_address();
    auto third = Daemon::start(cfg2);
    ASSERT_FALSE(third.ok());
    EXPECT_NE(third.status().message().find("http_listen"), std::string::npos) << third.status().message();
    (*first)->stop();
  }
}

TEST_F(DaemonTest, StatusReportsResidentMemoryAndWarnsOnAllInterfaces) {
  auto cfg = config(false);
  cfg.listen = "0.0.0.0:0";
  auto& c = start(cfg);
  auto s = c.status();
  ASSERT_TRUE(s.ok());
  EXPECT_GT(s->rss_bytes(), uint64_t(1) << 20);
  ASSERT_EQ(s->warnings_size(), 1);
  EXPECT_NE(s->warnings(0).find("all interfaces"), std::string::npos) << s->warnings(0);
  auto status = http().Get("/status");
  ASSERT_TRUE(status);
  auto j = nlohmann::json::parse(status->body);
  EXPECT_GT(j["memory"]["rss_bytes"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["warnings"].size(), 1u);
  // Loopback only: no warning.
  daemon_->stop();
  start(config(false));
  EXPECT_EQ(client_->status()->warnings_size(), 0);
}

TEST(ClientTest, ACallToAPeerThatNeverAnswersEndsAtItsDeadline) {
  // A socket that listens but never speaks: the kernel accepts the connection, nothing more.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ClientOptions o;
  o.call_timeout = 2s;
  o.long_timeout = 3s;
  auto c = Client::connect("127.0.0.1:" + std::to_string(ntohs(a.sin_port)), o);
  const auto t0 = std::chrono::steady_clock::now();
  auto s = c->status();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.status().code() == StatusCode::kDeadlineExceeded || s.status().code() == StatusCode::kUnavailable)
      << s.status().to_string();
  auto w = c->await(1, 0);
  EXPECT_FALSE(w.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
  ::close(fd);
}

TEST(ConfigTest, DefaultsAndErrorsNameTheKey) {
  auto d = parse_config("", "t.toml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->listen, "127.0.0.1:9820") << "never all interfaces by default";
  EXPECT_EQ(d->engine.gpu_slots, 2u);
  EXPECT_EQ(d->max_message_bytes, uint64_t(256) << 20) << "Curio's cuzk client sends up to 256 MiB";
  EXPECT_TRUE(d->cuzk_keys.empty());
  auto full = parse_config(R"(
listen = "unix:///run/snarkd.sock"
http_listen = ""
max_message_bytes = "256MiB"
[engine]
backend = "cpu"
gpus = [0, 1]
gpu_slots = 3
memory_budget = "64GiB"
verify_proofs = false
gpu_adopts_keys = false
[keys]
dir = "/var/lib/snarkd"
preload = ["builtin:chain:bn254:10"]
[log]
level = "debug"
format = "json"
[cuzk.keys]
"porep-32g" = "builtin:synthetic:divide-by-z:porep:32GiB"
)", "t.toml");
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  EXPECT_EQ(full->max_message_bytes, uint64_t(256) << 20);
  EXPECT_EQ(full->engine.memory_budget, size_t(64) << 30);
  EXPECT_EQ(full->engine.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(full->engine.key_cache_dir, "/var/lib/snarkd/cache");
  EXPECT_FALSE(full->engine.verify_proofs);
  EXPECT_TRUE(d->engine.gpu_adopts_keys);
  EXPECT_FALSE(full->engine.gpu_adopts_keys);
  EXPECT_EQ(full->cuzk_keys.at("porep-32g"), "builtin:synthetic:divide-by-z:porep:32GiB");
  // Non-ASCII is fine in comments, and in strings as \u escapes.
  auto escaped = parse_config("# caf\xc3\xa9 \xef\xbb\xbe\n[keys]\ndir = \"/caf\\u00e9\"  # \xc3\xa9\n", "t.toml");
  ASSERT_TRUE(escaped.ok()) << escaped.status().to_string();
  EXPECT_EQ(escaped->key_dir, "/caf\xc3\xa9");
  struct Case {
    const char* text;
    const char* needle;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"lisen = \"x:1\"", "lisen: unknown key"},
           {"[engine]\ngpu_slotz = 2", "engine.gpu_slotz: unknown key"},
           {"[engine]\ngpu_slots = 0", "engine.gpu_slots: must be between 1 and 16"},
           {"[engine]\nsynthesis_workers = 100000", "engine.synthesis_workers: must be between 1 and 256"},
           {"[engine]\ncpu_workers = 100000", "engine.cpu_workers: must be between"},
           {"[engine]\nprove_queue_depth = 0", "engine.prove_queue_depth: must be between"},
           {"[engine]\nmax_retries = 1000", "engine.max_retries: must be between"},
           {"[engine]\ngpus = [1, 5000]", "engine.gpus"},
           {"drain_seconds = 100000000", "drain_seconds: must be between"},
           {"keepalive_seconds = 0", "keepalive_seconds: must be between"},
           {"listen = \"abc", "t.toml:1:"},
           {"listen = 'abc", "t.toml:1:"},
           {"[keys]\nregister_dirs = \"/x\"", "keys.register_dirs: expected a list"},
           {"[keys]\nupload_quota = \"lots\"", "keys.upload_quota"},
           {"\xff\xfe", "t.toml:1:"},
           {"[keys]\ndir = \"/caf\xc3\xa9\"", "t.toml:2:12: a non-ASCII character outside a comment"},
           {"\"k\xc3\xa9y\" = 1", "t.toml:1:3: a non-ASCII character"},
           {"x = \xef\xbb\xbe", "t.toml:1:5:"},  // U+FEFE: toml++ 3.3.0 reached unreachable code on it
           {"[engine]\ngpu_slots = \"two\"", "engine.gpu_slots: expected an integer"},
           {"[engine]\nbackend = \"tpu\"", "engine.backend"},
           {"[engine]\nmemory_budget = \"12 parsecs\"", "engine.memory_budget"},
           {"listen = \"nowhere\"", "listen: expected unix:///path or host:port"},
           {"[log]\nlevel = \"loud\"", "log.level"},
           {"listen = ", "t.toml:1"},
           {"engine = 3", "engine: expected a table"},
           {"[cuzk]\nkeyz = 1", "cuzk.keyz: unknown key"},
           {"[cuzk.keys]\n\"porep-1t\" = \"x\"", "cuzk.keys.porep-1t: not a PoRep circuit id"},
           {"[cuzk.keys]\n\"porep-2k\" = 3", "cuzk.keys.porep-2k: expected a key source"},
           {"cuzk = 1", "cuzk: expected a table"},
       }) {
    auto r = parse_config(c.text, "t.toml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
  // Paths are checked before the daemon starts, each error naming its key.
  const auto tmp = fs::temp_directory_path() / ("snarkd_config_test_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  for (const Case& c : std::initializer_list<Case>{
           {"[log]\nfile = \"/nonexistent-dir/snarkd.log\"", "log.file"},
           {"[timeline]\npath = \"/nonexistent-dir/t.jsonl\"", "timeline.path"},
           {"[keys]\ndir = \"/proc/snarkd-keys\"", "keys.dir"},
           {"[keys]\nregister_dirs = [\"/nonexistent-dir\"]", "keys.register_dirs"},
       }) {
    auto cfg = parse_config(c.text, "t.toml");
    ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
    auto st = check_paths(*cfg, "t.toml");
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(st.message().find(c.needle), std::string::npos) << st.message();
  }
  auto good = parse_config("[keys]\nregister_dirs = [\"" + (tmp / "." / "").string() + "\"]", "t.toml");
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(check_paths(*good, "t.toml").ok());
  EXPECT_EQ(good->register_dirs[0], fs::canonical(tmp).string()) << "made canonical";
  fs::remove_all(tmp);
  EXPECT_EQ(*parse_bytes("1_000"), 1000u);
  EXPECT_EQ(*parse_bytes("2 GiB"), uint64_t(2) << 30);
  EXPECT_FALSE(parse_bytes("GiB").ok());
  EXPECT_FALSE(parse_bytes("99999999999999999999").ok());
}

}  // namespace
}  // namespace snarkd::server
