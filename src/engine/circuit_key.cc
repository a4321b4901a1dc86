#include "engine/circuit_key.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/mapped_file.h"
#include "base/random.h"
#include "ec/encoding.h"
#include "formats/bellperson.h"
#include "formats/binfile.h"
#include "formats/circom.h"
#include "formats/key_cache.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "groth16/synthetic_key.h"
#include "groth16/verifier.h"
#include "registry/registry.h"

namespace snarkd::engine::internal {

namespace {

constexpr std::string_view kBuiltinPrefix = "builtin:";
constexpr std::string_view kDivideByZ = "divide-by-z:";
constexpr std::string_view kSynthetic = "synthetic:";
constexpr std::string_view kBellpersonPrefix = "bellperson:";

// The registered proof of a porep:SIZE circuit (nullptr for other circuits).
const filecoin::SealProof* porep_of(const circuits::Circuit& c) {
  constexpr std::string_view kPorep = "porep:";
  const std::string& spec = c.spec();
  if (spec.rfind(kPorep, 0) != 0) return nullptr;
  auto p = filecoin::default_seal_proof_for_size(std::string_view(spec).substr(kPorep.size()));
  return p.ok() ? *p : nullptr;
}

Result<std::pair<uint64_t, int64_t>> file_identity(const std::string& path, const std::string& who) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Status(StatusCode::kNotFound, who + ": '" + path + "': " + ec.message());
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return Status(StatusCode::kNotFound, who + ": '" + path + "': " + ec.message());
  return std::pair<uint64_t, int64_t>(uint64_t(size), int64_t(mtime.time_since_epoch().count()));
}
constexpr size_t kPartitionOverhead = size_t(64) << 10;  // proof, JSON, bookkeeping

template <class E>
class Partition final : public PartitionData {
 public:
  using F = groth16::Fr<E>;
  // The assignment: a vector (a .wtns, a built-in circuit's witness), or the buffer PoRep's
  // witness-only synthesis wrote in place.
  std::vector<F> witness;
  r1cs::ValueBuffer<F> witness_buffer;
  std::span<const F> values() const {
    return witness_buffer.size() ? std::span<const F>(witness_buffer.data(), witness_buffer.size())
                                 : std::span<const F>(witness);
  }
  std::optional<groth16::PendingProof<E>> pending;
  std::string backend;  // the kind of backend that ran prove_start ("cpu", "gpu")
};

// `phases`: how long the load's parts took, for its note.
template <class E>
Result<groth16::ProvingKey<E>> load_from_source(const KeySource& s, const Hash128& registered, std::string& phases);

template <class E>
class CurveKey final : public CircuitKey {
 public:
  using F = groth16::Fr<E>;
  CurveKey(KeySource source, Hash128 hash, groth16::ProvingKey<E> pk)
      : source_(std::move(source)), hash_(hash), pk_(std::move(pk)) {
    bytes_ = loaded_bytes_ = groth16::key_host_bytes(pk_);
  }

  ec::CurveId curve() const override { return ec::curve_of<E>(); }
  size_t host_bytes() const override { return bytes_; }
  size_t partition_bytes(bool abc_on_host) const override {
    const size_t elements = size_t(pk_.num_variables) + (abc_on_host ? 3 * pk_.domain_size() : 0);
    return elements * sizeof(F) + kPartitionOverhead;
  }
  uint32_t num_variables() const override { return pk_.num_variables; }
  uint32_t num_public() const override { return pk_.num_public; }
  uint32_t log_domain_size() const override { return pk_.log_domain_size; }

