// snarkd/gpu: prime-field arithmetic on the device, generic over the same parameter structs as
// ff::Fp<P>.
//
// Elements are N = 2 * P::kLimbs 32-bit limbs in Montgomery form with the same R = 2^(64 *
// P::kLimbs) as the CPU, so host ff::Fp<P> arrays copy to the device bit for bit. The modulus and
// -p^-1 mod 2^32 live in constant memory (one copy per translation unit), derived from P by
// constexpr code. Multiplication is CIOS with PTX carry chains; the portable 64-bit-accumulator
// version stays as its reference (tests and docs/perf.md compare the two).
#pragma once

#include <cstdint>

#include "ff/fp.h"
#include "ff/tower.h"
#include "gpu/mont_ptx.inc"

namespace snarkd::gpu {

template <class P>
struct FieldConstants {
  static constexpr int N = 2 * int(P::kLimbs);
  uint32_t modulus[N];
  uint32_t one[N];  // R mod p
  uint32_t modulus_minus_two[N];  // the Fermat inversion exponent
  uint32_t inv;     // -p^-1 mod 2^32
  static constexpr int kSpareBits = 64 * int(P::kLimbs) - int(ff::Fp<P>::kModulusBits);
};

template <class P>
constexpr FieldConstants<P> make_field_constants() {
  FieldConstants<P> c{};
  using H = ff::Fp<P>;
  for (int i = 0; i < FieldConstants<P>::N; ++i) {
    c.modulus[i] = uint32_t(H::kModulus[size_t(i) / 2] >> (32 * (i % 2)));
    c.one[i] = uint32_t(H::kR[size_t(i) / 2] >> (32 * (i % 2)));
    c.modulus_minus_two[i] = uint32_t(H::kModulusMinusTwo[size_t(i) / 2] >> (32 * (i % 2)));
  }
  c.inv = uint32_t(H::kInv);  // -p^-1 mod 2^64, reduced mod 2^32
  return c;
}

// Each field's constants: specialised in field_constants.cuh for the four fields.
template <class P>
struct DeviceConstants;

// Two forms of the Montgomery multiplication with the same result (gpu_bench field compares
// them): rows keep one accumulator, split keeps two (see mul_split). Which is faster depends on
// the kernel's register pressure, so a kernel picks it through the type of its registers;
// elements of any form share one layout and convert with as<Form>(). The out-of-line forms
// call one copy of the same code instead of inlining it: a BLS12-381 Fp product is about 24 KB
// of SASS, so an inlined XYZZ addition is about 250 KB, more than an SM's instruction cache.
// The MSM kernels use them (1.17x to 1.37x faster accumulation on the H200, docs/perf.md,
// "instruction fetch").
// The wide forms use the 64-bit-accumulator CIOS (mul_wide_n), which compiles to half the
// instructions of the PTX chains; out of line, kWideOutOfLine makes the point formulas' products
// in pairs (mul_pair) and kWideSingleOutOfLine one at a time.
enum class MulForm { kRows, kSplit, kRowsOutOfLine, kSplitOutOfLine, kWide, kWideOutOfLine, kWideSingleOutOfLine };


// Two results of one call (mul_pair, square_pair).
template <class F>
struct FieldPair {
  F first, second;
};
// The pair as two separate products: mul_pair of the types and forms without a paired call.
template <class F>
__device__ __forceinline__ FieldPair<F> separate_products(const F& a, const F& b, const F& c, const F& d) {
  return {a * b, c * d};
}

template <class P, MulForm kForm = MulForm::kRows>
struct DevFp {
  static constexpr int N = FieldConstants<P>::N;
  uint32_t v[N];
  // Host and device elements share one layout, so buffers are copied without conversion.
  static_assert(sizeof(uint32_t) * N == sizeof(ff::Fp<P>), "host/device field layouts differ");

