// GPU suite (run on the GPU machine by scripts/gpu-check.sh, not in CI): device fields and NTT
// against the CPU code on fresh random inputs, including edge values.
#include "gpu/fp64_field.cuh"
#include "gpu_test_support.cuh"

namespace snarkd::gpu {
namespace {
using namespace testing_support;

template <class P>
__global__ void field_ops(const DevFp<P>* a, const DevFp<P>* b, DevFp<P>* mul, DevFp<P>* add,
                          DevFp<P>* sub, DevFp<P>* portable, DevFp<P>* split, DevFp<P>* inv,
                          DevFp<P>* pairs, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  // Paired and single products in the three out-of-line forms: pairs[7i..7i+6] = a b, b (a + b),
  // b^2, a^2 (rows, split), then a b, (a + b) a (wide pair), b a (wide single).
  using Rows = DevFp<P, MulForm::kRowsOutOfLine>;
  using Split = DevFp<P, MulForm::kSplitOutOfLine>;
  using Wide = DevFp<P, MulForm::kWideOutOfLine>;
  constexpr MulForm kWideSingle = MulForm::kWideSingleOutOfLine;
  constexpr MulForm kStored = MulForm::kRows;
  const Rows ra = a[i].template as<MulForm::kRowsOutOfLine>(), rb = b[i].template as<MulForm::kRowsOutOfLine>();
  const auto x = Rows::mul_pair(ra, rb, rb, ra + rb);
  const auto y = Split::square_pair(b[i].template as<MulForm::kSplitOutOfLine>(),
                                    a[i].template as<MulForm::kSplitOutOfLine>());
  const Wide wa = a[i].template as<MulForm::kWideOutOfLine>(), wb = b[i].template as<MulForm::kWideOutOfLine>();
  const auto z = Wide::mul_pair(wa, wb, wa + wb, wa);
  DevFp<P>* out = pairs + 7 * i;
  out[0] = x.first.template as<kStored>();
  out[1] = x.second.template as<kStored>();
  out[2] = y.first.template as<kStored>();
  out[3] = y.second.template as<kStored>();
  out[4] = z.first.template as<kStored>();
  out[5] = z.second.template as<kStored>();
  out[6] = (b[i].template as<kWideSingle>() * a[i].template as<kWideSingle>()).template as<kStored>();
  mul[i] = a[i] * b[i];
  add[i] = a[i] + b[i];
  sub[i] = a[i] - b[i];
  portable[i] = DevFp<P>::mul_portable(a[i], b[i]);
  split[i] = DevFp<P>::mul_split(a[i], b[i]);
  if (i < 4096) inv[i] = a[i].inverse();
}

template <class P>
class GpuFieldTest : public ::testing::Test {};
using Params = ::testing::Types<ff::bls12_381::FqParams, ff::bls12_381::FrParams,
                                ff::bn254::FqParams, ff::bn254::FrParams>;
TYPED_TEST_SUITE(GpuFieldTest, Params);

// Every multiplication form (rows, split, wide; inlined, out of line, paired), add, sub and
// inversion against ff::Fp on the CPU.
TYPED_TEST(GpuFieldTest, MatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = ff::Fp<TypeParam>;
  using D = DevFp<TypeParam>;
  SEED_TRACE();
  std::mt19937_64 rng(seed());
  const size_t n = 1 << 20;
  std::vector<H> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = H::random(rng);
    b[i] = H::random(rng);
  }
  // Edge values: 0, 1, p-1 (squared: the largest product), equal operands.
  a[0] = H::zero();
  b[1] = H::one();
  a[2] = -H::one();
  b[2] = -H::one();
  a[3] = b[3];
  a[4] = H::one();
  DeviceBuffer<D> da(n), db(n), dm(n), dadd(n), dsub(n), dport(n), dsplit(n), dinv(4096),
      dpairs(7 * n);
  da.upload(a);
  db.upload(b);
  field_ops<TypeParam><<<uint32_t((n + 255) / 256), 256>>>(da.ptr, db.ptr, dm.ptr, dadd.ptr,
                                                           dsub.ptr, dport.ptr, dsplit.ptr,
                                                           dinv.ptr, dpairs.ptr, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto m = dm.template download<H>();
  auto s = dadd.template download<H>();
  auto d = dsub.template download<H>();
  auto pm = dport.template download<H>();
  auto sm = dsplit.template download<H>();
  auto inv = dinv.template download<H>();
  auto pairs = dpairs.template download<H>();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    H want = a[i] * b[i];
    bad += !(m[i] == want) + !(pm[i] == want) + !(sm[i] == want) + !(s[i] == a[i] + b[i]) +
           !(d[i] == a[i] - b[i]);
    const H* p = &pairs[7 * i];
    bad += !(p[0] == want) + !(p[1] == b[i] * (a[i] + b[i])) + !(p[2] == b[i] * b[i]) + !(p[3] == a[i] * a[i]);
    bad += !(p[4] == want) + !(p[5] == (a[i] + b[i]) * a[i]) + !(p[6] == want);
  }
  for (size_t i = 0; i < 4096; ++i) bad += !(inv[i] == a[i].inverse());
  EXPECT_EQ(bad, 0u);
}

// The FP64-pipe product (src/gpu/fp64_mont.h, an experiment the kernels do not use yet) on the
// device, against ff::Fp's product: with R' = 2^(N L) the result is a b R / R' in the CPU's
// Montgomery form, so 8 x 48 bits (R' = R) give the CPU product and 5 x 51 bits twice it.
template <int N>
struct Fp64Elem {
  double v[N];
};
template <int N, int L, fp64::Fp64Form kForm>
__global__ void fp64_products(const Fp64Elem<N>* a, const Fp64Elem<N>* b, Fp64Elem<N>* out,
                              size_t n, const fp64::Modulus<N, L> mod) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  fp64::mont_mul<N, L, kForm>(a[i].v, b[i].v, out[i].v, mod);
}

