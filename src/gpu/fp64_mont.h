// snarkd/gpu: Montgomery multiplication on the FP64 pipe (an experiment: no kernel uses it yet;
// `gpu_bench field` measures it against the integer products of field.cuh).
//
// Why: the integer products are bound by the multiplier behind IMAD (IMAD.HI runs at half rate,
// 32 a clock an SM), while the H200's FP64 units (64 FMAs a clock an SM) sit idle
// (../shared/reference/perf.md, "ceilings"). Two FMAs give the exact product of two 48-bit limbs,
// 2.25 times the bits that an IMAD and IMAD.HI pair gives for two 32-bit limbs.
//
// Representation: N limbs of L <= 51 bits, each an integer-valued double in [0, 2^L); the value
// is in Montgomery form with R' = 2^(N L). For BLS12-381 Fp, 8 limbs of 48 bits give R' = 2^384,
// the integer code's R, so the two forms hold the same numbers; 5 limbs of 51 bits (R' = 2^255)
// cover the 255-bit fields.
//
// One limb product a b (< 2^(2L)) is split exactly, in round-to-nearest, with two constants:
//   hi = fma(a, b, B)        B = 2^(L+52): the sum lies in [2^(L+52), 2^(L+53)), where one unit
//                            in the last place is 2^L, so bits(hi) - bits(B) = H = round(ab / 2^L)
//   lo = fma(a, b, B + 3 2^51 - hi)   (the addend is exact by Sterbenz's lemma): ab - H 2^L, at
//                            most 2^(L-1) in magnitude, plus 3 2^51, in [2^52, 2^53) where the
//                            unit is 1, so bits(lo) - bits(3 2^51) = ab - H 2^L, signed.
// The column sums of H and of the signed lows are kept in 64-bit integers, or in doubles (lo =
// fma(a, b, B - hi) is ab - H 2^L itself, and a sum of up to 2N of them stays exact below 2^53),
// which moves work from the integer ALU to the FP64 pipe (Fp64Form below).
// Round-to-nearest is what both host (std::fma) and device (__fma_rn) compute, so the host tests
// of this header check the device's arithmetic too.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ff/fp.h"

#if defined(__CUDACC__)
#define SNARKD_FP64_HD __host__ __device__ __forceinline__
#else
#define SNARKD_FP64_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define SNARKD_FP64_UNROLL _Pragma("unroll")
#else
#define SNARKD_FP64_UNROLL
#endif

