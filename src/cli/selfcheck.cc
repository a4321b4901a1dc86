#include "cli/selfcheck.h"

#include <chrono>
#include <functional>
#include <iomanip>
#include <random>
#include <string>
#include <vector>

#include "base/hex.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "ec/encoding.h"
#include "gpu/probe.h"

namespace snarkd::cli {

namespace {

struct Check {
  std::string name;
  std::function<bool()> run;
};

// Known-answer points published with the zcash encoding (shared/reference/formats.md).
constexpr const char* kBlsG1Times123456789 =
    "af95b8218cbee2f4fa48e6b6f1df4e8ee46fee73c270dba395dad523d10c9b35295ccfc92cf0a9db8a065e16dafbfaad";
constexpr const char* kBlsG2Times7 =
    "8d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
    "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c";

template <class C>
bool multiple_matches(uint64_t k, const char* hex) {
  auto bytes = from_hex(hex);
  if (!bytes.ok()) return false;
  auto decoded = ec::decode_compressed<C>(*bytes);
  if (!decoded.ok()) return false;
  auto mine = ec::mul_vartime(C::generator(), ff::BigInt<1>::from_u64(k)).to_affine();
  return mine == *decoded && ec::encode_compressed(mine) == ec::encode_compressed(*decoded);
}

template <class F, class Rng>
bool field_laws(Rng& rng) {
  for (int i = 0; i < 32; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    if (!((a + b) * c == a * c + b * c)) return false;
    if (!a.is_zero() && !(a * a.inverse()).is_one()) return false;
    auto root = a.square().sqrt();
    if (!root || !(root->square() == a.square())) return false;
  }
  return true;
}

template <class E, class Rng>
bool bilinear(Rng& rng) {
  using Fr = typename E::G1::Scalar;
  using P = ec::Pairing<E>;
  Fr a = Fr::random(rng), b = Fr::random(rng);
  auto pa = ec::mul_vartime(E::G1::generator(), a.to_canonical()).to_affine();
  auto qb = ec::mul_vartime(E::G2::generator(), b.to_canonical()).to_affine();
  auto pab = ec::mul_vartime(E::G1::generator(), (a * b).to_canonical()).to_affine();
  auto lhs = P::pairing(pa, qb);
  auto rhs = P::pairing(pab, E::G2::generator());
  return lhs == rhs && !lhs.is_one();
}

}  // namespace

int run_selfcheck(std::ostream& out, unsigned long long seed) {
  auto probe = gpu::probe_devices();
  out << "snarkd selfcheck\n";
  out << "  CUDA compiled in: " << (probe.cuda_compiled ? "yes" : "no") << "\n";
  if (probe.usable()) {
    for (const auto& d : probe.devices) {
      out << "  GPU " << d.ordinal << ": " << d.name << " (sm_" << d.compute_major
          << d.compute_minor << ", " << d.multiprocessors << " SMs, "
          << d.total_memory_bytes / (1024 * 1024) << " MiB)\n";
    }
  } else {
    out << "  GPU: none usable (" << probe.reason << ")\n";
  }
  out << "  backend: " << gpu::selected_backend(probe) << "\n";
  out << "  seed: " << seed << "\n";

  std::mt19937_64 rng(seed);
  namespace bls = ec::bls12_381;
  namespace bn = ec::bn254;
  std::vector<Check> checks = {
      {"BLS12-381 Fp/Fr field laws", [&] {
         return field_laws<bls::Fq>(rng) && field_laws<bls::Fr>(rng) && field_laws<bls::Fq2>(rng);
       }},
      {"BN254 Fp/Fr field laws", [&] {
         return field_laws<bn::Fq>(rng) && field_laws<bn::Fr>(rng) && field_laws<bn::Fq2>(rng);
       }},
      {"BLS12-381 [123456789]G1 (zcash)",
       [] { return multiple_matches<bls::G1>(123456789, kBlsG1Times123456789); }},
      {"BLS12-381 [7]G2 (zcash)", [] { return multiple_matches<bls::G2>(7, kBlsG2Times7); }},
      {"BLS12-381 pairing bilinearity", [&] { return bilinear<bls::Engine>(rng); }},
      {"BN254 pairing bilinearity", [&] { return bilinear<bn::Engine>(rng); }},
  };
  int failures = 0;
  for (const auto& check : checks) {
    auto start = std::chrono::steady_clock::now();
    bool ok = check.run();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    failures += ok ? 0 : 1;
    out << "  [" << (ok ? " ok " : "FAIL") << "] " << std::left << std::setw(36) << check.name
        << std::right << std::fixed << std::setprecision(1) << std::setw(8) << ms << " ms\n";
  }
  out << (failures == 0 ? "selfcheck passed" : "selfcheck FAILED") << " (" << checks.size() - failures
      << "/" << checks.size() << " checks)\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace snarkd::cli