// Random operand pairs for the FP64 checks, with edge values: (p - 1)^2, 0 * b, a * 1, a * a.
template <class H>
std::pair<std::vector<H>, std::vector<H>> fp64_operands(size_t n) {
  std::mt19937_64 rng(seed());
  std::vector<H> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = H::random(rng);
    b[i] = H::random(rng);
  }
  a[0] = -H::one();
  b[0] = -H::one();
  a[1] = H::zero();
  b[2] = H::one();
  b[3] = a[3];
  return {std::move(a), std::move(b)};
}

template <class P, int N, int L, fp64::Fp64Form kForm>
void check_fp64_products() {
  using H = ff::Fp<P>;
  using E = Fp64Elem<N>;
  SEED_TRACE();
  SCOPED_TRACE(fp64::form_name(kForm));
  const size_t n = 1 << 18;
  const auto [a, b] = fp64_operands<H>(n);
  std::vector<E> ea(n), eb(n);
  for (size_t i = 0; i < n; ++i) {
    fp64::to_limbs<N, L>(a[i].montgomery().limbs, ea[i].v);
    fp64::to_limbs<N, L>(b[i].montgomery().limbs, eb[i].v);
  }
  DeviceBuffer<E> da(n), db(n), dout(n);
  da.upload(ea);
  db.upload(eb);
  fp64_products<N, L, kForm><<<uint32_t((n + 255) / 256), 256>>>(da.ptr, db.ptr, dout.ptr, n,
                                                                 fp64::make_modulus<P, N, L>());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto got = dout.template download<E>();
  constexpr bool kSameR = size_t(N) * L == 64 * H::kLimbs;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const H product = a[i] * b[i];
    const H want = kSameR ? product : product + product;  // R' = R / 2 for 5 x 51 bits
    bad += fp64::from_limbs<N, L, H::kLimbs>(got[i].v) != want.montgomery().limbs;
  }
  EXPECT_EQ(bad, 0u);
}

