// snarkd/ff: prime fields in Montgomery form with 64-bit limbs, generic over the modulus.
//
// Fp<P> is parameterised by a tiny struct P holding the modulus (as a BigInt) and a name; every
// derived constant (R, R^2, -p^-1 mod 2^64, exponents for inverse/sqrt/legendre) is computed
// from it by constexpr code below. All hot paths are loops over a compile-time limb count that
// the compiler fully unrolls.
//
// Multiplication is CIOS Montgomery with the "no final carry" shortcut, valid because each of
// our moduli leaves the top bit of its top limb clear (static_assert below): intermediate sums
// then fit in N limbs and the carry word of textbook CIOS disappears.
//
// Timing: add/sub/mul/square/inverse/equality are branch-free in the values. pow() and sqrt()
// branch on the exponent, which is always a public constant here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"
#include "ff/bigint.h"

// Hand-scheduled MULX/ADCX/ADOX multiplication for 4 and 6 limbs when the target has BMI2 and
// ADX (CMake enables them on x86-64 hosts that support them; docs/perf.md has the figures).
#if defined(__x86_64__) && defined(__BMI2__) && defined(__ADX__) && !defined(SNARKD_FF_NO_ASM)
#define SNARKD_FF_X86_ASM 1
namespace snarkd::ff::detail {
#include "ff/mont_x86_64.inc"
}  // namespace snarkd::ff::detail
#endif

// Full unrolling of the limb loops (GCC); nvcc and others get the plain loop.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define SNARKD_UNROLL _Pragma("GCC unroll 8")
#else
#define SNARKD_UNROLL
#endif

namespace snarkd::ff {

namespace detail {

// -p^-1 mod 2^64 by Newton iteration (each step doubles the correct low bits).
constexpr uint64_t neg_inverse_mod_2_64(uint64_t p0) {
  uint64_t inv = 1;
  for (int i = 0; i < 7; ++i) inv *= 2 - p0 * inv;
  return ~inv + 1;
}

// 2^(64*N*k) mod p by repeated doubling; k = 1 gives R, k = 2 gives R^2.
template <size_t N>
constexpr BigInt<N> pow2_mod(const BigInt<N>& p, size_t exponent) {
  BigInt<N> r = BigInt<N>::from_u64(1);
  for (size_t i = 0; i < exponent; ++i) {
    uint64_t carry = r.shl1();
    if (carry || r >= p) r.sub_in_place(p);
  }
  return r;
}

}  // namespace detail

template <class P>
class Fp {
 public:
  using Params = P;
  static constexpr size_t kLimbs = P::kLimbs;
  static constexpr size_t kBytes = 8 * kLimbs;
  using Int = BigInt<kLimbs>;

  static constexpr Int kModulus = P::kModulus;
  static constexpr size_t kModulusBits = kModulus.num_bits();
  static constexpr uint64_t kInv = detail::neg_inverse_mod_2_64(kModulus[0]);
  static constexpr Int kR = detail::pow2_mod(kModulus, 64 * kLimbs);
  static constexpr Int kR2 = detail::pow2_mod(kModulus, 128 * kLimbs);
  static constexpr Int kModulusMinusTwo = kModulus - Int::from_u64(2);
  static constexpr Int kModulusMinusOneHalf = [] {
    Int t = kModulus - Int::from_u64(1);
    t.shr1();
    return t;
  }();
  // Largest s with 2^s | p-1 (Tonelli-Shanks), and t = (p-1)/2^s.
  static constexpr size_t kTwoAdicity = [] {
    Int t = kModulus - Int::from_u64(1);
    size_t s = 0;
    while (!t.is_odd()) {
      t.shr1();
      ++s;
    }
    return s;
  }();
  static constexpr Int kTwoAdicCofactor = [] {
    Int t = kModulus - Int::from_u64(1);
    for (size_t i = 0; i < kTwoAdicity; ++i) t.shr1();
    return t;
  }();

  static_assert(kModulus[0] & 1, "modulus must be odd");
  static_assert(kModulus[kLimbs - 1] < 0x7fffffffffffffffull,
                "no-carry Montgomery multiplication needs a spare top bit");
  static_assert(kInv * kModulus[0] == ~uint64_t(0), "bad -p^-1");

  constexpr Fp() = default;  // zero

  static constexpr Fp zero() { return Fp(); }
  static constexpr Fp one() { return from_montgomery(kR); }
  static constexpr Fp from_u64(uint64_t v) { return from_canonical_unchecked(Int::from_u64(v)); }
  // Wraps raw Montgomery limbs; the caller guarantees value < p.
  static constexpr Fp from_montgomery(const Int& mont) {
    Fp r;
    r.v_ = mont;
    return r;
  }
  // value < p is the caller's promise (constants, reduced results).
  static constexpr Fp from_canonical_unchecked(const Int& value) {
    Fp r;
    mont_mul(r.v_, value, kR2);
    return r;
  }
  // Rejects value >= p.
  static std::optional<Fp> from_canonical(const Int& value) {
    if (value >= kModulus) return std::nullopt;
    return from_canonical_unchecked(value);
  }