namespace snarkd::gpu::fp64 {

SNARKD_FP64_HD uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return uint64_t(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}
SNARKD_FP64_HD double double_of(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}
SNARKD_FP64_HD double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
// An addition the compiler may not fuse with a neighbouring product.
SNARKD_FP64_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// 2^e as a double and as its bit pattern (e in [0, 1023]).
constexpr double pow2(int e) {
  double r = 1.0;
  for (int i = 0; i < e; ++i) r *= 2.0;
  return r;
}
constexpr uint64_t pow2_bits(int e) { return uint64_t(1023 + e) << 52; }

// How the two halves of the limb products are summed, for the products of a b and of m p:
//   his:  as integers (bits(hi) - bits(B) added in 64 bits, integer ALU), or chained in one
//         double a column (FP64 pipe): acc' = fma(a, b, acc) rounds to a multiple of 2^L as the
//         lone split did, acc - acc' = -H 2^L exactly, and bits(acc) - bits(B) is the column's
//         sum of H at the end. The chain costs no integer work but makes a column's products
//         of a row one dependency path.
//   lows: as integers (biased, 64-bit adds) or in doubles (exact while at most 2^51).
// The forms move work between the integer ALU and the FP64 pipe; which balances them best is
// for `gpu_bench field` to say.
struct ProductSums {
  bool chained_his;
  bool float_lows;
};
enum class Fp64Form {
  kIntegerSums,
  kFloatLows,
  kMixedLows,
  kChainedFloat,
  kChainedMixed,
  kChainedIntegerLows
};
struct FormSums {
  ProductSums ab, mp;  // the products of a b and those of m p
  const char* name;
};
constexpr FormSums form_sums(Fp64Form f) {
  constexpr ProductSums kIntegers{false, false}, kFloatLows{false, true}, kChainedFloat{true, true},
      kChainedIntegerLows{true, false};
  switch (f) {
    case Fp64Form::kIntegerSums:
      return {kIntegers, kIntegers, "integer-sums"};
    case Fp64Form::kFloatLows:
      return {kFloatLows, kFloatLows, "float-lows"};
    case Fp64Form::kMixedLows:
      return {kFloatLows, kIntegers, "mixed-lows"};
    case Fp64Form::kChainedFloat:
      return {kChainedFloat, kChainedFloat, "chained-float"};
    case Fp64Form::kChainedMixed:
      return {kChainedFloat, kIntegers, "chained-mixed"};
    case Fp64Form::kChainedIntegerLows:
      return {kChainedIntegerLows, kChainedIntegerLows, "chained-int-lows"};
  }
  return {kIntegers, kIntegers, "?"};
}
constexpr const char* form_name(Fp64Form f) { return form_sums(f).name; }

template <int N, int L>
struct Radix {
  static_assert(L >= 32 && L <= 51, "the split needs 3 * 2^51 to be a multiple of 2^L");
  static constexpr int kLimbs = N;
  static constexpr int kLimbBits = L;
  static constexpr uint64_t kMask = (uint64_t(1) << L) - 1;
  static constexpr double kHiBias = pow2(L + 52);
  static constexpr uint64_t kHiBiasBits = pow2_bits(L + 52);
  static constexpr double kLoBias = 3 * pow2(51);
  static constexpr uint64_t kLoBiasBits = pow2_bits(52) | (uint64_t(1) << 51);
  static constexpr double kHiLoBias = kHiBias + kLoBias;  // exact: 3 * 2^51 is a multiple of 2^L
  // A column of lows summed in doubles: `terms` lows of at most 2^(L-1) must stay within the
  // range to_int converts exactly.
  static constexpr bool float_lows_exact(int terms) {
    return uint64_t(terms) << (L - 1) <= (uint64_t(1) << 51);
  }