// The device field built on it (fp64_field.cuh, the MSM kernels' field where point.cuh's switches
// put them), through the layout conversions: out[5i..5i+4] = a b, a + b, a - b, a; and a / 2 on
// the integer field (DevFp::halve, which the 5 x 51 conversions use).
template <class P, fp64::Fp64Form kForm, bool kOutOfLine>
__global__ void fp64_field_ops(const DevFp<P>* a, const DevFp<P>* b, DevFp<P>* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const auto x = to_fp64<P, kForm, kOutOfLine>(a[i]), y = to_fp64<P, kForm, kOutOfLine>(b[i]);
  out[5 * i] = from_fp64(x * y);
  out[5 * i + 1] = from_fp64(x + y);
  out[5 * i + 2] = from_fp64(x - y);
  out[5 * i + 3] = from_fp64(x);
  out[5 * i + 4] = a[i].halve();
}

template <class P, fp64::Fp64Form kForm, bool kOutOfLine>
void check_fp64_field() {
  using H = ff::Fp<P>;
  using D = DevFp<P>;
  SEED_TRACE();
  SCOPED_TRACE(fp64::form_name(kForm));
  const size_t n = 1 << 16;
  const auto [a, b] = fp64_operands<H>(n);
  DeviceBuffer<D> da(n), db(n), dout(5 * n);
  da.upload(a);
  db.upload(b);
  fp64_field_ops<P, kForm, kOutOfLine>
      <<<uint32_t((n + 255) / 256), 256>>>(da.ptr, db.ptr, dout.ptr, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto got = dout.template download<H>();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += !(got[5 * i] == a[i] * b[i]) + !(got[5 * i + 1] == a[i] + b[i]) +
           !(got[5 * i + 2] == a[i] - b[i]) + !(got[5 * i + 3] == a[i]) +
           !(got[5 * i + 4] == a[i].halve());
  }
  EXPECT_EQ(bad, 0u);
}

TEST(GpuFp64Test, FieldMatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using Fq381 = ff::bls12_381::FqParams;
  check_fp64_field<Fq381, fp64::Fp64Form::kChainedMixed, true>();
  check_fp64_field<Fq381, fp64::Fp64Form::kChainedFloat, true>();
  check_fp64_field<Fq381, fp64::Fp64Form::kIntegerSums, false>();
  // 5 x 51 bits: R' = R / 2, so the conversions halve and double.
  check_fp64_field<ff::bn254::FqParams, fp64::Fp64Form::kIntegerSums, true>();
}

TEST(GpuFp64Test, ProductsMatchCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using fp64::Fp64Form;
  using Fq381 = ff::bls12_381::FqParams;
  check_fp64_products<Fq381, 8, 48, Fp64Form::kIntegerSums>();
  check_fp64_products<Fq381, 8, 48, Fp64Form::kFloatLows>();
  check_fp64_products<Fq381, 8, 48, Fp64Form::kMixedLows>();
  check_fp64_products<Fq381, 8, 48, Fp64Form::kChainedFloat>();
  check_fp64_products<Fq381, 8, 48, Fp64Form::kChainedMixed>();
  check_fp64_products<Fq381, 8, 48, Fp64Form::kChainedIntegerLows>();
  check_fp64_products<ff::bls12_381::FrParams, 5, 51, Fp64Form::kIntegerSums>();
  check_fp64_products<ff::bn254::FqParams, 5, 51, Fp64Form::kIntegerSums>();
  check_fp64_products<ff::bn254::FrParams, 5, 51, Fp64Form::kIntegerSums>();
}

template <class P>
__global__ void fp2_ops(const DevFp2<P>* a, const DevFp2<P>* b, DevFp2<P>* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  out[4 * i] = a[i] * b[i];
  out[4 * i + 1] = a[i].square();
  out[4 * i + 2] = a[i] - b[i] + a[i].dbl();
  out[4 * i + 3] = i < 1024 ? a[i].inverse() : DevFp2<P>::zero();
}