  Result<std::unique_ptr<PartitionData>> synthesize(const JobInputs& in, uint32_t partition) const override {
    auto out = std::make_unique<Partition<E>>();
    if (in.c1) {
      if constexpr (std::is_same_v<F, filecoin::StackedField>) {
        if (partition >= in.porep_inputs.size()) return internal_error("PoRep partition out of range");
        RETURN_IF_ERROR(filecoin::c2_witness(*in.c1, partition, in.porep_inputs[partition], out->witness_buffer)
                            .with_context(in.witness_name));
      } else {
        return invalid_argument("key '" + source_.text + "' is not a BLS12-381 key: it cannot prove PoRep");
      }
    } else if (source_.circuit) {
      // Partition i of a job proves its own witness of the same circuit.
      const uint64_t input_seed = content_hash(std::to_string(in.seed) + "/" + std::to_string(partition)).lo | 1;
      ASSIGN_OR_RETURN(out->witness, source_.circuit->witness(input_seed, circuits::FieldTag<F>()));
    } else {
      if (in.witness.empty()) return invalid_argument("the job has no witness (a .wtns is required for zkey keys)");
      auto bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in.witness.data()), in.witness.size());
      ASSIGN_OR_RETURN(out->witness, formats::read_wtns<F>(bytes, in.witness_name));
    }
    if (out->values().size() != pk_.num_variables) {
      return invalid_argument(in.witness_name + " has " + std::to_string(out->values().size()) + " values but key '" +
                              source_.text + "' expects " + std::to_string(pk_.num_variables) +
                              " (a witness of another circuit?)");
    }
    return std::unique_ptr<PartitionData>(std::move(out));
  }

  Result<groth16::StageTimings> prove_start(DeviceBackends& device, PartitionData& data) const override {
    auto& p = static_cast<Partition<E>&>(data);
    ASSIGN_OR_RETURN(auto pending, device.get<E>().prove_start(pk_, p.values()));
    p.backend = device.kind;
    groth16::StageTimings timings = pending.timings;
    p.pending = std::move(pending);
    return timings;
  }

  Result<PartitionProof> finish(PartitionData& data, bool verify) const override {
    auto& p = static_cast<Partition<E>&>(data);
    if (!p.pending) return internal_error("finish before prove_start");
    OsRandom rng;
    const F r = F::random(rng), s = F::random(rng);
    groth16::Proof<E> proof = groth16::prove_finish(pk_, *p.pending, r, s);
    auto publics = p.values().subspan(1, pk_.num_public);
    if (verify && !source_.synthetic) {
      ASSIGN_OR_RETURN(bool ok, groth16::verify<E>(pk_.vk, publics, proof));
      if (!ok) return diagnose(p);
    }
    PartitionProof out;
    if constexpr (std::is_same_v<E, ec::bls12_381::Engine>) {
      auto b = formats::encode_proof(proof);
      out.bytes.assign(b.begin(), b.end());
    } else {
      // Named arrays: spans of temporaries in the loop's initializer would dangle.
      const auto a = ec::encode_uncompressed(proof.a);
      const auto b = ec::encode_uncompressed(proof.b);
      const auto c = ec::encode_uncompressed(proof.c);
      out.bytes.insert(out.bytes.end(), a.begin(), a.end());
      out.bytes.insert(out.bytes.end(), b.begin(), b.end());
      out.bytes.insert(out.bytes.end(), c.begin(), c.end());
    }
    out.backend = p.backend;
    out.proof_json = formats::proof_to_json<E>(proof).dump();
    out.public_json = formats::public_to_json<F>(publics).dump();
    return out;
  }

  std::string verifying_key_json() const override { return formats::vk_to_json<E>(pk_.vk).dump(1); }

  // A proof that does not verify: the witness does not satisfy the circuit (invalid input,
  // never retried), or the backend failed (retried). Decided on the host, apart from the
  // backend that proved it.
  Status diagnose(const Partition<E>& p) const {
    const std::string key = "key '" + source_.text + "'";
    // An adopted key's host copy is gone: a small one is loaded again from its source for the
    // diagnosis (a failed verification is rare); a large one is not, and the failure is the
    // backend's to answer for.
    std::optional<groth16::ProvingKey<E>> reloaded;
    const groth16::ProvingKey<E>* pk = &pk_;
    if (pk_.adopted) {
      if (loaded_bytes_ > kDiagnosisReloadLimit) {
        return internal_error("a proof with " + key + " does not verify (the key's host copy, " +
                              std::to_string(loaded_bytes_ >> 20) + " MiB, was handed to the " + p.backend +
                              " backend, so the failing constraint is not named here)");
      }
      std::string phases;
      auto again = load_from_source<E>(source_, hash_, phases);
      if (!again.ok()) {
        return internal_error("a proof with " + key + " does not verify, and loading the key again to diagnose it failed: " +
                              again.status().message());
      }
      reloaded = std::move(*again);
      pk = &*reloaded;
    }
    if (pk->c) {
      // The key has the C matrix: check every row, naming the first that fails.
      std::vector<F> a, b, c;
      Status st = groth16::evaluate(*pk, p.values(), a, b, c, ThreadPool::global());
      if (!st.ok()) return st.with_context("the witness does not satisfy the circuit of " + key);
      return internal_error("the proof does not verify although the witness satisfies every constraint of " + key +
                            " (backend fault on the " + p.backend + " backend)");
    }
    const std::string unsatisfied =
        "the witness does not satisfy the circuit of " + key +
        ": its proof does not verify (a .zkey holds no C matrix, so the failing constraint cannot be named here; "
        "`snarkjs wtns check circuit.r1cs witness.wtns` names it)";
    if (p.backend == "cpu") return invalid_argument(unsatisfied);
    // Another backend proved it: prove again with the CPU reference prover.
    groth16::CpuBackend<E> cpu;
    ASSIGN_OR_RETURN(auto pending, cpu.prove_start(*pk, p.values()));
    OsRandom rng;
    const groth16::Proof<E> proof = groth16::prove_finish(*pk, pending, F::random(rng), F::random(rng));
    auto publics = p.values().subspan(1, pk->num_public);
    ASSIGN_OR_RETURN(bool ok, groth16::verify<E>(pk->vk, publics, proof));
    if (!ok) return invalid_argument(unsatisfied + " (the CPU reference prover's proof does not verify either)");
    return internal_error("the " + p.backend + " backend's proof does not verify but the CPU prover's does (backend fault)");
  }

  Status write_cache(const std::string& path, const Hash128& source) const override {
    if (pk_.adopted) return Status(StatusCode::kFailedPrecondition, "key '" + source_.text + "': its host copy was handed to the GPU");
    return formats::write_key_cache(pk_, source, path);
  }

  void forget(DeviceBackends& device) const override { device.get<E>().forget_key(pk_); }

  Result<std::string> adopt(DeviceBackends& device) override {
    auto held = device.get<E>().adopt_key(pk_);
    if (!held.ok()) {
      if (pk_.adopted) return held.status();
      return std::string("host copy kept (") + held.status().message() + ")";
    }
    bytes_ = groth16::key_host_bytes(pk_) + *held;
    return "adopted by " + device.kind + " " + std::to_string(device.device) + " (host keeps " +
           std::to_string(bytes_ >> 20) + " MiB)";
  }

 private:
  // An adopted key is loaded again for a diagnosis only up to this size.
  static constexpr size_t kDiagnosisReloadLimit = size_t(2) << 30;
  KeySource source_;
  Hash128 hash_;
  groth16::ProvingKey<E> pk_;
  size_t bytes_ = 0, loaded_bytes_ = 0;
};