  constexpr const Int& montgomery() const { return v_; }
  constexpr Int to_canonical() const {
    Int r;
    mont_mul(r, v_, Int::from_u64(1));
    return r;
  }

  constexpr bool is_zero() const { return v_.is_zero(); }
  constexpr bool is_one() const { return *this == one(); }

  // Constant time in the values: every limb is compared.
  friend constexpr bool operator==(const Fp& a, const Fp& b) {
    uint64_t diff = 0;
    for (size_t i = 0; i < kLimbs; ++i) diff |= a.v_[i] ^ b.v_[i];
    return diff == 0;
  }

  friend constexpr Fp operator+(const Fp& a, const Fp& b) {
    Fp r = a;
    r += b;
    return r;
  }
  friend constexpr Fp operator-(const Fp& a, const Fp& b) {
    Fp r = a;
    r -= b;
    return r;
  }
  friend constexpr Fp operator*(const Fp& a, const Fp& b) {
    Fp r;
    mont_mul(r.v_, a.v_, b.v_);
    return r;
  }
  constexpr Fp operator-() const {
    Fp r;
    // p - a, masked to zero when a == 0 so the result stays canonical.
    Int t = kModulus;
    t.sub_in_place(v_);
    uint64_t nonzero = is_zero() ? 0 : ~uint64_t(0);
    for (size_t i = 0; i < kLimbs; ++i) r.v_[i] = t[i] & nonzero;
    return r;
  }

  constexpr Fp& operator+=(const Fp& b) {
    v_.add_in_place(b.v_);  // < 2p < 2^(64N): no carry out
    reduce_once(v_);
    return *this;
  }
  constexpr Fp& operator-=(const Fp& b) {
    uint64_t borrow = v_.sub_in_place(b.v_);
    Int p_masked;
    uint64_t mask = 0 - borrow;
    for (size_t i = 0; i < kLimbs; ++i) p_masked[i] = kModulus[i] & mask;
    v_.add_in_place(p_masked);
    return *this;
  }
  constexpr Fp& operator*=(const Fp& b) {
    mont_mul(v_, v_, b.v_);
    return *this;
  }

  constexpr Fp square() const { return *this * *this; }
  constexpr Fp dbl() const { return *this + *this; }
  // this / 2: add p when odd (a + p < 2p fits), then shift.
  constexpr Fp halve() const {
    Fp r = *this;
    Int p_masked;
    uint64_t mask = 0 - (r.v_[0] & 1);
    for (size_t i = 0; i < kLimbs; ++i) p_masked[i] = kModulus[i] & mask;
    r.v_.add_in_place(p_masked);
    r.v_.shr1();
    return r;
  }

  // this^e for a public exponent e.
  template <size_t M>
  constexpr Fp pow(const BigInt<M>& e) const {
    Fp result = one();
    for (size_t i = e.num_bits(); i-- > 0;) {
      result = result.square();
      if (e.bit(i)) result *= *this;
    }
    return result;
  }
  constexpr Fp pow(uint64_t e) const { return pow(BigInt<1>::from_u64(e)); }

  // Fermat inverse; inverse of zero is zero (callers that care check is_zero()).
  constexpr Fp inverse() const { return pow(kModulusMinusTwo); }

  // 1 for a non-zero square, -1 for a non-square, 0 for zero.
  int legendre() const {
    Fp t = pow(kModulusMinusOneHalf);
    if (t.is_zero()) return 0;
    return t.is_one() ? 1 : -1;
  }

  // A square root, or nullopt for non-squares. Which of the two roots is returned is fixed by
  // the algorithm; encodings choose the sign themselves.
  std::optional<Fp> sqrt() const;

  // Uniform over [0, p) by rejection sampling; Rng is a UniformRandomBitGenerator of uint64_t.
  template <class Rng>
  static Fp random(Rng& rng) {
    for (;;) {
      Int t;
      for (size_t i = 0; i < kLimbs; ++i) t[i] = rng();
      size_t excess = 64 * kLimbs - kModulusBits;
      t[kLimbs - 1] &= ~uint64_t(0) >> excess;
      if (t < kModulus) return from_canonical_unchecked(t);
    }
  }

  // Canonical encodings, kBytes long.
  void to_bytes_be(std::span<uint8_t> out) const { to_canonical().to_bytes_be(out); }
  void to_bytes_le(std::span<uint8_t> out) const { to_canonical().to_bytes_le(out); }
  // nullopt when the bytes encode an integer >= p.
  static std::optional<Fp> from_bytes_be(std::span<const uint8_t> in) {
    auto v = Int::from_bytes_be(in);
    if (!v) return std::nullopt;
    return from_canonical(*v);
  }
  static std::optional<Fp> from_bytes_le(std::span<const uint8_t> in) {
    auto v = Int::from_bytes_le(in);
    if (!v) return std::nullopt;
    return from_canonical(*v);
  }