// Pair (2i, 2i + 1) of lanes holds element i split into halves (Fp2Lane, on the integer or the
// FP64 field as Lanes says); odd i take a diverged path first, so the pair-only shuffles are
// exercised with the rest of the warp elsewhere.
template <class P, class Lanes>
__global__ void fp2_lane_ops(const DevFp2<P>* a, const DevFp2<P>* b, DevFp2<P>* out, size_t n) {
  using L = typename Lanes::Reg;
  size_t i = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 2;
  if (i >= n) return;
  L x = Lanes::half_of(a[i]), y = Lanes::half_of(b[i]);
  if (i % 2) x = x + L::zero();  // a diverged branch, pair-uniform
  L prod = x * y, sq = x.square();
  // The paired forms: mix = (x - y) 2x + 1 when they agree with the single ones (the second
  // product's operands differ from the first's, so a swapped or mixed-up result shows).
  const auto squares = L::square_pair(x, y);
  const L w = x + y;
  const auto products = L::mul_pair(x, y, y, w);
  L mix = (x - y) * x.dbl() + L::one() + (squares.first - sq) + (squares.second - y * y) +
          (products.first - prod) + (products.second - y * w);
  // Karatsuba over the pair, whichever form mul_pair uses in this build.
  const auto karatsuba = L::karatsuba_pair(w, x, y, y);
  mix = mix + (karatsuba.first - w * x) + (karatsuba.second - y * y);
  const bool zero = x.is_zero(), same = x == y;
  Lanes::set_half(out[4 * i], prod);
  Lanes::set_half(out[4 * i + 1], sq);
  Lanes::set_half(out[4 * i + 2], mix);
  // Each lane reports what it concluded: both must agree with the CPU.
  Lanes::set_half(out[4 * i + 3], L::zero());
  (threadIdx.x % 2 ? out[4 * i + 3].c1 : out[4 * i + 3].c0).v[0] = uint32_t(zero) | uint32_t(same) << 1;
}

template <class T>
class GpuFp2Test : public ::testing::Test {};
using Fp2Types = ::testing::Types<ff::bls12_381::Fq2, ff::bn254::Fq2>;
TYPED_TEST_SUITE(GpuFp2Test, Fp2Types);

TYPED_TEST(GpuFp2Test, MatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = TypeParam;
  using D = typename DeviceFieldOf<H>::type;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 10);
  const size_t n = 1 << 16;
  std::vector<H> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = H::random(rng);
    b[i] = H::random(rng);
  }
  a[0] = H::zero();
  b[1] = H::one();
  DeviceBuffer<D> da(n), db(n), dout(4 * n);
  da.upload(a);
  db.upload(b);
  fp2_ops<typename H::Base::Params><<<uint32_t((n + 255) / 256), 256>>>(da.ptr, db.ptr, dout.ptr, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto out = dout.template download<H>();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += !(out[4 * i] == a[i] * b[i]) + !(out[4 * i + 1] == a[i].square()) +
           !(out[4 * i + 2] == a[i] - b[i] + a[i].dbl());
    if (i < 1024) bad += !(out[4 * i + 3] == a[i].inverse());
  }
  EXPECT_EQ(bad, 0u);
}

template <class P>
class GpuNttTest : public ::testing::Test {};
using ScalarParams = ::testing::Types<ff::bls12_381::FrParams, ff::bn254::FrParams>;
TYPED_TEST_SUITE(GpuNttTest, ScalarParams);

template <class H>
void bit_reverse_host(std::vector<H>& v) {
  size_t n = v.size();
  uint32_t log_n = 0;
  while ((size_t(1) << log_n) < n) ++log_n;
  for (size_t i = 0; i < n; ++i) {
    size_t j = 0;
    for (uint32_t b = 0; b < log_n; ++b) j |= ((i >> b) & 1) << (log_n - 1 - b);
    if (i < j) std::swap(v[i], v[j]);
  }
}