// Seconds since t0, as the load's note writes them.
std::string seconds_since(std::chrono::steady_clock::time_point t0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return buf;
}

template <class E>
Result<groth16::ProvingKey<E>> load_from_source(const KeySource& s, const Hash128& registered, std::string& phases) {
  using Clock = std::chrono::steady_clock;
  if (s.kind == KeySource::Kind::kBuiltin) {
    const auto t0 = Clock::now();
    ASSIGN_OR_RETURN(auto cs, s.circuit->constraints(circuits::FieldTag<groth16::Fr<E>>()));
    phases = "circuit synthesis " + seconds_since(t0);
    // Deterministic, so a key evicted to COLD comes back the same (built-in keys are for tests
    // and benchmarks: their trapdoor is public).
    SeededRandom rng((content_hash(s.text).lo | 1) ^ 0x5eed);
    const auto t1 = Clock::now();
    // A synthetic key takes the matrices over (at 2^27 a copy would not fit in memory).
    auto pk = s.synthetic ? groth16::synthetic_key<E>(std::move(cs), s.convention, rng)
                          : groth16::setup<E>(cs, s.convention, rng);
    phases += std::string(s.synthetic ? ", QAP and synthetic points " : ", setup ") + seconds_since(t1);
    return pk;
  }
  if (s.kind == KeySource::Kind::kParams) {
    if constexpr (std::is_same_v<E, ec::bls12_381::Engine>) {
      ASSIGN_OR_RETURN(const auto now, file_identity(s.path, "key '" + s.text + "'"));
      if (now.first != s.file_size || now.second != s.file_mtime) {
        return Status(StatusCode::kFailedPrecondition,
                      "'" + s.path + "' changed since it was registered (size or modification time): register it "
                      "again, as a new key");
      }
      // The circuit's matrices (a .params file holds none), then the file's points over them; its
      // query lengths must equal the circuit's (the reader names the first that differs).
      const auto t0 = Clock::now();
      ASSIGN_OR_RETURN(auto cs, s.circuit->constraints(circuits::FieldTag<groth16::Fr<E>>()));
      ASSIGN_OR_RETURN(auto circuit, groth16::circuit_part<E>(std::move(cs), poly::QuotientConvention::kDivideByZ,
                                                              "bellperson key"));
      phases = "circuit synthesis " + seconds_since(t0);
      const auto t1 = Clock::now();
      ASSIGN_OR_RETURN(auto file, MappedFile::open(s.path));
      auto pk = formats::read_params(file.bytes(), s.path, std::move(circuit));
      phases += ", parameters read " + seconds_since(t1);
      return pk;
    } else {
      return invalid_argument("bellperson parameters are BLS12-381 only");
    }
  }
  ASSIGN_OR_RETURN(auto file, MappedFile::open(s.path));
  // The key's id is its content when registered: the file must still be that content.
  if (const Hash128 now = content_hash(file.bytes()); now != registered) {
    return Status(StatusCode::kFailedPrecondition,
                  "'" + s.path + "' changed since it was registered (content hash " + registered.hex() + ", now " +
                      now.hex() + "): register it again, as a new key");
  }
  return formats::read_zkey<E>(file.bytes(), s.path);
}

