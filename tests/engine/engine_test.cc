// The engine on the CPU backend: jobs (idempotency, cancel, await timeout, job timeout),
// scheduling (CRITICAL overtakes at a partition boundary), the memory budget under concurrent
// load, key tiers (evict to WARM, reload from the cache, a corrupt cache), retries and
// persistent failures, many concurrent jobs, shutdown, timeline and metrics. Every proof the
// engine returns is checked here with the verifier against the key's exported vk JSON.
#include "engine/engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/random.h"
#include "ec/bn254.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "base/base64.h"
#include "circuits/chain/chain.h"
#include "filecoin/c1.h"
#include "filecoin/porep.h"
#include "test_util.h"

namespace snarkd::engine {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("snarkd_engine_test_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

EngineOptions cpu_options() {
  EngineOptions o;
  o.backend = BackendKind::kCpu;
  o.memory_budget = size_t(2) << 30;
  o.synthesis_workers = 2;
  o.cpu_workers = 1;
  return o;
}

std::unique_ptr<Engine> make_engine(EngineOptions o) {
  auto e = Engine::create(std::move(o));
  EXPECT_TRUE(e.ok()) << e.status().to_string();
  return e.ok() ? std::move(*e) : nullptr;
}

// Checks one partition's proof against the key's verifying key JSON, independently of the
// engine's own verification.
template <class E>
bool verifies(const std::string& vk_json, const PartitionProof& p) {
  using F = groth16::Fr<E>;
  auto vk = formats::vk_from_json<E>(nlohmann::json::parse(vk_json));
  auto proof = formats::proof_from_json<E>(nlohmann::json::parse(p.proof_json));
  auto publics = formats::public_from_json<F>(nlohmann::json::parse(p.public_json));
  if (!vk.ok() || !proof.ok() || !publics.ok()) return false;
  auto ok = groth16::verify<E>(*vk, *publics, *proof);
  return ok.ok() && *ok;
}

ProofRequest builtin_request(const std::string& key, uint32_t partitions, uint64_t seed,
                             Priority priority = Priority::kNormal, std::string request_id = {}) {
  ProofRequest r;
  r.key_id = key;
  r.partitions = partitions;
  r.seed = seed;
  r.priority = priority;
  r.request_id = std::move(request_id);
  return r;
}

TEST(EngineTest, ProvesABuiltinCircuitWithSeveralPartitions) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto key = engine->register_key("builtin:chain:bn254:6:50");
  ASSERT_TRUE(key.ok()) << key.status().to_string();
  EXPECT_EQ(key->tier, KeyTier::kCold);
  auto id = engine->submit(builtin_request(key->id, 3, 7));
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  auto r = engine->await(*id, 60s);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
  ASSERT_EQ(r->proofs.size(), 3u);
  auto vk = engine->verifying_key(key->id);
  ASSERT_TRUE(vk.ok());
  std::set<std::string> publics;
  for (const auto& p : r->proofs) {
    EXPECT_TRUE(verifies<ec::bn254::Engine>(*vk, p));
    EXPECT_EQ(p.bytes.size(), 256u);
    publics.insert(p.public_json);
  }
  EXPECT_EQ(publics.size(), 3u) << "each partition proves its own witness";
  EXPECT_GT(r->timings.synthesis_ms, 0);
  EXPECT_GT(r->timings.slot_held_ms, 0);
  EXPECT_LE(r->timings.synthesis_ms + r->timings.slot_held_ms, 3 * r->timings.total_ms);
  EXPECT_EQ(engine->key(key->id)->tier, KeyTier::kHot);
}

TEST(EngineTest, ProvesBls12_381WithBellpersonProofBytes) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto key = engine->register_key("builtin:chain:bls12-381:5");
  ASSERT_TRUE(key.ok()) << key.status().to_string();
  EXPECT_EQ(key->curve, ec::CurveId::kBls12_381);
  auto r = engine->await(*engine->submit(builtin_request(key->id, 1, 3)), 60s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
  EXPECT_EQ(r->proofs[0].bytes.size(), 192u);
  EXPECT_TRUE(verifies<ec::bls12_381::Engine>(*engine->verifying_key(key->id), r->proofs[0]));
}

// Any registered circuit family is a key source: the gadget circuits (Poseidon, Merkle
// inclusion) prove and verify through the engine, each partition with its own inputs, and each
// partition proof carries its prover stages.
TEST(EngineTest, ProvesCircuitsOfTheRegistry) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  for (const char* spec : {"builtin:poseidon:2", "builtin:por:poseidon:2x2"}) {
    SCOPED_TRACE(spec);
    auto key = engine->register_key(spec);
    ASSERT_TRUE(key.ok()) << key.status().to_string();
    EXPECT_EQ(key->curve, ec::CurveId::kBls12_381);
    auto r = engine->await(*engine->submit(builtin_request(key->id, 2, 5)), 120s);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
    ASSERT_EQ(r->proofs.size(), 2u);
    const auto vk = *engine->verifying_key(key->id);
    for (const auto& p : r->proofs) {
      EXPECT_TRUE(verifies<ec::bls12_381::Engine>(vk, p));
      EXPECT_EQ(p.backend, "cpu");
      EXPECT_GT(p.stages.slot_held_ms, 0);
      EXPECT_GT(p.stages.finalize_ms, 0);
    }
  }
  // The por circuit has public inputs (the challenge, the root): the partitions differ.
  auto key = *engine->register_key("builtin:por:poseidon:2x2");
  EXPECT_EQ(key.num_public, 2u);
  auto r = *engine->await(*engine->submit(builtin_request(key.id, 2, 6)), 120s);
  ASSERT_EQ(r.state, JobState::kCompleted);
  EXPECT_NE(r.proofs[0].public_json, r.proofs[1].public_json);
  // A bad spec is refused at registration, naming the source and the spec.
  auto bad = engine->register_key("builtin:poseidon:3");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("key source 'builtin:poseidon:3'"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("arity must be"), std::string::npos);
}

// A synthetic key (random points, no setup: for benchmarks) proves through the pipeline
// without being verified, and its proofs do not verify against its own vk; the flags come in
// either order and are written back in one.
TEST(EngineTest, SyntheticKeysProveUnverified) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto key = engine->register_key("builtin:divide-by-z:synthetic:chain:bn128:8:50");
  ASSERT_TRUE(key.ok()) << key.status().to_string();
  EXPECT_EQ(key->source, "builtin:synthetic:divide-by-z:chain:bn128:8:50");
  EXPECT_FALSE(key->verifiable);
  auto same = engine->register_key("builtin:synthetic:divide-by-z:chain:bn128:8:50");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->id, key->id);
  auto real = engine->register_key("builtin:divide-by-z:chain:bn128:8:50");
  ASSERT_TRUE(real.ok());
  EXPECT_NE(real->id, key->id);
  EXPECT_TRUE(real->verifiable);
  auto r = engine->await(*engine->submit(builtin_request(key->id, 2, 3)), 120s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
  ASSERT_EQ(r->proofs.size(), 2u);
  const auto vk = *engine->verifying_key(key->id);
  for (const auto& p : r->proofs) EXPECT_FALSE(verifies<ec::bn254::Engine>(vk, p));
  // The real key of the same circuit: its proofs verify.
  auto rr = engine->await(*engine->submit(builtin_request(real->id, 1, 3)), 120s);
  ASSERT_TRUE(rr.ok());
  ASSERT_EQ(rr->state, JobState::kCompleted) << rr->error.to_string();
  EXPECT_TRUE(verifies<ec::bn254::Engine>(*engine->verifying_key(real->id), rr->proofs[0]));
}