  __device__ __forceinline__ static const FieldConstants<P>& k() {
    return DeviceConstants<P>::get();
  }
  static constexpr bool kOutOfLine = kForm == MulForm::kRowsOutOfLine || kForm == MulForm::kSplitOutOfLine ||
                                     kForm == MulForm::kWideOutOfLine || kForm == MulForm::kWideSingleOutOfLine;
  // How far the products' row loops unroll: fully. Rolled out-of-line loops (about 210 SASS
  // instructions a 12-limb product instead of 1,950) executed 7-13% more instructions and lost
  // (docs/perf.md, "Rolled row loops").
  static constexpr int kRowUnroll = N;
  // The words of K multipliers, read in order by a row loop that may stay rolled: the loop takes
  // word 0 and shifts the rest down (an indexed register array would live in local memory).
  template <int K>
  struct RowWords {
    uint32_t w[K][N];
    __device__ __forceinline__ explicit RowWords(const DevFp (&b)[K]) {
#pragma unroll
      for (int q = 0; q < K; ++q) {
#pragma unroll
        for (int i = 0; i < N; ++i) w[q][i] = b[q].v[i];
      }
    }
    __device__ __forceinline__ void shift() {
#pragma unroll
      for (int q = 0; q < K; ++q) {
#pragma unroll
        for (int i = 0; i + 1 < N; ++i) w[q][i] = w[q][i + 1];
      }
    }
  };
  __device__ __forceinline__ static DevFp zero() {
    DevFp r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  __device__ __forceinline__ static DevFp one() {
    DevFp r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = k().one[i];
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  __device__ __forceinline__ friend bool operator==(const DevFp& a, const DevFp& b) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }

  // x in [0, 2p) -> [0, p)
  __device__ __forceinline__ static void reduce_once(uint32_t* x) {
    uint32_t t[N];
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t d = uint64_t(x[i]) - k().modulus[i] - borrow;
      t[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    // borrow = 1: x < p, keep x.
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = borrow ? x[i] : t[i];
  }

  __device__ __forceinline__ friend DevFp operator+(const DevFp& a, const DevFp& b) {
    DevFp r;
    uint64_t carry = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t s = uint64_t(a.v[i]) + b.v[i] + carry;
      r.v[i] = uint32_t(s);
      carry = s >> 32;
    }
    reduce_once(r.v);  // the spare top bit means no carry out
    return r;
  }
  __device__ __forceinline__ friend DevFp operator-(const DevFp& a, const DevFp& b) {
    DevFp r;
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t d = uint64_t(a.v[i]) - b.v[i] - borrow;
      r.v[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    if (borrow) {
      uint64_t carry = 0;
#pragma unroll
      for (int i = 0; i < N; ++i) {
        uint64_t s = uint64_t(r.v[i]) + k().modulus[i] + carry;
        r.v[i] = uint32_t(s);
        carry = s >> 32;
      }
    }
    return r;
  }

  // r[q] = t[q] reduced from [0, 2p) to [0, p): the end of a one-accumulator product.
  template <int K>
  __device__ __forceinline__ static void store_reduced(const uint32_t (&t)[K][N + 1], DevFp (&r)[K]) {
#pragma unroll
    for (int q = 0; q < K; ++q) {
#pragma unroll
      for (int i = 0; i < N; ++i) r[q].v[i] = t[q][i];
      reduce_once(r[q].v);
    }
  }

  // Portable CIOS Montgomery multiplication with 64-bit accumulators (no-final-carry variant:
  // the modulus has spare top bits), K independent products with interleaved rows. nvcc turns
  // each step into one 32x32+64-bit multiply-add (IMAD.WIDE) and its carry arithmetic: about
  // 930 SASS instructions for 12 limbs against about 2,000 for the PTX chains below, which
  // ptxas expands (static sizes from the cubin's symbol table, docs/perf.md, "product forms").
  template <int K>
  __device__ __forceinline__ static void mul_wide_n(const DevFp (&a)[K], const DevFp (&b)[K],
                                                    DevFp (&r)[K]) {
    static_assert(FieldConstants<P>::kSpareBits >= 1, "the no-final-carry CIOS needs a spare top bit");
    uint32_t t[K][N + 1];
#pragma unroll
    for (int q = 0; q < K; ++q) {
#pragma unroll
      for (int i = 0; i <= N; ++i) t[q][i] = 0;
    }
    RowWords<K> words(b);
#pragma unroll kRowUnroll
    for (int i = 0; i < N; ++i) {
#pragma unroll
      for (int q = 0; q < K; ++q) {
        uint64_t carry = 0;
#pragma unroll
        for (int j = 0; j < N; ++j) {
          uint64_t s = uint64_t(a[q].v[j]) * words.w[q][0] + t[q][j] + carry;
          t[q][j] = uint32_t(s);
          carry = s >> 32;
        }
        t[q][N] = uint32_t(carry);
      }
#pragma unroll
      for (int q = 0; q < K; ++q) {
        uint32_t m = t[q][0] * k().inv;
        uint64_t s = uint64_t(m) * k().modulus[0] + t[q][0];
        uint64_t carry = s >> 32;
#pragma unroll
        for (int j = 1; j < N; ++j) {
          s = uint64_t(m) * k().modulus[j] + t[q][j] + carry;
          t[q][j - 1] = uint32_t(s);
          carry = s >> 32;
        }
        t[q][N - 1] = t[q][N] + uint32_t(carry);
      }
      words.shift();
    }
    store_reduced(t, r);
  }
  // The one-product case: the reference the PTX forms are tested and benchmarked against.
  __device__ __forceinline__ static DevFp mul_portable(const DevFp& a, const DevFp& b) {
    DevFp x[1] = {a}, y[1] = {b}, r[1];
    mul_wide_n<1>(x, y, r);
    return r[0];
  }

  // CIOS with PTX carry chains (src/gpu/mont_ptx.inc), one accumulator: per row, one mad.lo and
  // one mad.hi chain for a * b_i and the same for m * p, with no separate carry arithmetic.
  // r[k] = a[k] * b[k] for K independent products whose rows interleave: each chain is one
  // dependency path, so K > 1 gives the scheduler K paths to overlap.
  template <int K>
  __device__ __forceinline__ static void mul_rows_n(const DevFp (&a)[K], const DevFp (&b)[K],
                                                    DevFp (&r)[K]) {
    static_assert(N == 8 || N == 12, "PTX rows exist for 8 and 12 limbs");
    static_assert(FieldConstants<P>::kSpareBits >= 1, "the chains need a spare top bit");
    uint32_t t[K][N + 1];
    uint32_t p[N];
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = k().modulus[i];
#pragma unroll
    for (int q = 0; q < K; ++q) {
#pragma unroll
      for (int i = 0; i <= N; ++i) t[q][i] = 0;
    }
    RowWords<K> words(b);
#pragma unroll kRowUnroll
    for (int i = 0; i < N; ++i) {
#pragma unroll
      for (int q = 0; q < K; ++q) {
        if constexpr (N == 8) {
          ptx::mont_row_mul_8(t[q], a[q].v, words.w[q][0]);
        } else {
          ptx::mont_row_mul_12(t[q], a[q].v, words.w[q][0]);
        }
      }
#pragma unroll
      for (int q = 0; q < K; ++q) {
        if constexpr (N == 8) {
          ptx::mont_row_reduce_8(t[q], p, k().inv);
        } else {
          ptx::mont_row_reduce_12(t[q], p, k().inv);
        }
#pragma unroll
        for (int j = 0; j < N; ++j) t[q][j] = t[q][j + 1];  // t[0] is zero: divide by 2^32
      }
      words.shift();
    }
    store_reduced(t, r);
  }
  __device__ __forceinline__ static DevFp mul_rows(const DevFp& a, const DevFp& b) {
    DevFp x[1] = {a}, y[1] = {b}, r[1];
    mul_rows_n<1>(x, y, r);
    return r[0];
  }

  // CIOS with two accumulators, T = L + H (tools/gen_mont_ptx.py derives it and checks the
  // emitted chains in an interpreter): low halves of the products go into L, high halves into H,
  // so the four chains of a row depend on each other only through L[0] and can overlap instead
  // of forming one dependency path. H's lowest limb is folded into L[0] at the start of each row.
  // K independent products interleave as in mul_rows_n.
  template <int K>
  __device__ __forceinline__ static void mul_split_n(const DevFp (&a)[K], const DevFp (&b)[K],
                                                     DevFp (&r)[K]) {
    static_assert(N == 8 || N == 12, "PTX chains exist for 8 and 12 limbs");
    static_assert(FieldConstants<P>::kSpareBits >= 1, "the chains need a spare top bit");
    uint32_t l[K][N + 1], h[K][N + 1];
    uint32_t p[N];
#pragma unroll
    for (int i = 0; i < N; ++i) p[i] = k().modulus[i];
#pragma unroll
    for (int q = 0; q < K; ++q) {
#pragma unroll
      for (int i = 0; i <= N; ++i) l[q][i] = h[q][i] = 0;
    }
    RowWords<K> words(b);
#pragma unroll kRowUnroll
    for (int i = 0; i < N; ++i) {
#pragma unroll
      for (int q = 0; q < K; ++q) {
        uint32_t m;
        const uint32_t bi = words.w[q][0];
        if constexpr (N == 8) {
          ptx::mont_split_hi_inject_8(l[q][0], h[q], a[q].v, bi);
          ptx::mont_split_lo_8(l[q], a[q].v, bi);
          m = l[q][0] * k().inv;
          ptx::mont_split_lo_8(l[q], p, m);
          ptx::mont_split_hi_8(h[q], p, m);
        } else {
          ptx::mont_split_hi_inject_12(l[q][0], h[q], a[q].v, bi);
          ptx::mont_split_lo_12(l[q], a[q].v, bi);
          m = l[q][0] * k().inv;
          ptx::mont_split_lo_12(l[q], p, m);
          ptx::mont_split_hi_12(h[q], p, m);
        }
#pragma unroll
        for (int j = 0; j < N; ++j) {  // l[0] is zero: divide both by 2^32
          l[q][j] = l[q][j + 1];
          h[q][j] = h[q][j + 1];
        }
        l[q][N] = h[q][N] = 0;
      }
      words.shift();
    }
#pragma unroll
    for (int q = 0; q < K; ++q) {
      if constexpr (N == 8) {
        ptx::mont_split_sum_8(r[q].v, l[q], h[q]);
      } else {
        ptx::mont_split_sum_12(r[q].v, l[q], h[q]);
      }
      reduce_once(r[q].v);
    }
  }
  __device__ __forceinline__ static DevFp mul_split(const DevFp& a, const DevFp& b) {
    DevFp x[1] = {a}, y[1] = {b}, r[1];
    mul_split_n<1>(x, y, r);
    return r[0];
  }

  // By value: a reference parameter would put the operands in local memory.
  __device__ __noinline__ static DevFp mul_out_of_line(DevFp a, DevFp b) {
    if constexpr (kForm == MulForm::kSplitOutOfLine) {
      return mul_split(a, b);
    } else if constexpr (kForm == MulForm::kWideOutOfLine || kForm == MulForm::kWideSingleOutOfLine) {
      return mul_portable(a, b);
    } else {
      return mul_rows(a, b);
    }
  }
  // Two products in one call, their chains interleaved: an out-of-line product is one long
  // dependency path, which left the MSM accumulation latency-bound (ncu: an issue every 7.5
  // cycles a warp, 1.05 eligible warps a scheduler).
  __device__ __noinline__ static FieldPair<DevFp> mul_pair_out_of_line(DevFp a, DevFp b, DevFp c,
                                                                       DevFp d) {
    DevFp x[2] = {a, c}, y[2] = {b, d}, r[2];
    if constexpr (kForm == MulForm::kSplitOutOfLine) {
      mul_split_n<2>(x, y, r);
    } else if constexpr (kForm == MulForm::kWideOutOfLine) {
      mul_wide_n<2>(x, y, r);
    } else {
      mul_rows_n<2>(x, y, r);
    }
    return {r[0], r[1]};
  }

  __device__ __forceinline__ friend DevFp operator*(const DevFp& a, const DevFp& b) {
    if constexpr (kForm == MulForm::kSplit) {
      return mul_split(a, b);
    } else if constexpr (kForm == MulForm::kRows) {
      return mul_rows(a, b);
    } else if constexpr (kForm == MulForm::kWide) {
      return mul_portable(a, b);
    } else {
      return mul_out_of_line(a, b);
    }
  }
  static constexpr bool kPairedProducts = kForm == MulForm::kSplitOutOfLine || kForm == MulForm::kWideOutOfLine;
  // {a * b, c * d}. The inlined forms interleave two products by themselves. Of the out-of-line
  // forms split and kWideOutOfLine pair (rows do not): measured at
  // 2^24 on the H200 (docs/perf.md, "paired products" and "product forms measured"), pairs made
  // the split kernels' accumulation faster (BN254 G1 1.03x, BLS12-381 G2 1.06x) and the rows
  // kernels' slower (BLS12-381 G1 1.66x slower: 536 bytes of stack under its 128-register cap;
  // BN254 G2 1.13x slower); wide pairs made BLS12-381 G1 accumulation 1.32x faster and
  // BLS12-381 G2 1.06x slower (msm_form picks per kernel).
  __device__ __forceinline__ static FieldPair<DevFp> mul_pair(const DevFp& a, const DevFp& b,
                                                              const DevFp& c, const DevFp& d) {
    if constexpr (kPairedProducts) {
      return mul_pair_out_of_line(a, b, c, d);
    } else {
      return separate_products(a, b, c, d);
    }
  }
  __device__ __forceinline__ static FieldPair<DevFp> square_pair(const DevFp& a, const DevFp& b) {
    return mul_pair(a, a, b, b);
  }

  template <MulForm kTo>
  __device__ __forceinline__ DevFp<P, kTo> as() const {
    DevFp<P, kTo> r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = v[i];
    return r;
  }

  __device__ __forceinline__ DevFp square() const { return *this * *this; }
  __device__ __forceinline__ DevFp dbl() const { return *this + *this; }
  // x / 2 (the device twin of ff::Fp::halve): x + p when x is odd, then a shift. The moduli have
  // spare top bits, so the sum does not carry out.
  __device__ __forceinline__ DevFp halve() const {
    const uint32_t odd = v[0] & 1;
    uint32_t t[N];
    uint64_t carry = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const uint64_t s = uint64_t(v[i]) + (odd ? k().modulus[i] : 0u) + carry;
      t[i] = uint32_t(s);
      carry = s >> 32;
    }
    DevFp r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = (t[i] >> 1) | (i + 1 < N ? t[i + 1] << 31 : 0u);
    return r;
  }

  // a^(p-2) by left-to-right square-and-multiply over the modulus bits (about 1.5 log p
  // multiplications); zero maps to zero. Used off the hot paths (precomputation, to_affine).
  __device__ __noinline__ DevFp inverse() const {
    DevFp r = one();
    bool started = false;
    for (int i = N - 1; i >= 0; --i) {
      uint32_t e = k().modulus_minus_two[i];  // not modulus[i] - 2: BLS12-381 r ends in word 1
      for (int bit = 31; bit >= 0; --bit) {
        if (started) r = r.square();
        if ((e >> bit) & 1) {
          r = started ? r * *this : *this;
          started = true;
        }
      }
    }
    return r;
  }
  __device__ __forceinline__ DevFp& operator*=(const DevFp& b) { return *this = *this * b; }
  __device__ __forceinline__ DevFp& operator+=(const DevFp& b) { return *this = *this + b; }
};

// Fp2 = Fp[u] / (u^2 + 1), the quadratic extension of both BLS12-381 and BN254 (the same layout
// as ff::Fp2: c0 then c1).
template <class P, MulForm kForm = MulForm::kRows>
struct DevFp2 {
  using Base = DevFp<P, kForm>;
  Base c0, c1;
  __device__ __forceinline__ static DevFp2 zero() { return {Base::zero(), Base::zero()}; }
  __device__ __forceinline__ static DevFp2 one() { return {Base::one(), Base::zero()}; }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ friend bool operator==(const DevFp2& a, const DevFp2& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }
  __device__ __forceinline__ friend DevFp2 operator+(const DevFp2& a, const DevFp2& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  __device__ __forceinline__ friend DevFp2 operator-(const DevFp2& a, const DevFp2& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  // Karatsuba: three base multiplications.
  __device__ __forceinline__ friend DevFp2 operator*(const DevFp2& a, const DevFp2& b) {
    Base t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    Base t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  __device__ __forceinline__ DevFp2 square() const {
    Base t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t + t};
  }
  __device__ __forceinline__ DevFp2 dbl() const { return *this + *this; }
  static constexpr bool kPairedProducts = false;
  __device__ __forceinline__ static FieldPair<DevFp2> mul_pair(const DevFp2& a, const DevFp2& b,
                                                               const DevFp2& c, const DevFp2& d) {
    return separate_products(a, b, c, d);
  }
  __device__ __forceinline__ static FieldPair<DevFp2> square_pair(const DevFp2& a, const DevFp2& b) {
    return {a.square(), b.square()};
  }
  __device__ __noinline__ DevFp2 inverse() const {
    Base inv_norm = (c0 * c0 + c1 * c1).inverse();
    return {c0 * inv_norm, Base::zero() - c1 * inv_norm};
  }
};

// One lane's half of an Fp2 element. Two adjacent lanes (2k, 2k + 1 of a block whose size is
// even) hold c0 and c1 of the same value and run the same code: additions are per half, a
// product costs each lane two base multiplications after swapping halves with a shuffle, and a
// pair of products three (mul_pair, by Karatsuba). An Fp2 XYZZ accumulator (96 words) plus an
// affine point (48) does not fit one thread's 255 registers (BLS12-381 G2 accumulation spilled
// 1.8 KB a thread); split, each lane holds a G1-sized state.
// Both lanes of a pair must reach every operation together (pair-uniform control flow); the
// shuffles name only the pair, so other lanes of the warp may diverge. Base is any device field
// of Fp with limbs in an array v[N] (DevFp, or the FP64-pipe field of fp64_field.cuh).
template <class BaseField>
struct Fp2Lane {
  using Base = BaseField;
  static constexpr int N = Base::N;
  Base v;  // c0 on the even lane, c1 on the odd one

  __device__ __forceinline__ static uint32_t half() { return threadIdx.x & 1; }
  __device__ __forceinline__ static uint32_t pair_mask() { return 3u << (threadIdx.x & 30); }
  __device__ __forceinline__ static Base other_half(const Base& x) {
    Base r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = __shfl_xor_sync(pair_mask(), x.v[i], 1);
    return r;
  }
  // Both lanes must run the shuffle: no short-circuit before it (a lane that skipped it left its
  // partner reading an absent lane, and G2 MSMs came out wrong and ten times slower).
  __device__ __forceinline__ static bool both(bool mine) {
    const int other = __shfl_xor_sync(pair_mask(), int(mine), 1);
    return mine && other != 0;
  }

  __device__ __forceinline__ static Fp2Lane zero() { return {Base::zero()}; }
  __device__ __forceinline__ static Fp2Lane one() {
    return {half() == 0 ? Base::one() : Base::zero()};
  }
  __device__ __forceinline__ bool is_zero() const { return both(v.is_zero()); }
  __device__ __forceinline__ friend bool operator==(const Fp2Lane& a, const Fp2Lane& b) {
    return both(a.v == b.v);
  }
  __device__ __forceinline__ friend Fp2Lane operator+(const Fp2Lane& a, const Fp2Lane& b) {
    return {a.v + b.v};
  }
  __device__ __forceinline__ friend Fp2Lane operator-(const Fp2Lane& a, const Fp2Lane& b) {
    return {a.v - b.v};
  }
  // Limb-wise select: a ternary on whole arrays would pick an address and put both in local
  // memory.
  __device__ __forceinline__ static Base select(bool c, const Base& x, const Base& y) {
    Base r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = c ? x.v[i] : y.v[i];
    return r;
  }
  // c0 = a0 b0 - a1 b1 on the even lane, c1 = a1 b0 + a0 b1 on the odd one: two independent
  // base products, made by one paired call.
  __device__ __forceinline__ friend Fp2Lane operator*(const Fp2Lane& a, const Fp2Lane& b) {
    const bool odd = half() != 0;
    Base a_other = other_half(a.v), b_other = other_half(b.v);
    auto [mine, cross] = Base::mul_pair(a.v, select(odd, b_other, b.v), a_other, select(odd, b.v, b_other));
    return {select(odd, mine + cross, mine - cross)};
  }
  // c0 = (a0 + a1)(a0 - a1), c1 = 2 a0 a1: one base multiplication a lane.
  __device__ __forceinline__ Fp2Lane square() const {
    const bool odd = half() != 0;
    Base other = other_half(v);
    return {select(odd, v + v, v + other) * select(odd, other, v - other)};
  }
  static constexpr bool kPairedProducts = Base::kPairedProducts;
  // {a b, c d} by Karatsuba over the pair: the six base products of two Fp2 products split three
  // a lane, against four a lane as two separate products, for two more shuffles of a base element
  // and two more additions (docs/perf.md: the Karatsuba lane product).
  __device__ __forceinline__ static FieldPair<Fp2Lane> mul_pair(const Fp2Lane& a, const Fp2Lane& b,
                                                                const Fp2Lane& c,
                                                                const Fp2Lane& d) {
    return karatsuba_pair(a, b, c, d);
  }
  // Even lane: r1 = a0 b0, r2 = a1 b1, r3 = (c0 + c1)(d0 + d1); odd lane: r1 = c1 d1, r2 = c0 d0,
  // r3 = (a0 + a1)(b0 + b1). Then (a b)_0 = r1 - r2 stays even, (c d)_0 = r2 - r1 comes from the
  // odd lane, (a b)_1 = r3 - (even r1 + r2) and (c d)_1 = even r3 - (r1 + r2) end on the odd one.
  __device__ __forceinline__ static FieldPair<Fp2Lane> karatsuba_pair(const Fp2Lane& a,
                                                                      const Fp2Lane& b,
                                                                      const Fp2Lane& c,
                                                                      const Fp2Lane& d) {
    const bool odd = half() != 0;
    const Base own_l = select(odd, c.v, a.v), own_r = select(odd, d.v, b.v);
    // What the partner multiplies second; added to what it sends back, its sum operands.
    const Base sent_l = select(odd, a.v, c.v), sent_r = select(odd, b.v, d.v);
    auto [r1, r2] = Base::mul_pair(own_l, own_r, other_half(sent_l), other_half(sent_r));
    const Base r3 = (other_half(own_l) + sent_l) * (other_half(own_r) + sent_r);
    const Base sum = r1 + r2;
    const Base diff = select(odd, r2, r1) - select(odd, r1, r2);
    const Base from_a = other_half(select(odd, diff, sum));  // even: (c d)_0; odd: even r1 + r2
    const Base from_b = other_half(r3);                      // odd: even r3
    return {{select(odd, r3 - from_a, diff)}, {select(odd, from_b - sum, from_a)}};
  }
  // Two squares, one base multiplication each, in one paired call.
  __device__ __forceinline__ static FieldPair<Fp2Lane> square_pair(const Fp2Lane& a,
                                                                   const Fp2Lane& b) {
    const bool odd = half() != 0;
    Base ao = other_half(a.v), bo = other_half(b.v);
    auto [x, y] = Base::mul_pair(select(odd, a.v + a.v, a.v + ao), select(odd, ao, a.v - ao),
                                 select(odd, b.v + b.v, b.v + bo), select(odd, bo, b.v - bo));
    return {{x}, {y}};
  }
  __device__ __forceinline__ Fp2Lane dbl() const { return {v + v}; }
};

// The device type of a host field: ff::Fp<P> -> DevFp<P>, ff::Fp2<T> -> DevFp2<base params>.
template <class H>
struct DeviceFieldOf;
template <class P>
struct DeviceFieldOf<ff::Fp<P>> {
  using type = DevFp<P>;
};
template <class T>
struct DeviceFieldOf<ff::Fp2<T>> {
  using type = DevFp2<typename T::Base::Params>;
};

}  // namespace snarkd::gpu