  // x < 2^52 as a double: OR-ing x under the exponent of 2^52 is exact, the subtraction too.
  SNARKD_FP64_HD static double to_double(uint64_t x) {
    return add_rn(double_of(pow2_bits(52) | x), -pow2(52));
  }
  // An integer-valued double with |x| <= 2^51 as an integer: x + 3 2^51 lies in [2^52, 2^53].
  SNARKD_FP64_HD static int64_t to_int(double x) {
    return int64_t(bits_of(add_rn(x, kLoBias)) - kLoBiasBits);
  }
  // An integer-valued double in [0, 2^52) as an integer: x + 2^52 lies in [2^52, 2^53).
  SNARKD_FP64_HD static int64_t to_int_unsigned(double x) {
    return int64_t(bits_of(add_rn(x, pow2(52))) - pow2_bits(52));
  }
};

// The modulus in N limbs of L bits, and -p^-1 mod 2^L.
template <int N, int L>
struct Modulus {
  double p[N];
  int64_t limbs[N];
  double one[N];  // R' mod p: 1 in Montgomery form
  uint64_t inv;
};

// Limb j (L bits) of a little-endian array of 64-bit words.
template <size_t K>
constexpr uint64_t limb_of(const std::array<uint64_t, K>& words, int j, int L) {
  uint64_t limb = 0;
  for (int bit = 0; bit < L; ++bit) {
    const size_t pos = size_t(j) * size_t(L) + size_t(bit);
    if (pos < 64 * K && ((words[pos / 64] >> (pos % 64)) & 1)) limb |= uint64_t(1) << bit;
  }
  return limb;
}

template <class P, int N, int L>
constexpr Modulus<N, L> make_modulus() {
  using H = ff::Fp<P>;
  // R' > p keeps a product of values below p under 2p (BLS12-381 r has 255 bits: R' = 2^255).
  static_assert(size_t(N) * L >= H::kModulusBits, "R' = 2^(N L) must exceed p");
  static_assert(size_t(N - 1) * L < H::kModulusBits, "one limb too many");
  Modulus<N, L> m{};
  const auto one = ff::detail::pow2_mod(H::kModulus, size_t(N) * L);
  for (int j = 0; j < N; ++j) {
    m.limbs[j] = int64_t(limb_of(H::kModulus.limbs, j, L));
    m.p[j] = double(m.limbs[j]);
    m.one[j] = double(limb_of(one.limbs, j, L));
  }
  m.inv = H::kInv & Radix<N, L>::kMask;  // -p^-1 mod 2^64, reduced mod 2^L
  return m;
}

// One column's sums: integer (his and biased lows), float lows, and the chained his (biased by
// B). A column's value is int_sum + float_lows + bits(chained_his) - bits(B).
struct ColumnSums {
  uint64_t int_sum;
  double float_lows;
  double chained_his;
};

// lo into `low`, H into `high`, for H = round(ab / 2^L) and lo = ab - H 2^L, as kSums says.
template <int N, int L, ProductSums kSums>
SNARKD_FP64_HD void limb_product(double a, double b, ColumnSums& low, ColumnSums& high) {
  using Rx = Radix<N, L>;
  double minus_h;  // -H 2^L, or with kLoBias added for integer lows
  if constexpr (kSums.chained_his) {
    const double acc = fma_rn(a, b, high.chained_his);
    minus_h = add_rn(high.chained_his, -acc);
    high.chained_his = acc;
    if constexpr (!kSums.float_lows)
      minus_h = add_rn(minus_h, Rx::kLoBias);  // exact: a multiple of 2^L below 2^(2L+2)
  } else {
    const double hi = fma_rn(a, b, Rx::kHiBias);
    high.int_sum += bits_of(hi) - Rx::kHiBiasBits;
    minus_h = add_rn(kSums.float_lows ? Rx::kHiBias : Rx::kHiLoBias, -hi);
  }
  const double lo = fma_rn(a, b, minus_h);
  if constexpr (kSums.float_lows) {
    low.float_lows = add_rn(low.float_lows, lo);
  } else {
    low.int_sum += bits_of(lo) - Rx::kLoBiasBits;
  }
}

template <int N, int L>
SNARKD_FP64_HD int64_t column_value(const ColumnSums& c, bool with_float, bool with_chained) {
  using Rx = Radix<N, L>;
  int64_t v = int64_t(c.int_sum);
  if (with_float) v += Rx::to_int(c.float_lows);
  if (with_chained) v += int64_t(bits_of(c.chained_his) - Rx::kHiBiasBits);
  return v;
}

// Signed integer columns c (value sum c_j 2^(jL), in [0, 2p)) to limbs in [0, 2^L) of the value
// mod p, as doubles: carry, then one conditional subtraction of p. Only the top limb may reach
// 2^L after the carries.
template <int N, int L>
SNARKD_FP64_HD void reduce_columns(int64_t (&c)[N], double (&r)[N], const Modulus<N, L>& mod) {
  using Rx = Radix<N, L>;
  SNARKD_FP64_UNROLL
  for (int j = 0; j + 1 < N; ++j) {
    c[j + 1] += c[j] >> L;
    c[j] &= int64_t(Rx::kMask);
  }
  int64_t d[N];
  int64_t borrow = 0;
  SNARKD_FP64_UNROLL
  for (int j = 0; j < N; ++j) {
    const int64_t x = c[j] - mod.limbs[j] + borrow;
    if (j + 1 < N) {
      d[j] = x & int64_t(Rx::kMask);
      borrow = x >> L;  // 0 or -1
    } else {
      d[j] = x;
      borrow = x >> 63;
    }
  }
  const bool keep = borrow != 0;  // c < p
  SNARKD_FP64_UNROLL
  for (int j = 0; j < N; ++j) r[j] = Rx::to_double(uint64_t(keep ? c[j] : d[j]));
}

// r = a b / 2^(N L) mod p, fully reduced, for a, b < p with limbs in [0, 2^L). r may alias a or b.
// CIOS by rows: row i adds a b_i, then m p with m = -t_0 p^-1 mod 2^L, which clears the lowest
// column, and drops it. The columns are never normalized inside the loop: each holds at most
// 4N terms below 2^L, far inside 64 bits.
template <int N, int L, Fp64Form kForm>
SNARKD_FP64_HD void mont_mul(const double (&a)[N], const double (&b)[N], double (&r)[N],
                             const Modulus<N, L>& mod) {
  using Rx = Radix<N, L>;
  constexpr ProductSums kAB = form_sums(kForm).ab, kMP = form_sums(kForm).mp;
  constexpr bool kFloat = kAB.float_lows || kMP.float_lows;
  constexpr bool kChained = kAB.chained_his || kMP.chained_his;
  // A column collects one low of a b and one of m p in each of the N rows it lives through.
  static_assert(Rx::float_lows_exact(N * (int(kAB.float_lows) + int(kMP.float_lows))),
                "float lows would round");
  // A chained column must stay in B's binade: its 2N his, each below 2^L, sum below 2^52.
  static_assert(!kChained || uint64_t(2 * N) * Rx::kMask < (uint64_t(1) << 52),
                "chained his would leave the binade");
  ColumnSums t[N + 1];
  SNARKD_FP64_UNROLL
  for (int j = 0; j <= N; ++j) t[j] = {0, 0.0, Rx::kHiBias};
  SNARKD_FP64_UNROLL
  for (int i = 0; i < N; ++i) {
    SNARKD_FP64_UNROLL
    for (int j = 0; j < N; ++j) limb_product<N, L, kAB>(a[j], b[i], t[j], t[j + 1]);
    const int64_t low = column_value<N, L>(t[0], kFloat, kChained);
    const uint64_t m = (uint64_t(low) * mod.inv) & Rx::kMask;
    const double md = Rx::to_double(m);
    SNARKD_FP64_UNROLL
    for (int j = 0; j < N; ++j) limb_product<N, L, kMP>(md, mod.p[j], t[j], t[j + 1]);
    const int64_t cleared = column_value<N, L>(t[0], kFloat, kChained);  // a multiple of 2^L now
    SNARKD_FP64_UNROLL
    for (int j = 0; j < N; ++j) t[j] = t[j + 1];
    t[0].int_sum += uint64_t(cleared >> L);
    t[N] = {0, 0.0, Rx::kHiBias};
  }
  int64_t c[N];
  SNARKD_FP64_UNROLL
  for (int j = 0; j < N; ++j) c[j] = column_value<N, L>(t[j], kFloat, kChained);
  reduce_columns<N, L>(c, r, mod);
}

// a + b mod p and a - b mod p, for a, b < p with limbs in [0, 2^L): the limbs are added or
// subtracted in doubles (exact), then carried and reduced as integers.
template <int N, int L>
SNARKD_FP64_HD void add_mod(const double (&a)[N], const double (&b)[N], double (&r)[N],
                            const Modulus<N, L>& mod) {
  int64_t c[N];
  SNARKD_FP64_UNROLL
  for (int j = 0; j < N; ++j) c[j] = Radix<N, L>::to_int_unsigned(add_rn(a[j], b[j]));
  reduce_columns<N, L>(c, r, mod);
}
template <int N, int L>
SNARKD_FP64_HD void sub_mod(const double (&a)[N], const double (&b)[N], double (&r)[N],
                            const Modulus<N, L>& mod) {
  int64_t c[N];  // a - b + p, in (0, 2p)
  SNARKD_FP64_UNROLL
  for (int j = 0; j < N; ++j) c[j] = Radix<N, L>::to_int(add_rn(a[j], -b[j])) + mod.limbs[j];
  reduce_columns<N, L>(c, r, mod);
}

// Host conversions between the L-bit limbs and 64-bit words (tests and benchmarks).
template <int N, int L, size_t K>
void to_limbs(const std::array<uint64_t, K>& words, double (&out)[N]) {
  for (int j = 0; j < N; ++j) out[j] = double(limb_of(words, j, L));
}
template <int N, int L, size_t K>
std::array<uint64_t, K> from_limbs(const double (&in)[N]) {
  std::array<uint64_t, K> words{};
  for (int j = 0; j < N; ++j) {
    const uint64_t limb = uint64_t(in[j]);
    for (int bit = 0; bit < L; ++bit) {
      const size_t pos = size_t(j) * L + size_t(bit);
      if (((limb >> bit) & 1) && pos < 64 * K) words[pos / 64] |= uint64_t(1) << (pos % 64);
    }
  }
  return words;
}

}  // namespace snarkd::gpu::fp64