// A 32 GiB PoRep key's estimate (what its load reserves before it starts) against the host bytes
// the key takes in our layout, computed from the partition's published fingerprint
// (shared/reference/filecoin.md: 328 inputs with ONE, 130,169,893 aux, 130,278,869 rows,
// 722,388,891 nonzeros, 33,112,282 variables in B; domain 2^27): at least that, at most 10% above,
// and within the non-critical share of a 128 GiB host's budget, which refused it before.
TEST(EngineTest, PorepKeyEstimateFollowsThePublishedShape) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto key = engine->register_key("builtin:synthetic:divide-by-z:porep:32GiB");
  ASSERT_TRUE(key.ok()) << key.status().to_string();
  const double nv = 328.0 + 130169893.0, rows = 130278869.0, nnz = 722388891.0, b = 33112282.0;
  const double n = double(uint64_t(1) << 27), g1 = 104, g2 = 200, fr = 32;
  const double points = nv * g1 + (nv - 328) * g1 + n * g1 + b * (g1 + g2);
  const double csr = nnz * (fr + 4) + 3 * (rows + 1) * 8;
  const double real = points + csr;
  EXPECT_GE(double(key->estimated_bytes), real);
  EXPECT_LE(double(key->estimated_bytes), 1.10 * real);
  const double budget = double((uint64_t(128) << 30) - (uint64_t(16) << 30));  // MemoryBudget::auto_total()
  EXPECT_LE(double(key->estimated_bytes), budget * 7 / 8) << "CRITICAL work keeps an eighth";
}

// set_active_slots: out-of-range counts are refused; with one active slot of two, every
// partition is proved on slot 0; with both, the work spreads again.
TEST(EngineTest, ActiveSlotsLimitWhereWorkRuns) {
  auto o = cpu_options();
  o.cpu_workers = 2;
  o.reserve_critical = false;
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  EXPECT_FALSE(engine->set_active_slots(0).ok());
  EXPECT_FALSE(engine->set_active_slots(3).ok());
  ASSERT_TRUE(engine->set_active_slots(1).ok());
  auto key = *engine->register_key("builtin:chain:bn128:10");
  ASSERT_TRUE(engine->preload_key(key.id).ok());
  auto slots_used = [&](uint64_t job) {
    std::set<std::string> tracks;
    for (const auto& e : engine->timeline().snapshot()) {
      if (e.job == job && e.stage == "prove") tracks.insert(e.track);
    }
    return tracks;
  };
  const uint64_t one = *engine->submit(builtin_request(key.id, 6, 1));
  auto r = *engine->await(one, 120s);
  ASSERT_EQ(r.state, JobState::kCompleted) << r.error.to_string();
  EXPECT_EQ(slots_used(one), std::set<std::string>{"dev0-slot0"});
  ASSERT_TRUE(engine->set_active_slots(2).ok());
  EXPECT_EQ(engine->status().devices.front().slots, 2u);
  // Both slots take work again: a job of many partitions lands on both (the slots race for
  // the queue, so allow a few jobs for it to show).
  std::set<std::string> seen;
  for (int attempt = 0; attempt < 5 && seen.size() < 2; ++attempt) {
    const uint64_t job = *engine->submit(builtin_request(key.id, 8, uint64_t(10 + attempt)));
    ASSERT_EQ(engine->await(job, 120s)->state, JobState::kCompleted);
    for (const auto& t : slots_used(job)) seen.insert(t);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"dev0-slot0", "dev0-slot1"}));
}

TEST(EngineTest, ProvesAZkeyWithAWitnessAndRejectsBadWitnesses) {
  using E = ec::bn254::Engine;
  using F = groth16::Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  TempDir dir;
  auto [cs, w] = circuits::build_chain<F>({200, 30, rng()});
  auto pk = groth16::setup<E>(cs, poly::QuotientConvention::kSnarkjsOddCoset, rng);
  ASSERT_TRUE(pk.ok());
  ASSERT_TRUE(formats::write_zkey<E>(*pk, dir.file("k.zkey")).ok());
  ASSERT_TRUE(formats::write_wtns<F>(w, dir.file("w.wtns")).ok());
  auto read = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto key = engine->register_key(dir.file("k.zkey"));
  ASSERT_TRUE(key.ok()) << key.status().to_string();
  EXPECT_FALSE(key->builtin);
  // The same file registers the same key.
  EXPECT_EQ(engine->register_key(dir.file("k.zkey"))->id, key->id);
  ProofRequest req;
  req.key_id = key->id;
  req.witness = read(dir.file("w.wtns"));
  auto r = engine->await(*engine->submit(req), 60s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
  EXPECT_TRUE(verifies<E>(*engine->verifying_key(key->id), r->proofs[0]));

  // No witness, and partitions for a zkey: refused at submit.
  ProofRequest none = req;
  none.witness.clear();
  EXPECT_EQ(engine->submit(none).status().code(), StatusCode::kInvalidArgument);
  // A witness of another circuit: the job fails at synthesis, without retries.
  auto [cs2, w2] = circuits::build_chain<F>({50, 30, rng()});
  ASSERT_TRUE(formats::write_wtns<F>(w2, dir.file("other.wtns")).ok());
  ProofRequest wrong = req;
  wrong.witness = read(dir.file("other.wtns"));
  auto bad = engine->await(*engine->submit(wrong), 60s);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->state, JobState::kFailed);
  EXPECT_EQ(bad->error.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad->error.message().find("expects"), std::string::npos) << bad->error.message();
  EXPECT_EQ(bad->retries, 0u);
  // Garbage bytes: a clear error naming the witness.
  ProofRequest garbage = req;
  garbage.witness = "not a witness file at all";
  auto g = engine->await(*engine->submit(garbage), 60s);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->state, JobState::kFailed);
  EXPECT_NE(g->error.message().find("witness"), std::string::npos) << g->error.message();
  // Unknown keys.
  ProofRequest unknown = req;
  unknown.key_id = "k000";
  EXPECT_EQ(engine->submit(unknown).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(engine->register_key(dir.file("missing.zkey")).ok());
  EXPECT_FALSE(engine->register_key("builtin:chain:nocurve:6").ok());
  EXPECT_FALSE(engine->register_key("builtin:chain:bn254:x").ok());
}