  std::string to_decimal() const { return to_canonical().to_decimal(); }
  // Digits only; an error says whether the text is malformed or not below p.
  static Result<Fp> from_decimal(std::string_view text) {
    auto v = Int::from_decimal(text);
    if (!v) {
      return invalid_argument(std::string(P::kName) + ": '" + std::string(text.substr(0, 100)) +
                              "' is not a decimal integer that fits");
    }
    auto f = from_canonical(*v);
    if (!f) return invalid_argument(std::string(P::kName) + ": decimal value is not below p");
    return *f;
  }

  static constexpr const char* name() { return P::kName; }

  // a * b without the assembly path; for tests and benchmarks.
  static constexpr Fp mul_portable(const Fp& a, const Fp& b) {
    Fp r;
    mont_mul_portable(r.v_, a.v_, b.v_);
    return r;
  }

 private:
  // r = a*b*R^-1 mod p (CIOS, no-carry variant; r may alias a or b).
  static constexpr void mont_mul(Int& r, const Int& a, const Int& b) {
#ifdef SNARKD_FF_X86_ASM
    if (!std::is_constant_evaluated()) {
      if constexpr (kLimbs == 6) {
        detail::mont_mul_asm_6(r.limbs.data(), a.limbs.data(), b.limbs.data(),
                               kModulus.limbs.data(), kInv);
        return;
      } else if constexpr (kLimbs == 4) {
        detail::mont_mul_asm_4(r.limbs.data(), a.limbs.data(), b.limbs.data(),
                               kModulus.limbs.data(), kInv);
        return;
      }
    }
#endif
    mont_mul_portable(r, a, b);
  }

  // Portable CIOS in C++ (the x86-64 assembly path is checked and benchmarked against it).
  static constexpr void mont_mul_portable(Int& r, const Int& a, const Int& b) {
    uint64_t t[kLimbs] = {};
SNARKD_UNROLL
    for (size_t i = 0; i < kLimbs; ++i) {
      u128 prod = u128(a[0]) * b[i] + t[0];
      uint64_t carry_a = uint64_t(prod >> 64);
      uint64_t m = uint64_t(prod) * kInv;
      u128 red = u128(m) * kModulus[0] + uint64_t(prod);
      uint64_t carry_m = uint64_t(red >> 64);
SNARKD_UNROLL
      for (size_t j = 1; j < kLimbs; ++j) {
        prod = u128(a[j]) * b[i] + t[j] + carry_a;
        carry_a = uint64_t(prod >> 64);
        red = u128(m) * kModulus[j] + uint64_t(prod) + carry_m;
        carry_m = uint64_t(red >> 64);
        t[j - 1] = uint64_t(red);
      }
      t[kLimbs - 1] = carry_a + carry_m;
    }
    for (size_t i = 0; i < kLimbs; ++i) r[i] = t[i];
    reduce_once(r);
  }

  // x in [0, 2p) -> [0, p), branch-free.
  static constexpr void reduce_once(Int& x) {
    Int t = x;
    uint64_t borrow = t.sub_in_place(kModulus);
    uint64_t keep = 0 - borrow;  // all ones when x < p
    for (size_t i = 0; i < kLimbs; ++i) x[i] = (x[i] & keep) | (t[i] & ~keep);
  }

  Int v_{};  // Montgomery form, always < p
};

template <class P>
std::optional<Fp<P>> Fp<P>::sqrt() const {
  if (is_zero()) return zero();
  if ((kModulus[0] & 3) == 3) {
    // p = 3 mod 4: a^((p+1)/4).
    static constexpr Int kExp = [] {
      Int e = kModulus;
      e.add_in_place(Int::from_u64(1));  // p + 1 < 2^(64N): spare top bit
      e.shr1();
      e.shr1();
      return e;
    }();
    Fp root = pow(kExp);
    if (root.square() == *this) return root;
    return std::nullopt;
  }
  // Tonelli-Shanks with a quadratic non-residue found once by trial.
  static const Fp kRootOfUnity = [] {
    Fp z = from_u64(2);
    while (z.legendre() != -1) z += one();
    return z.pow(kTwoAdicCofactor);
  }();
  if (legendre() != 1) return std::nullopt;
  Int t_plus_one_half = kTwoAdicCofactor;
  t_plus_one_half.add_in_place(Int::from_u64(1));
  t_plus_one_half.shr1();
  size_t m = kTwoAdicity;
  Fp c = kRootOfUnity;
  Fp t = pow(kTwoAdicCofactor);
  Fp r = pow(t_plus_one_half);
  while (!t.is_one()) {
    size_t i = 0;
    Fp t2 = t;
    while (!t2.is_one()) {
      t2 = t2.square();
      ++i;
    }
    Fp b = c;
    for (size_t j = 0; j + 1 < m - i; ++j) b = b.square();
    m = i;
    c = b.square();
    t *= c;
    r *= b;
  }
  return r;
}

}  // namespace snarkd::ff