template <class E>
Result<std::shared_ptr<CircuitKey>> load_curve(const KeySource& s, const Hash128& hash, const std::string& cache_path,
                                               bool& from_cache, std::string& note) {
  from_cache = false;
  if (!cache_path.empty() && std::filesystem::exists(cache_path)) {
    auto file = MappedFile::open(cache_path);
    if (file.ok()) {
      auto pk = formats::read_key_cache<E>(file->bytes(), cache_path, hash);
      if (pk.ok()) {
        from_cache = true;
        note = "from the WARM cache " + cache_path;
        return std::shared_ptr<CircuitKey>(std::make_shared<CurveKey<E>>(s, hash, std::move(*pk)));
      }
      note = "cache not used: " + pk.status().message() + "; ";
    } else {
      note = "cache not used: " + file.status().message() + "; ";
    }
  }
  std::string phases;
  ASSIGN_OR_RETURN(auto pk, load_from_source<E>(s, hash, phases));
  note += "from the source " + s.text + (phases.empty() ? "" : " (" + phases + ")");
  if (!cache_path.empty()) {
    Status st = formats::write_key_cache(pk, hash, cache_path);
    if (!st.ok()) note += " (WARM cache not written: " + st.message() + ")";
  }
  return std::shared_ptr<CircuitKey>(std::make_shared<CurveKey<E>>(s, hash, std::move(pk)));
}

}  // namespace

Result<KeySource> parse_key_source(const std::string& source) {
  KeySource s;
  s.text = source;
  if (source.rfind(kBuiltinPrefix, 0) == 0) {
    // builtin:[synthetic:][divide-by-z:]<family>:<parameters>, e.g.
    // builtin:chain:<curve>:<log2 constraints>; the two flags in either order, written back in
    // this one.
    std::string_view spec = std::string_view(source).substr(kBuiltinPrefix.size());
    for (bool more = true; more;) {
      more = false;
      if (spec.rfind(kDivideByZ, 0) == 0 && s.convention != poly::QuotientConvention::kDivideByZ) {
        s.convention = poly::QuotientConvention::kDivideByZ;
        spec.remove_prefix(kDivideByZ.size());
        more = true;
      }
      if (spec.rfind(kSynthetic, 0) == 0 && !s.synthetic) {
        s.synthetic = true;
        spec.remove_prefix(kSynthetic.size());
        more = true;
      }
    }
    std::string prefix(kBuiltinPrefix);
    if (s.synthetic) prefix += kSynthetic;
    if (s.convention == poly::QuotientConvention::kDivideByZ) prefix += kDivideByZ;
    auto circuit = registry::parse_circuit(spec);
    if (!circuit.ok()) return circuit.status().with_context("key source '" + source + "'");
    s.kind = KeySource::Kind::kBuiltin;
    s.circuit = std::shared_ptr<const circuits::Circuit>(std::move(*circuit));
    s.curve = s.circuit->curve();
    s.porep = porep_of(*s.circuit);
    s.text = prefix + s.circuit->spec();
    return s;
  }
  if (source.rfind(kBellpersonPrefix, 0) == 0) {
    // bellperson:<spec>[@<path>]
    std::string_view rest = std::string_view(source).substr(kBellpersonPrefix.size());
    const size_t at = rest.find('@');
    const std::string_view spec = rest.substr(0, at);
    auto circuit = registry::parse_circuit(spec);
    if (!circuit.ok()) return circuit.status().with_context("key source '" + source + "'");
    s.kind = KeySource::Kind::kParams;
    s.circuit = std::shared_ptr<const circuits::Circuit>(std::move(*circuit));
    s.curve = s.circuit->curve();
    if (s.curve != ec::CurveId::kBls12_381) {
      return invalid_argument("key source '" + source + "': bellperson parameters are BLS12-381 only");
    }
    s.porep = porep_of(*s.circuit);
    s.convention = poly::QuotientConvention::kDivideByZ;
    if (at != std::string_view::npos) {
      s.path = std::string(rest.substr(at + 1));
    } else if (s.porep) {
      s.path = (std::filesystem::path(filecoin::parameter_cache_dir()) / filecoin::porep_parameter_file(*s.porep, ".params"))
                   .string();
    } else {
      return invalid_argument("key source '" + source + "': name the .params file (bellperson:<spec>@<path>)");
    }
    ASSIGN_OR_RETURN(const auto id, file_identity(s.path, "key source '" + source + "'"));
    s.file_size = id.first;
    s.file_mtime = id.second;
    s.text = std::string(kBellpersonPrefix) + s.circuit->spec() + "@" + s.path;
    return s;
  }
  s.kind = KeySource::Kind::kZkey;
  s.path = source;
  ASSIGN_OR_RETURN(auto file, MappedFile::open(source));
  ASSIGN_OR_RETURN(auto bin, formats::parse_bin_file(file.bytes(), "zkey", 1, "'" + source + "'"));
  ASSIGN_OR_RETURN(s.curve, formats::curve_from_header(bin, 2, /*is_scalar=*/false));
  return s;
}