// Every order combination of forward and inverse, and both coset directions, against the CPU,
// from 2^0 to 2^22 (single-pass, two-pass, three-pass plans; tiles of odd and even stage
// counts).
TYPED_TEST(GpuNttTest, AllOrdersMatchCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = ff::Fp<TypeParam>;
  using D = DevFp<TypeParam>;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 1);
  for (uint32_t log_n : {0u, 1u, 2u, 3u, 4u, 5u, 8u, 10u, 11u, 12u, 13u, 16u, 17u, 20u, 22u}) {
    H shift = H::random(rng);
    auto plan = DeviceNtt<TypeParam>::create(log_n, shift);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    auto domain = *poly::Domain<H>::create(log_n);
    const size_t n = domain.size();
    std::vector<H> x(n);
    for (auto& v : x) v = H::random(rng);
    x[0] = H::zero();
    auto evals = x;
    domain.ntt(evals);
    auto evals_rev = evals;
    bit_reverse_host(evals_rev);
    auto x_rev = x;
    bit_reverse_host(x_rev);
    DeviceBuffer<D> buf(n);
    using O = NttOrder;
    struct Case {
      O in, out;
      const std::vector<H>* input;
      const std::vector<H>* want;
    };
    for (Case c : {Case{O::kNatural, O::kNatural, &x, &evals}, Case{O::kNatural, O::kBitReversed, &x, &evals_rev},
                   Case{O::kBitReversed, O::kNatural, &x_rev, &evals},
                   Case{O::kBitReversed, O::kBitReversed, &x_rev, &evals_rev}}) {
      buf.upload(*c.input);
      ASSERT_TRUE(plan->forward(buf.ptr, c.in, c.out, nullptr).ok());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_TRUE(buf.template download<H>() == *c.want)
          << "forward " << int(c.in) << "->" << int(c.out) << ", n = 2^" << log_n;
      // The inverse maps the output back, in the mirrored orders.
      ASSERT_TRUE(plan->inverse(buf.ptr, c.out, c.in, nullptr).ok());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_TRUE(buf.template download<H>() == *c.input)
          << "inverse " << int(c.out) << "->" << int(c.in) << ", n = 2^" << log_n;
    }
    buf.upload(x);
    ASSERT_TRUE(plan->coset_forward(buf.ptr, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    auto cpu_coset = x;
    domain.coset_ntt(cpu_coset, shift);
    EXPECT_TRUE(buf.template download<H>() == cpu_coset) << "coset, n = 2^" << log_n;
    ASSERT_TRUE(plan->coset_inverse(buf.ptr, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(buf.template download<H>() == x) << "coset inverse, n = 2^" << log_n;
    // Coset scaling in bit-reversed order equals scaling then permuting.
    buf.upload(x_rev);
    ASSERT_TRUE(plan->scale_by_coset(buf.ptr, false, O::kBitReversed, nullptr).ok());
    ASSERT_TRUE(plan->forward(buf.ptr, O::kBitReversed, O::kNatural, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(buf.template download<H>() == cpu_coset) << "bit-reversed coset, n = 2^" << log_n;
  }
}

// The quotient step on the device, with the no-permutation pipeline (inverse to bit-reversed
// coefficients, coset scaling in that order, forward back to natural) against the CPU.
TYPED_TEST(GpuNttTest, SnarkjsQuotientMatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = ff::Fp<TypeParam>;
  using D = DevFp<TypeParam>;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 2);
  for (uint32_t log_n : {4u, 12u, 18u}) {
    H shift = poly::root_of_unity<H>(log_n + 1);
    auto plan = std::move(DeviceNtt<TypeParam>::create(log_n, shift).value());
    auto domain = *poly::Domain<H>::create(log_n);
    size_t n = domain.size();
    std::vector<H> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = H::random(rng);
      b[i] = H::random(rng);
      c[i] = a[i] * b[i];
    }
    DeviceBuffer<D> da(n), db(n), dc(n);
    da.upload(a);
    db.upload(b);
    dc.upload(c);
    D* buffers[3] = {da.ptr, db.ptr, dc.ptr};
    for (D* p : buffers) {
      ASSERT_TRUE(plan.inverse(p, NttOrder::kNatural, NttOrder::kBitReversed, nullptr).ok());
      ASSERT_TRUE(plan.scale_by_coset(p, false, NttOrder::kBitReversed, nullptr).ok());
      ASSERT_TRUE(plan.forward(p, NttOrder::kBitReversed, NttOrder::kNatural, nullptr).ok());
    }
    ASSERT_TRUE(plan.mul_sub(da.ptr, db.ptr, dc.ptr, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    poly::compute_quotient<H>(domain, poly::QuotientConvention::kSnarkjsOddCoset, a, b, c);
    EXPECT_TRUE(da.template download<H>() == a) << "n = 2^" << log_n;
  }
}

// What fp2_lane_ops wrote, against the CPU.
template <class H>
void check_fp2_lane_results(const std::vector<H>& a, const std::vector<H>& b,
                            const std::vector<H>& out) {
  const size_t n = a.size();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += !(out[4 * i] == a[i] * b[i]) + !(out[4 * i + 1] == a[i].square()) +
           !(out[4 * i + 2] == (a[i] - b[i]) * (a[i] + a[i]) + H::one());
    for (int lane = 0; lane < 2; ++lane) {
      uint32_t flags = 0;
      std::memcpy(&flags, lane ? static_cast<const void*>(&out[4 * i + 3].c1) : &out[4 * i + 3].c0,
                  sizeof(flags));
      bad += (flags & 1) != uint32_t(a[i].is_zero());
      bad += ((flags >> 1) & 1) != uint32_t(a[i] == b[i]);
    }
  }
  EXPECT_EQ(bad, 0u);
}

TYPED_TEST(GpuFp2Test, LaneSplitMatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = TypeParam;
  using D = typename DeviceFieldOf<H>::type;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 11);
  const size_t n = 1 << 16;
  std::vector<H> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = H::random(rng);
    b[i] = i % 7 == 3 ? a[i] : H::random(rng);
  }
  a[0] = H::zero();
  a[5] = H::zero();
  b[1] = H::one();
  a[2] = H{a[2].c0, H::Base::zero()};  // half-zero values must not read as zero
  a[4] = H{H::Base::zero(), a[4].c1};
  using P = typename H::Base::Params;
  DeviceBuffer<D> da(n), db(n), dout(4 * n);
  da.upload(a);
  db.upload(b);
  const uint32_t blocks = uint32_t((2 * n + 127) / 128);
  // Both fields the G2 kernels can hold their halves on, whichever the build's switch picks; each
  // run writes every output.
  for (const bool fp64 : {false, true}) {
    SCOPED_TRACE(fp64 ? "FP64 field" : "integer field");
    if (fp64) {
      fp2_lane_ops<P, Fp2PointLanes<P, true>><<<blocks, 128>>>(da.ptr, db.ptr, dout.ptr, n);
    } else {
      fp2_lane_ops<P, Fp2PointLanes<P, false>><<<blocks, 128>>>(da.ptr, db.ptr, dout.ptr, n);
    }
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    check_fp2_lane_results(a, b, dout.template download<H>());
  }
}

// Offsets taken with ArenaSizer::take place buffers where allocate would have put them; a buffer
// past the arena's end, or at an unaligned offset, is an error naming it, not a wild pointer.
TEST(DeviceArenaTest, PlacedBuffersMatchAllocationAndStayInside) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  ArenaSizer sizer;
  const size_t first = sizer.take(100), second = sizer.take(3 * sizeof(uint64_t)), third = sizer.take(1);
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(second, 256u);  // 100 bytes round up to one 256-byte unit
  EXPECT_EQ(third, 512u);
  EXPECT_EQ(sizer.bytes(), 768u);
  auto arena = std::move(DeviceArena::create(sizer.bytes()).value());
  auto a = arena.allocate<char>(100, "a");
  auto b = arena.allocate<uint64_t>(3, "b");
  auto c = arena.allocate<char>(1, "c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(arena.place<char>(first, 100, "a").value(), *a);
  EXPECT_EQ(arena.place<uint64_t>(second, 3, "b").value(), *b);
  EXPECT_EQ(arena.place<char>(third, 1, "c").value(), *c);
  auto past = arena.place<char>(third, 257, "too long");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().to_string().find("too long"), std::string::npos) << past.status().to_string();
  EXPECT_FALSE(arena.place<char>(768 + 256, 0, "beyond").ok());
  EXPECT_FALSE(arena.place<char>(8, 1, "unaligned").ok());
}

}  // namespace
}  // namespace snarkd::gpu
