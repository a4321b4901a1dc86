// The daemon through its real gRPC and HTTP interfaces: a daemon on a unix socket and one on
// 127.0.0.1, built-in and zkey proofs on both curves (checked with the verifier against the
// exported vk), idempotency, cancel, await timeouts, priorities, bad requests (unknown key,
// witness of the wrong size or curve, oversized message) leaving the daemon healthy, a client
// that goes away mid-proof, /metrics, /status and /healthz, and config errors.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
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
#include "r1cs/builtin.h"
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
    auto [cs, w] = r1cs::build_chain<F>({100, 30, rng()});
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
    auto [cs2, w2] = r1cs::build_chain<F>({40, 30, rng()});
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
  pb::RegisterKeyRequest missing;
  missing.set_path((dir_ / "missing.zkey").string());
  EXPECT_EQ(c.register_key(missing).status().code(), StatusCode::kNotFound);
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

TEST(ConfigTest, DefaultsAndErrorsNameTheKey) {
  auto d = parse_config("", "t.toml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->listen, "127.0.0.1:9820") << "never all interfaces by default";
  EXPECT_EQ(d->engine.gpu_slots, 2u);
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
[keys]
dir = "/var/lib/snarkd"
preload = ["builtin:chain:bn254:10"]
[log]
level = "debug"
format = "json"
)", "t.toml");
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  EXPECT_EQ(full->max_message_bytes, uint64_t(256) << 20);
  EXPECT_EQ(full->engine.memory_budget, size_t(64) << 30);
  EXPECT_EQ(full->engine.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(full->engine.key_cache_dir, "/var/lib/snarkd/cache");
  EXPECT_FALSE(full->engine.verify_proofs);
  struct Case {
    const char* text;
    const char* needle;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"lisen = \"x:1\"", "lisen: unknown key"},
           {"[engine]\ngpu_slotz = 2", "engine.gpu_slotz: unknown key"},
           {"[engine]\ngpu_slots = 0", "engine.gpu_slots: must be at least 1"},
           {"[engine]\ngpu_slots = \"two\"", "engine.gpu_slots: expected an integer"},
           {"[engine]\nbackend = \"tpu\"", "engine.backend"},
           {"[engine]\nmemory_budget = \"12 parsecs\"", "engine.memory_budget"},
           {"listen = \"nowhere\"", "listen: expected unix:///path or host:port"},
           {"[log]\nlevel = \"loud\"", "log.level"},
           {"listen = ", "t.toml:1"},
           {"engine = 3", "engine: expected a table"},
       }) {
    auto r = parse_config(c.text, "t.toml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(*parse_bytes("1_000"), 1000u);
  EXPECT_EQ(*parse_bytes("2 GiB"), uint64_t(2) << 30);
  EXPECT_FALSE(parse_bytes("GiB").ok());
  EXPECT_FALSE(parse_bytes("99999999999999999999").ok());
}

}  // namespace
}  // namespace snarkd::server