// PoRep jobs are checked at submission, before anything is queued or loaded: the key must be a
// porep:SIZE key of the C1's size, the sector known, and the C1 the one of those ids (its
// replica_id); each refusal names the C1. (Proving one runs in the heavy CLI tests.)
TEST(EngineTest, PorepJobsAreCheckedAtSubmission) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto porep = engine->register_key("builtin:synthetic:divide-by-z:porep:2KiB");
  ASSERT_TRUE(porep.ok()) << porep.status().to_string();
  EXPECT_EQ(porep->porep_size, "2KiB");
  auto chain = engine->register_key("builtin:chain:bls12-381:8");
  ASSERT_TRUE(chain.ok());
  EXPECT_EQ(chain->porep_size, "");

  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const filecoin::SealProof& p = filecoin::seal_proofs()[5];
  const filecoin::StackedGraph graph(p);
  std::vector<filecoin::Bytes32> data(p.nodes(), filecoin::Bytes32{});
  filecoin::Bytes32 ticket{}, seed{};
  for (auto& b : ticket) b = uint8_t(rng());
  for (auto& b : seed) b = uint8_t(rng());
  const uint64_t sector = 1 + rng() % 1000;
  const auto prover = filecoin::prover_id_from_miner(1000);
  auto sealed = filecoin::seal_sector(p, graph, data, prover, sector, ticket);
  ASSERT_TRUE(sealed.ok());
  auto c1 = filecoin::commit_phase1(*sealed, graph, seed);
  ASSERT_TRUE(c1.ok());
  const std::string json = filecoin::write_c1_json(*c1);

  auto request = [&](const std::string& key, const std::string& c1_bytes, std::optional<uint64_t> s) {
    ProofRequest r;
    r.key_id = key;
    PorepRequest pr;
    pr.c1 = c1_bytes;
    pr.c1_name = "c1.json";
    pr.prover_id = prover;
    pr.sector = s;
    r.porep = std::move(pr);
    return r;
  };
  auto refused = [&](ProofRequest r, const std::string& needle) {
    auto job = engine->submit(std::move(r));
    ASSERT_FALSE(job.ok()) << "accepted; expected an error with '" << needle << "'";
    EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument) << job.status().to_string();
    EXPECT_NE(job.status().message().find(needle), std::string::npos) << job.status().message();
  };
  refused(request(chain->id, json, sector), "is not a PoRep key");
  refused(request(porep->id, json, std::nullopt), "the sector number is required");
  refused(request(porep->id, json, sector + 1), "replica_id");
  refused(request(porep->id, json.substr(0, 1000), sector), "'c1.json'");
  const std::string wrapper = "{\"SectorNum\":" + std::to_string(sector + 1) + ",\"Phase1Out\":\"" +
                              base64_encode(reinterpret_cast<const uint8_t*>(json.data()), json.size()) + "\"}";
  refused(request(porep->id, wrapper, sector), "SectorNum " + std::to_string(sector + 1));
  EXPECT_EQ(engine->jobs().size(), 0u);  // nothing was queued
  EXPECT_EQ(engine->key(porep->id)->tier, KeyTier::kCold);  // nor loaded
}