Result<Hash128> key_source_hash(const KeySource& s) {
  if (s.kind == KeySource::Kind::kBuiltin) return content_hash(s.text);
  if (s.kind == KeySource::Kind::kParams) {
    return content_hash(s.text + "|" + std::to_string(s.file_size) + "|" + std::to_string(s.file_mtime));
  }
  ASSIGN_OR_RETURN(auto file, MappedFile::open(s.path));
  return content_hash(file.bytes());
}

Result<size_t> estimate_key_bytes(const KeySource& s) {
  if (s.kind == KeySource::Kind::kZkey) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(s.path, ec);
    if (ec) return Status(StatusCode::kNotFound, "key '" + s.path + "': " + ec.message());
    // Our points carry an identity flag (and padding) that the zkey's do not, and A, B, C
    // are split out of the coefficient section.
    return size_t(size) * 3 / 2 + (size_t(64) << 10);
  }
  // The domain: rows plus one per input (a few), rounded up to a power of two.
  size_t n = 1;
  while (n < s.circuit->approximate_constraints() + 8) n <<= 1;
  const size_t fr = 32, g1 = s.curve == ec::CurveId::kBls12_381 ? 104 : 72;
  const size_t g2 = s.curve == ec::CurveId::kBls12_381 ? 200 : 136;
  // CSR matrices built from the circuit, whichever source gives the points: up to 6 terms a
  // row in all three (a PoRep partition has 5.5), with their row starts.
  const size_t matrices = n * (6 * (fr + 4) + 3 * 8);
  if (s.kind == KeySource::Kind::kParams) {
    // The file's points (96 and 192 bytes) as ours (104 and 200).
    return size_t(s.file_size) / 96 * 104 + matrices + (size_t(64) << 10);
  }
  // Points: A and C of every variable, H of the domain, B1 and B2 of the variables B uses (the
  // family's share). A load that takes more is charged the rest once it is done.
  const size_t nv = std::min<size_t>(s.circuit->approximate_variables(), n);
  const double b_share = std::clamp(s.circuit->approximate_b_share(), 0.0, 1.0);
  const size_t b = size_t(double(nv) * b_share) + 1;
  return (2 * nv + n) * g1 + b * (g1 + g2) + matrices + (size_t(64) << 10);
}

Result<std::shared_ptr<CircuitKey>> load_circuit_key(const KeySource& source, const Hash128& hash,
                                                     const std::string& cache_path, bool& from_cache,
                                                     std::string& note) {
  return ec::with_engine(source.curve, [&]<class E>() { return load_curve<E>(source, hash, cache_path, from_cache, note); });
}

}  // namespace snarkd::engine::internal

namespace snarkd::engine {

Status validate_key_file(const std::string& path) {
  ASSIGN_OR_RETURN(internal::KeySource s, internal::parse_key_source(path));
  if (s.kind != internal::KeySource::Kind::kZkey) return invalid_argument("'" + path + "' is not a key file");
  ASSIGN_OR_RETURN(auto file, MappedFile::open(s.path));
  return ec::with_engine(s.curve, [&]<class E>() -> Status {
    auto pk = formats::read_zkey<E>(file.bytes(), s.path);
    return pk.ok() ? Status() : pk.status();
  });
}

}  // namespace snarkd::engine