TEST(EngineTest, RequestIdsAreIdempotent) {
  auto engine = make_engine(cpu_options());
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:6");
  auto a = engine->submit(builtin_request(key.id, 2, 5, Priority::kNormal, "req-1"));
  auto b = engine->submit(builtin_request(key.id, 2, 5, Priority::kNormal, "req-1"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  auto c = engine->submit(builtin_request(key.id, 2, 6, Priority::kNormal, "req-1"));
  EXPECT_EQ(c.status().code(), StatusCode::kAlreadyExists) << c.status().to_string();
  auto d = engine->submit(builtin_request(key.id, 2, 5, Priority::kNormal, "req-2"));
  ASSERT_TRUE(d.ok());
  EXPECT_NE(*d, *a);
  ASSERT_EQ(engine->await(*a, 60s)->state, JobState::kCompleted);
  // Still the same job after it finished.
  EXPECT_EQ(*engine->submit(builtin_request(key.id, 2, 5, Priority::kNormal, "req-1")), *a);
  EXPECT_EQ(engine->await(*d, 60s)->state, JobState::kCompleted);
  // Once its job has finished, an id may carry other content: a new job (Curio resends its
  // deterministic ids, e.g. porep-<miner>-<sector>, after the sector changed).
  auto e = engine->submit(builtin_request(key.id, 2, 6, Priority::kNormal, "req-1"));
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  EXPECT_NE(*e, *a);
  EXPECT_EQ(engine->await(*e, 60s)->state, JobState::kCompleted);
  EXPECT_EQ(*engine->submit(builtin_request(key.id, 2, 6, Priority::kNormal, "req-1")), *e);
}

// A retry of a failed or cancelled job (the same id and content) proves again.
TEST(EngineTest, ARetryOfAFailedJobProvesAgain) {
  auto o = cpu_options();
  o.max_retries = 0;
  std::atomic<int> faults{1};
  o.fault_injector = [&](const FaultPoint& p) -> Status {
    if (p.request_id == "retry" && p.stage == "prove" && faults.fetch_sub(1) > 0) {
      return internal_error("injected: device lost");
    }
    return Status();
  };
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:6");
  auto first = *engine->submit(builtin_request(key.id, 1, 7, Priority::kNormal, "retry"));
  EXPECT_EQ(engine->await(first, 60s)->state, JobState::kFailed);
  auto second = engine->submit(builtin_request(key.id, 1, 7, Priority::kNormal, "retry"));
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_NE(*second, first);
  EXPECT_EQ(engine->await(*second, 60s)->state, JobState::kCompleted);
  EXPECT_EQ(*engine->submit(builtin_request(key.id, 1, 7, Priority::kNormal, "retry")), *second);
}

TEST(EngineTest, AwaitTimesOutAndJobTimeoutsFailTheJob) {
  auto o = cpu_options();
  o.synthesis_workers = 1;
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:9");
  auto id = *engine->submit(builtin_request(key.id, 6, 1));
  auto early = engine->await(id, 1ms);
  EXPECT_EQ(early.status().code(), StatusCode::kDeadlineExceeded) << early.status().to_string();
  EXPECT_EQ(engine->await(id, 120s)->state, JobState::kCompleted);

  auto req = builtin_request(key.id, 40, 2);
  req.timeout = 50ms;
  auto slow = engine->await(*engine->submit(req), 60s);
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(slow->state, JobState::kFailed);
  EXPECT_EQ(slow->error.code(), StatusCode::kDeadlineExceeded) << slow->error.to_string();
  EXPECT_LT(slow->partitions_done, 40u);
  EXPECT_EQ(engine->job(12345).status().code(), StatusCode::kNotFound);
}

TEST(EngineTest, CancelRemovesQueuedWorkAndStopsRunningJobs) {
  auto o = cpu_options();
  o.synthesis_workers = 1;
  o.reserve_critical = false;
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:9");
  auto running = *engine->submit(builtin_request(key.id, 200, 1));
  auto queued = *engine->submit(builtin_request(key.id, 5, 2));
  // Wait until the first job has finished a partition.
  for (int i = 0; i < 6000 && engine->job(running)->partitions_done == 0; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_GT(engine->job(running)->partitions_done, 0u);
  EXPECT_EQ(engine->job(queued)->state, JobState::kQueued);
  EXPECT_EQ(*engine->cancel(queued), JobState::kCancelled);
  EXPECT_EQ(*engine->cancel(running), JobState::kCancelled);
  auto r = engine->await(running, 1s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, JobState::kCancelled);
  EXPECT_TRUE(r->proofs.empty());
  // Nothing of either job runs any more: the pipeline drains.
  EngineStatus s;
  for (int i = 0; i < 2000; ++i) {
    s = engine->status();
    if (s.queued + s.synthesizing + s.waiting + s.proving + s.finalizing == 0) break;
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(s.queued + s.synthesizing + s.waiting + s.proving + s.finalizing, 0u);
  const uint32_t done = engine->job(running)->partitions_done;
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(engine->job(running)->partitions_done, done);
  EXPECT_EQ(engine->memory().used(), engine->key(key.id)->host_bytes) << "only the key stays reserved";
  // The engine still works.
  EXPECT_EQ(engine->await(*engine->submit(builtin_request(key.id, 1, 3)), 60s)->state, JobState::kCompleted);
}

// A CRITICAL job behind 20 NORMAL partitions: with a reserved worker it runs at once; without
// one it overtakes at the next partition boundary. Checked as scheduling order on the timeline
// (which partitions started before it), not as time: a loaded machine can slow the critical
// job's threads against the bulk job's, but cannot change the order of the scheduler's picks.
TEST(EngineTest, CriticalJobsOvertakeAtPartitionBoundaries) {
  for (bool reserve : {true, false}) {
    SCOPED_TRACE(reserve ? "reserved critical workers" : "no reserved workers");
    auto o = cpu_options();
    o.synthesis_workers = 1;
    o.reserve_critical = reserve;
    o.prove_queue_depth = 1;
    auto engine = make_engine(o);
    ASSERT_TRUE(engine);
    auto key = *engine->register_key("builtin:chain:bn254:10");
    ASSERT_TRUE(engine->preload_key(key.id).ok());
    auto bulk = *engine->submit(builtin_request(key.id, 20, 1));
    for (int i = 0; i < 6000 && engine->job(bulk)->partitions_done < 2; ++i) std::this_thread::sleep_for(2ms);
    auto critical = *engine->submit(builtin_request(key.id, 1, 2, Priority::kCritical));
    auto c = engine->await(critical, 120s);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->state, JobState::kCompleted);
    auto b = engine->await(bulk, 300s);
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(b->state, JobState::kCompleted);

    int64_t submitted = -1, synthesis_start = -1, queued = -1, prove_start = -1;
    std::vector<int64_t> bulk_synthesis_starts, bulk_prove_starts;
    for (const auto& e : engine->timeline().snapshot()) {
      if (e.job == critical) {
        if (e.partition < 0 && e.stage == "submit") submitted = e.t_ns;
        if (e.stage == "synthesize") synthesis_start = e.t_ns;
        if (e.stage == "queue") queued = e.t_ns;
        if (e.stage == "prove") prove_start = e.t_ns;
      } else if (e.job == bulk) {
        if (e.stage == "synthesize") bulk_synthesis_starts.push_back(e.t_ns);
        if (e.stage == "prove") bulk_prove_starts.push_back(e.t_ns);
      }
    }
    ASSERT_GE(submitted, 0);
    ASSERT_GE(synthesis_start, submitted);
    ASSERT_GE(queued, synthesis_start);
    ASSERT_GE(prove_start, queued);
    ASSERT_EQ(bulk_synthesis_starts.size(), 20u);
    ASSERT_EQ(bulk_prove_starts.size(), 20u);
    auto started_between = [](const std::vector<int64_t>& starts, int64_t lo, int64_t hi) {
      return uint32_t(std::count_if(starts.begin(), starts.end(), [&](int64_t t) { return t > lo && t < hi; }));
    };
    // A span's start is stamped just after the worker picked its task, so a bulk task picked
    // before the critical one arrived may carry a later stamp: at most one per bulk worker.
    // Otherwise nothing of the bulk job starts in between; a FIFO scheduler would start the
    // remaining 18 or so bulk syntheses first.
    EXPECT_LE(started_between(bulk_synthesis_starts, submitted, synthesis_start), o.synthesis_workers)
        << "bulk syntheses started between the critical job's submission and its synthesis";
    EXPECT_LE(started_between(bulk_prove_starts, queued, prove_start), o.cpu_workers)
        << "bulk proofs started while the critical partition waited for a prover";
  }
}

TEST(EngineTest, TheMemoryBudgetIsNeverExceeded) {
  auto probe = make_engine(cpu_options());
  auto key_id = probe->register_key("builtin:chain:bn254:8")->id;
  ASSERT_TRUE(probe->preload_key(key_id).ok());
  const size_t key_bytes = probe->key(key_id)->host_bytes;
  const size_t estimated = probe->key(key_id)->estimated_bytes;
  const size_t probe_partition_bytes = probe->key(key_id)->partition_bytes;
  ASSERT_GT(probe_partition_bytes, 0u);
  probe.reset();
  auto o = cpu_options();
  o.synthesis_workers = 4;
  o.cpu_workers = 2;
  o.prove_queue_depth = 8;
  // The key and two and a half partitions.
  const size_t partition = probe_partition_bytes;
  o.memory_budget = std::max(key_bytes, estimated) + 2 * partition + partition / 2;
  o.critical_reserve = 1;
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:8");
  std::vector<uint64_t> ids;
  for (int j = 0; j < 8; ++j) ids.push_back(*engine->submit(builtin_request(key.id, 4, uint64_t(j + 1))));
  for (auto id : ids) EXPECT_EQ(engine->await(id, 120s)->state, JobState::kCompleted);
  EXPECT_LE(engine->memory().peak(), engine->memory().total());
  EXPECT_GT(engine->memory().peak(), key_bytes) << "partitions held reservations";
  EXPECT_GT(engine->memory().waits(), 0u) << "the budget made synthesis wait";
  // A request that can never fit is refused clearly instead of waiting forever.
  auto small = cpu_options();
  small.memory_budget = size_t(100) << 10;
  auto tiny = make_engine(small);
  auto k = *tiny->register_key("builtin:chain:bn254:8");
  auto r = tiny->submit(builtin_request(k.id, 1, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().to_string();
  EXPECT_NE(r.status().message().find("memory budget"), std::string::npos) << r.status().message();
}

TEST(EngineTest, KeysAreEvictedToWarmAndReloadedFromTheCache) {
  TempDir dir;
  auto o = cpu_options();
  o.key_cache_dir = dir.file("cache");
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:7");
  ASSERT_TRUE(engine->preload_key(key.id).ok());
  EXPECT_EQ(engine->key(key.id)->tier, KeyTier::kHot);
  EXPECT_EQ(engine->metrics().value("snarkd_key_loads_total", {{"from", "source"}}), 1);
  const size_t hot_bytes = engine->key(key.id)->host_bytes;
  EXPECT_EQ(engine->memory().used(), hot_bytes);
  ASSERT_TRUE(engine->evict_key(key.id).ok());
  EXPECT_EQ(engine->key(key.id)->tier, KeyTier::kWarm);
  EXPECT_EQ(engine->memory().used(), 0u);
  auto r = engine->await(*engine->submit(builtin_request(key.id, 1, 4)), 60s);
  ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
  EXPECT_EQ(engine->metrics().value("snarkd_key_loads_total", {{"from", "cache"}}), 1);
  EXPECT_TRUE(verifies<ec::bn254::Engine>(*engine->verifying_key(key.id), r->proofs[0]));

  // A corrupt cache is not used: the key comes back from its source, and proofs still verify.
  ASSERT_TRUE(engine->evict_key(key.id).ok());
  std::string cache;
  for (const auto& f : fs::directory_iterator(dir.file("cache"))) cache = f.path().string();
  ASSERT_FALSE(cache.empty());
  {
    std::fstream f(cache, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x5a');
  }
  auto r2 = engine->await(*engine->submit(builtin_request(key.id, 1, 5)), 60s);
  ASSERT_EQ(r2->state, JobState::kCompleted) << r2->error.to_string();
  EXPECT_EQ(engine->metrics().value("snarkd_key_loads_total", {{"from", "source"}}), 2);
  EXPECT_TRUE(verifies<ec::bn254::Engine>(*engine->verifying_key(key.id), r2->proofs[0]));

  // LRU eviction under a budget that holds one idle key and the work of another, but not both
  // keys and the work: loading the second evicts the idle first.
  KeyInfo shape;
  {
    auto probe = make_engine(cpu_options());
    auto k = *probe->register_key("builtin:chain:bn254:10:50");
    ASSERT_TRUE(probe->preload_key(k.id).ok());
    shape = *probe->key(k.id);
  }
  auto small = cpu_options();
  small.key_cache_dir = dir.file("cache2");
  small.memory_budget = 2 * shape.host_bytes + shape.partition_bytes - shape.host_bytes / 4;
  ASSERT_GE(small.memory_budget, shape.estimated_bytes + shape.partition_bytes);
  small.critical_reserve = 1;
  auto lru = make_engine(small);
  auto k1 = *lru->register_key("builtin:chain:bn254:10:50");
  auto k2 = *lru->register_key("builtin:chain:bn254:10:40");
  ASSERT_NE(k1.id, k2.id);
  ASSERT_TRUE(lru->preload_key(k1.id).ok());
  auto r3 = lru->await(*lru->submit(builtin_request(k2.id, 1, 1)), 60s);
  ASSERT_EQ(r3->state, JobState::kCompleted) << r3->error.to_string();
  EXPECT_EQ(lru->key(k1.id)->tier, KeyTier::kWarm);
  EXPECT_EQ(lru->key(k2.id)->tier, KeyTier::kHot);
  EXPECT_LE(lru->memory().peak(), lru->memory().total());
  // Keys in use cannot be evicted; unknown keys are an error.
  EXPECT_EQ(lru->evict_key("k404").code(), StatusCode::kNotFound);
}

TEST(EngineTest, AFailedPartitionIsRetriedAndAPersistentFailureFailsOnlyItsJob) {
  auto o = cpu_options();
  o.max_retries = 2;
  o.fault_injector = [&](const FaultPoint& p) -> Status {
    if (p.request_id == "flaky" && p.partition == 1 && p.stage == "prove" && p.attempt == 1) {
      return internal_error("injected: device lost");
    }
    if (p.request_id == "broken" && p.partition == 0 && p.stage == "finalize") {
      return internal_error("injected: persistent fault");
    }
    if (p.request_id == "flaky" && p.partition == 0 && p.stage == "synthesize" && p.attempt == 1) {
      throw std::runtime_error("boom");  // a worker exception is an error like any other
    }
    return Status();
  };
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:6");
  ASSERT_TRUE(engine->preload_key(key.id).ok());
  auto flaky = *engine->submit(builtin_request(key.id, 3, 1, Priority::kNormal, "flaky"));
  auto broken = *engine->submit(builtin_request(key.id, 3, 2, Priority::kNormal, "broken"));
  auto fine = *engine->submit(builtin_request(key.id, 3, 3));
  auto f = engine->await(flaky, 60s);
  ASSERT_EQ(f->state, JobState::kCompleted) << f->error.to_string();
  EXPECT_EQ(f->retries, 2u);
  auto b = engine->await(broken, 60s);
  EXPECT_EQ(b->state, JobState::kFailed);
  EXPECT_NE(b->error.message().find("injected: persistent fault"), std::string::npos) << b->error.message();
  EXPECT_NE(b->error.message().find("attempt 3"), std::string::npos) << b->error.message();
  auto ok = engine->await(fine, 60s);
  EXPECT_EQ(ok->state, JobState::kCompleted);
  EXPECT_EQ(engine->metrics().value("snarkd_jobs_finished_total", {{"state", "failed"}}), 1);
  // The engine keeps working after a worker threw.
  EXPECT_EQ(engine->await(*engine->submit(builtin_request(key.id, 2, 9)), 60s)->state, JobState::kCompleted);
}

TEST(EngineTest, TwoHundredJobsSixteenInFlightAllCompleteAndVerify) {
  auto o = cpu_options();
  o.synthesis_workers = 2;
  o.cpu_devices = 2;  // two modeled devices: both must take work
  auto engine = make_engine(o);
  ASSERT_TRUE(engine);
  auto key = *engine->register_key("builtin:chain:bn254:5");
  const std::string vk = *engine->verifying_key(key.id);
  constexpr int kJobs = 200, kClients = 16;
  std::atomic<int> next{0};
  std::mutex mu;
  std::set<uint64_t> ids;
  std::vector<JobResult> results;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      for (int i = next++; i < kJobs; i = next++) {
        auto id = engine->submit(builtin_request(key.id, 1, uint64_t(i + 1), Priority::kNormal, "job-" + std::to_string(1000 + i)));
        if (!id.ok()) continue;
        auto r = engine->await(*id, 120s);
        std::lock_guard lock(mu);
        ids.insert(*id);
        if (r.ok()) results.push_back(std::move(*r));
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(ids.size(), size_t(kJobs)) << "no job lost or duplicated";
  ASSERT_EQ(results.size(), size_t(kJobs));
  std::set<std::string> requests;
  for (const auto& r : results) {
    EXPECT_EQ(r.state, JobState::kCompleted) << r.error.to_string();
    ASSERT_EQ(r.proofs.size(), 1u);
    EXPECT_TRUE(verifies<ec::bn254::Engine>(vk, r.proofs[0])) << r.request_id;
    requests.insert(r.request_id);
  }
  EXPECT_EQ(requests.size(), size_t(kJobs));
  auto s = engine->status();
  EXPECT_EQ(s.jobs_completed, uint64_t(kJobs));
  ASSERT_EQ(s.devices.size(), 2u);
  for (const auto& d : s.devices) EXPECT_GT(d.slot_held_ms, 0) << "device " << d.device << " got no work";
  EXPECT_EQ(engine->metrics().value("snarkd_jobs_finished_total", {{"state", "completed"}}), kJobs);
}

TEST(EngineTest, ShutdownDrainsOrFailsJobsCleanly) {
  {  // A generous deadline: everything finishes.
    auto engine = make_engine(cpu_options());
    auto key = *engine->register_key("builtin:chain:bn254:6");
    std::vector<uint64_t> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(*engine->submit(builtin_request(key.id, 2, uint64_t(i + 1))));
    engine->shutdown(60s);
    for (auto id : ids) EXPECT_EQ(engine->job(id)->state, JobState::kCompleted);
    EXPECT_EQ(engine->submit(builtin_request(key.id, 1, 1)).status().code(), StatusCode::kUnavailable);
  }
  {  // No deadline: what has not finished fails with kUnavailable, nothing hangs.
    auto o = cpu_options();
    o.synthesis_workers = 1;
    auto engine = make_engine(o);
    auto key = *engine->register_key("builtin:chain:bn254:9");
    std::vector<uint64_t> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(*engine->submit(builtin_request(key.id, 20, uint64_t(i + 1))));
    std::this_thread::sleep_for(20ms);
    const auto t0 = std::chrono::steady_clock::now();
    engine->shutdown(0ms);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s);
    for (auto id : ids) {
      auto r = engine->job(id);
      ASSERT_TRUE(r.ok());
      EXPECT_TRUE(is_terminal(r->state));
      if (r->state != JobState::kCompleted) {
        EXPECT_EQ(r->error.code(), StatusCode::kUnavailable);
      }
    }
    engine->shutdown(0ms);  // idempotent
  }
}

TEST(EngineTest, TimelineExportsParseAndTheReportIsConsistent) {
  TempDir dir;
  auto o = cpu_options();
  o.cpu_workers = 2;
  auto engine = make_engine(o);
  auto key = *engine->register_key("builtin:chain:bn254:8");
  std::vector<uint64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(*engine->submit(builtin_request(key.id, 3, uint64_t(i + 1))));
  for (auto id : ids) ASSERT_EQ(engine->await(id, 60s)->state, JobState::kCompleted);
  ASSERT_TRUE(engine->timeline().write_jsonl(dir.file("t.jsonl")).ok());
  ASSERT_TRUE(engine->timeline().write_chrome_trace(dir.file("t.json")).ok());
  auto events = read_timeline_jsonl(dir.file("t.jsonl"));
  ASSERT_TRUE(events.ok()) << events.status().to_string();
  EXPECT_EQ(events->size(), engine->timeline().snapshot().size());
  std::ifstream trace(dir.file("t.json"));
  auto j = nlohmann::json::parse(trace, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_TRUE(j.contains("traceEvents"));
  size_t complete = 0;
  for (const auto& e : j["traceEvents"]) complete += e["ph"] == "X";
  EXPECT_GE(complete, 12u * 3) << "synthesize, queue and prove (and finalize) per partition";

  auto report = summarize_timeline(*events);
  EXPECT_EQ(report.jobs, 4u);
  EXPECT_EQ(report.partitions, 12u);
  ASSERT_EQ(report.devices.size(), 1u);
  const auto& d = report.devices[0];
  EXPECT_GT(d.slot_held_ms, 0);
  EXPECT_LE(d.slot_held_ms, d.wall_ms + 1e-6);
  EXPECT_LE(d.idle_ms, d.wall_ms + 1e-6);
  EXPECT_NEAR(d.slot_held_ms + d.idle_ms, d.wall_ms, 1e-3) << "held and idle partition the device's wall time";
  size_t proves = 0;
  for (const auto& s : report.stages) {
    EXPECT_LE(s.p50_ms, s.p90_ms);
    EXPECT_LE(s.p90_ms, s.max_ms);
    if (s.stage == "prove") proves = s.count;
  }
  EXPECT_EQ(proves, 12u);
  EXPECT_NE(format_report(report).find("device 0"), std::string::npos);
  // A damaged file names its line.
  {
    std::ofstream bad(dir.file("bad.jsonl"));
    bad << event_to_json_line(events->front()) << "\n{\"t_ns\": 1\n";
  }
  auto bad = read_timeline_jsonl(dir.file("bad.jsonl"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos) << bad.status().message();
}

TEST(EngineTest, MetricsRenderAsPrometheusText) {
  auto engine = make_engine(cpu_options());
  auto key = *engine->register_key("builtin:chain:bn254:6");
  ASSERT_EQ(engine->await(*engine->submit(builtin_request(key.id, 2, 1)), 60s)->state, JobState::kCompleted);
  const std::string text = engine->metrics().render_prometheus();
  EXPECT_NE(text.find("# TYPE snarkd_jobs_finished_total counter"), std::string::npos);
  EXPECT_NE(text.find("snarkd_jobs_finished_total{state=\"completed\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE snarkd_stage_seconds histogram"), std::string::npos);
  EXPECT_NE(text.find("snarkd_stage_seconds_bucket{stage=\"prove\",le=\"+Inf\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("snarkd_keys{tier=\"hot\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("snarkd_memory_budget_bytes "), std::string::npos);
  // Every sample line is `name{labels} value` with a numeric value.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    const std::string value = line.substr(space + 1);
    EXPECT_TRUE(value == "+Inf" || value == "NaN" || std::strtod(value.c_str(), nullptr) == std::strtod(value.c_str(), nullptr))
        << line;
    char* end = nullptr;
    std::strtod(value.c_str(), &end);
    EXPECT_TRUE(value == "+Inf" || *end == '\0') << line;
  }
}

// The shape of a built-in key, from an engine of its own.
KeyInfo probe_shape(const std::string& source) {
  auto probe = make_engine(cpu_options());
  auto k = *probe->register_key(source);
  EXPECT_TRUE(probe->preload_key(k.id).ok());
  return *probe->key(k.id);
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A BN254 chain circuit of `constraints` rows: its zkey written to `zkey`; returns the circuit
// and a satisfying witness.
std::pair<r1cs::ConstraintSystem<groth16::Fr<ec::bn254::Engine>>, std::vector<groth16::Fr<ec::bn254::Engine>>>
chain_zkey(uint64_t constraints, const std::string& zkey, SeededRandom& rng) {
  using E = ec::bn254::Engine;
  auto [cs, w] = circuits::build_chain<groth16::Fr<E>>({constraints, 30, rng()});
  auto pk = groth16::setup<E>(cs, poly::QuotientConvention::kSnarkjsOddCoset, rng);
  EXPECT_TRUE(pk.ok());
  EXPECT_TRUE(formats::write_zkey<E>(*pk, zkey).ok());
  return {std::move(cs), std::move(w)};
}

// A job that ended FAILED with `code` and a message containing `needle`, never retried.
void expect_failed(const Result<JobResult>& r, StatusCode code, const std::string& needle) {
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->state, JobState::kFailed);
  EXPECT_EQ(r->error.code(), code) << r->error.to_string();
  EXPECT_NE(r->error.message().find(needle), std::string::npos) << r->error.message();
  EXPECT_EQ(r->retries, 0u);
  EXPECT_TRUE(r->proofs.empty());
}

TEST(EngineTest, JobIdsNeverRepeatAcrossRestarts) {
  std::vector<uint64_t> first;
  {
    auto engine = make_engine(cpu_options());
    auto key = *engine->register_key("builtin:chain:bn254:6");
    for (int i = 0; i < 3; ++i) first.push_back(*engine->submit(builtin_request(key.id, 1, uint64_t(i + 1))));
  }
  // A "restarted" engine: its ids are new, and the old ones are unknown to it.
  auto engine = make_engine(cpu_options());
  auto key = *engine->register_key("builtin:chain:bn254:6");
  const uint64_t id = *engine->submit(builtin_request(key.id, 1, 9));
  for (uint64_t old : first) {
    EXPECT_GT(id, old);
    EXPECT_EQ(engine->await(old, 10ms).status().code(), StatusCode::kNotFound);
  }
  EXPECT_LT(id, uint64_t(1) << 53) << "exact in JSON numbers";
  ASSERT_EQ(engine->await(id, 60s)->state, JobState::kCompleted);
}

TEST(EngineTest, AJobThatCanNeverFitBesideItsKeyFailsAndOthersFlow) {
  // The budget holds the key but never the key and one partition.
  const KeyInfo big = probe_shape("builtin:chain:bn254:10:50");
  auto o = cpu_options();
  o.critical_reserve = 1;
  o.memory_budget = std::max(big.host_bytes, big.estimated_bytes) + big.partition_bytes / 2;
  ASSERT_GT(big.host_bytes + big.partition_bytes, o.memory_budget - 1) << "the test needs key + partition not to fit";
  {
    // Not loaded yet: the job is accepted and fails at admission, naming the sizes.
    auto engine = make_engine(o);
    auto key = *engine->register_key("builtin:chain:bn254:10:50");
    auto small = *engine->register_key("builtin:chain:bn254:5");
    std::vector<uint64_t> stuck;
    for (int i = 0; i < 3; ++i) stuck.push_back(*engine->submit(builtin_request(key.id, 2, uint64_t(i + 1))));
    for (uint64_t id : stuck) expect_failed(engine->await(id, 60s), StatusCode::kResourceExhausted, "beside its key's");
    // Another key's job still runs (the idle big key is evicted for it).
    auto ok = engine->await(*engine->submit(builtin_request(small.id, 2, 1)), 60s);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->state, JobState::kCompleted) << ok->error.to_string();
  }
  {
    // Loaded (its sizes known): refused at submit.
    auto engine = make_engine(o);
    auto key = *engine->register_key("builtin:chain:bn254:10:50");
    ASSERT_TRUE(engine->preload_key(key.id).ok());
    auto r = engine->submit(builtin_request(key.id, 1, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
    EXPECT_NE(r.status().message().find("one partition"), std::string::npos) << r.status().message();
  }
}

TEST(EngineTest, TwoKeysThatFitOnlyOneAtATimeWithTheirWorkDoNotDeadlock) {
  // Each key fits with its partitions, both keys fit, but not both keys and a partition: a
  // worker that held its key while waiting for partition bytes would wait forever on the other.
  const KeyInfo shape = probe_shape("builtin:chain:bn254:10:50");
  auto o = cpu_options();
  o.synthesis_workers = 2;
  o.cpu_workers = 2;
  o.critical_reserve = 1;
  const size_t key = std::max(shape.host_bytes, shape.estimated_bytes);
  o.memory_budget = 2 * key + shape.partition_bytes / 2;
  ASSERT_LE(key + shape.partition_bytes, o.memory_budget - 1);
  auto engine = make_engine(o);
  auto a = *engine->register_key("builtin:chain:bn254:10:50");
  auto b = *engine->register_key("builtin:chain:bn254:10:60");
  // One partition each, alternating keys: the two workers load both keys at once.
  std::vector<uint64_t> ids;
  for (int round = 0; round < 4; ++round) {
    ids.push_back(*engine->submit(builtin_request(a.id, 1, uint64_t(round + 1))));
    ids.push_back(*engine->submit(builtin_request(b.id, 1, uint64_t(round + 1))));
  }
  for (uint64_t id : ids) {
    auto r = engine->await(id, 60s);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(r->state, JobState::kCompleted) << r->error.to_string();
  }
  EXPECT_LE(engine->memory().peak(), engine->memory().total());
}

TEST(EngineTest, WitnessBytesAreChargedFromArrivalAndDroppedWhenTheJobEnds) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  TempDir dir;
  chain_zkey(200, dir.file("k.zkey"), rng);
  std::atomic<bool> hold{true};
  auto o = cpu_options();
  o.memory_budget = size_t(64) << 20;
  o.critical_reserve = size_t(8) << 20;
  o.fault_injector = [&](const FaultPoint&) -> Status {
    while (hold) std::this_thread::sleep_for(1ms);  // every job waits at synthesis, holding its witness
    return Status();
  };
  auto engine = make_engine(o);
  auto key = *engine->register_key(dir.file("k.zkey"));
  ASSERT_TRUE(engine->preload_key(key.id).ok());
  const size_t base = engine->memory().used();
  ProofRequest req;
  req.key_id = key.id;
  req.request_id = "held";
  req.witness = std::string(size_t(20) << 20, 'x');  // garbage: fails at synthesis
  const uint64_t held = *engine->submit(req);
  EXPECT_GE(engine->memory().used(), base + (size_t(20) << 20)) << "charged from arrival";
  // More than the non-critical share can ever hold: refused at once.
  ProofRequest huge = req;
  huge.request_id = "huge";
  huge.witness = std::string(size_t(60) << 20, 'x');
  auto h = engine->submit(huge);
  EXPECT_EQ(h.status().code(), StatusCode::kResourceExhausted) << h.status().to_string();
  // Fits in principle, not now (the held job's 20 MiB + 20 + 20 > 56 MiB): refused, not queued.
  ProofRequest more = req;
  more.request_id = "more-1";
  auto more_1 = engine->submit(more);
  ASSERT_TRUE(more_1.ok());
  more.request_id = "more-2";
  auto full = engine->submit(more);
  EXPECT_EQ(full.status().code(), StatusCode::kResourceExhausted) << full.status().to_string();
  EXPECT_NE(full.status().message().find("retry later"), std::string::npos) << full.status().message();
  // A retried request (same id, same content) still gets its job back while the budget is full.
  more.request_id = "more-1";
  auto again = engine->submit(more);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(*again, *more_1);
  more.request_id = "more-2";
  EXPECT_LE(engine->memory().peak(), engine->memory().total());
  hold = false;
  EXPECT_EQ(engine->await(*engine->submit(more), 60s)->state, JobState::kFailed) << "room again once jobs end";
  expect_failed(engine->await(held, 60s), StatusCode::kInvalidArgument, "witness");
  // Every job ended: the finished records hold no witness bytes.
  for (int i = 0; i < 500 && engine->memory().used() != base; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(engine->memory().used(), base);
  EXPECT_EQ(engine->jobs().size(), 3u);
}

TEST(EngineTest, AnUnsatisfiedWitnessIsInvalidInputAndNeverRetried) {
  using F = groth16::Fr<ec::bn254::Engine>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  TempDir dir;
  auto [cs, w] = chain_zkey(200, dir.file("k.zkey"), rng);
  // One aux value changed: the right length, the wrong assignment.
  auto bad = w;
  bad[w.size() - 5] += F::one();
  ASSERT_FALSE(r1cs::check_satisfied(cs, std::span<const F>(bad)).ok());
  ASSERT_TRUE(formats::write_wtns<F>(bad, dir.file("bad.wtns")).ok());
  auto o = cpu_options();
  o.max_retries = 3;
  auto engine = make_engine(o);
  auto key = *engine->register_key(dir.file("k.zkey"));
  ProofRequest req;
  req.key_id = key.id;
  req.witness = read_bytes(dir.file("bad.wtns"));
  expect_failed(engine->await(*engine->submit(req), 60s), StatusCode::kInvalidArgument, "does not satisfy");
}

TEST(EngineTest, AKeyWhoseFileChangedIsNotReloadedUnderItsOldId) {
  using E = ec::bn254::Engine;
  using F = groth16::Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  TempDir dir;
  auto [cs1, w1] = chain_zkey(200, dir.file("k.zkey"), rng);
  auto [cs2, w2] = chain_zkey(120, dir.file("other.zkey"), rng);
  ASSERT_TRUE(formats::write_wtns<F>(w1, dir.file("w1.wtns")).ok());
  ASSERT_TRUE(formats::write_wtns<F>(w2, dir.file("w2.wtns")).ok());
  auto engine = make_engine(cpu_options());  // no WARM tier: reloads come from the file
  auto k1 = *engine->register_key(dir.file("k.zkey"));
  ProofRequest req;
  req.key_id = k1.id;
  req.witness = read_bytes(dir.file("w1.wtns"));
  ASSERT_EQ(engine->await(*engine->submit(req), 60s)->state, JobState::kCompleted);
  ASSERT_TRUE(engine->evict_key(k1.id).ok());
  fs::copy_file(dir.file("other.zkey"), dir.file("k.zkey"), fs::copy_options::overwrite_existing);
  // The old id does not serve the new file.
  ProofRequest req2 = req;
  req2.witness = read_bytes(dir.file("w2.wtns"));
  expect_failed(engine->await(*engine->submit(req2), 60s), StatusCode::kFailedPrecondition,
                "changed since it was registered");
  EXPECT_EQ(engine->preload_key(k1.id).code(), StatusCode::kFailedPrecondition);
  // Registered again, it is a new key.
  auto k2 = *engine->register_key(dir.file("k.zkey"));
  EXPECT_NE(k2.id, k1.id);
  req2.key_id = k2.id;
  auto ok = engine->await(*engine->submit(req2), 60s);
  ASSERT_EQ(ok->state, JobState::kCompleted) << ok->error.to_string();
  EXPECT_TRUE(verifies<E>(*engine->verifying_key(k2.id), ok->proofs[0]));
}

TEST(EngineTest, RequestIdsAreBounded) {
  auto engine = make_engine(cpu_options());
  auto key = *engine->register_key("builtin:chain:bn254:6");
  EXPECT_TRUE(engine->submit(builtin_request(key.id, 1, 1, Priority::kNormal, std::string(256, 'r'))).ok());
  auto r = engine->submit(builtin_request(key.id, 1, 1, Priority::kNormal, std::string(257, 'r')));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().to_string();
}

TEST(MemoryBudgetTest, ReservationsWaitAndReleaseOnDestruction) {
  MemoryBudget b(1000, 200);
  auto a = b.reserve(700, false, "a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(b.used(), 700u);
  // Bulk work may use 800 of 1000: 200 more does not fit now; critical work may.
  auto now = b.try_reserve(200, false, "b");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->bytes(), 0u);
  auto crit = b.try_reserve(200, true, "c");
  ASSERT_TRUE(crit.ok());
  EXPECT_EQ(crit->bytes(), 200u);
  crit->release();
  EXPECT_EQ(b.try_reserve(900, false, "too big").status().code(), StatusCode::kResourceExhausted);
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    auto r = b.reserve(300, false, "waiter");
    got = r.ok() && r->bytes() == 300;
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(got);
  a->release();
  waiter.join();
  EXPECT_TRUE(got);
  EXPECT_EQ(b.used(), 0u);
  EXPECT_LE(b.peak(), 1000u);
  std::atomic<bool> stop{false};
  auto big = b.reserve(800, false, "big");
  std::thread giver([&] {
    std::this_thread::sleep_for(20ms);
    stop = true;
  });
  auto cancelled = b.reserve(100, false, "never", [&] { return stop.load(); });
  giver.join();
  EXPECT_EQ(cancelled.status().code(), StatusCode::kCancelled);
}

// A GPU backend's pinned buffers are charged through the hook: counted at once even past the
// total, never refused, and other reservations wait until the handle is gone.
TEST(MemoryBudgetTest, HostHookChargesWithoutWaitingAndHoldsUntilReleased) {
  MemoryBudget b(1000, 0);
  bool reclaimed = false;
  b.set_reclaimer([&](size_t) { return reclaimed = true, false; });
  auto work = b.reserve(600, false, "work");
  ASSERT_TRUE(work.ok());
  auto hook = b.host_hook();
  auto staging = hook(700, "GPU slot staging");  // does not fit: charged anyway
  ASSERT_TRUE(staging.ok());
  EXPECT_EQ(b.used(), 1300u);
  EXPECT_EQ(b.peak(), 1300u);
  EXPECT_FALSE(reclaimed) << "the hook must not reclaim (its caller may hold a backend's lock)";
  auto now = b.try_reserve(100, false, "more");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->bytes(), 0u);
  work->release();
  EXPECT_EQ(b.used(), 700u);
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    auto r = b.reserve(500, false, "after the staging");
    got = r.ok() && r->bytes() == 500;
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(got) << "700 charged + 500 does not fit in 1000";
  auto copy = *staging;  // the backend may share the handle; the bytes go when the last goes
  staging->reset();
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(got);
  copy.reset();
  waiter.join();
  EXPECT_TRUE(got);
  EXPECT_EQ(b.used(), 0u);
}

}  // namespace
}  // namespace snarkd::engine
