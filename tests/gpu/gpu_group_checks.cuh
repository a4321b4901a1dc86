// The group checks of the GPU suite, written once as function templates and instantiated for
// G1 (gpu_g1_test.cu) and G2 (gpu_g2_test.cu) in separate translation units, so ptxas compiles
// the two in parallel.
#pragma once

#include "gpu_test_support.cuh"

namespace snarkd::gpu::testing_support {

// XYZZ point arithmetic on the device against ec::Xyzz on the CPU: sums of chains of mixed
// additions (with repeated points, inverses and identities), doublings and to_affine.
template <class F>
__global__ void point_chains(const DevAffine<F>* pts, DevXyzz<F>* out, DevAffine<F>* affine,
                             size_t n, int len) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  DevXyzz<F> acc = DevXyzz<F>::identity();
  for (int k = 0; k < len; ++k) acc = acc.add_affine(pts[(i + k) % n]);
  DevXyzz<F> twice = acc.add(acc);
  out[2 * i] = twice.dbl();
  out[2 * i + 1] = acc.add(DevXyzz<F>::identity()).add(acc.mul_small(uint32_t(i)));
  affine[i] = acc.to_affine();
}

template <class C>
void check_points_match_cpu() {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using F = typename DeviceMsm<C>::F;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 3);
  const size_t n = 2048;
  const int len = 5;
  auto pts = random_points<C>(n, rng);
  pts[7] = pts[6];          // doubling inside a chain
  pts[11] = pts[10].neg();  // inverse: the chain passes through the identity
  pts[20] = ec::Affine<C>::identity();
  DeviceBuffer<DevAffine<F>> dpts(n), daff(n);
  dpts.upload(DeviceMsm<C>::to_device_layout(pts));
  DeviceBuffer<DevXyzz<F>> dout(2 * n);
  point_chains<F><<<uint32_t((n + 127) / 128), 128>>>(dpts.ptr, dout.ptr, daff.ptr, n, len);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto got = dout.template download<ec::Xyzz<C>>();
  auto got_affine = daff.template download<DevAffine<F>>();
  auto want_affine_layout = [&](const ec::Affine<C>& a) {
    return DeviceMsm<C>::to_device_layout(std::span<const ec::Affine<C>>(&a, 1))[0];
  };
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    ec::Xyzz<C> acc = ec::Xyzz<C>::identity();
    for (int k = 0; k < len; ++k) acc = acc.add_mixed(pts[(i + k) % n]);
    auto want_twice_dbl = acc.add(acc).dbl().to_affine();
    auto scaled = ec::mul_vartime(acc.to_jacobian().to_affine(), C::Scalar::Int::from_u64(i));
    bad += !(got[2 * i].to_affine() == want_twice_dbl);
    bad += !(got[2 * i + 1].to_affine() == acc.to_jacobian().add(scaled).to_affine());
    auto w = want_affine_layout(acc.to_affine());
    bad += std::memcmp(&w, &got_affine[i], sizeof(w)) != 0;
  }
  EXPECT_EQ(bad, 0u);
}

enum class ScalarMix { kMixed, kAllEqual, kAllZero, kSmall };

// The device MSM against the CPU Pippenger on fresh inputs: several sizes (n = 1, not powers of
// two), windows (chosen, 4, 9, 13), precomputed copies, an index list, and edge inputs (zero,
// one, r-1, all scalars equal: one bucket takes every point; all zero; small scalars).
template <class C>
void check_msm_matches_cpu() {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using Int = typename C::Scalar::Int;
  using Point = typename DeviceMsm<C>::Point;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 4);
  const bool g2 = sizeof(typename C::Field) > 64;
  std::vector<size_t> sizes = {1, 2, 3, 17, 100, 1000, 5000};
  sizes.push_back(g2 ? 20000 : 70001);
  for (size_t n : sizes) {
    auto pts = random_points<C>(n, rng);
    if (n > 3) {
      pts[2] = pts[1];  // repeated point
      pts[3] = ec::Affine<C>::identity();
    }
    DeviceBuffer<Point> dbases(n);
    dbases.upload(DeviceMsm<C>::to_device_layout(pts));
    for (ScalarMix mix : {ScalarMix::kMixed, ScalarMix::kAllEqual, ScalarMix::kAllZero, ScalarMix::kSmall}) {
      if (mix != ScalarMix::kMixed && n > 5000) continue;
      std::vector<Int> scalars(n);
      Int same = C::Scalar::random(rng).to_canonical();
      for (size_t i = 0; i < n; ++i) {
        switch (mix) {
          case ScalarMix::kAllEqual: scalars[i] = same; break;
          case ScalarMix::kAllZero: scalars[i] = Int{}; break;
          case ScalarMix::kSmall: scalars[i] = Int::from_u64(rng() % 5); break;
          case ScalarMix::kMixed:
            switch (rng() % 6) {
              case 0: scalars[i] = Int{}; break;
              case 1: scalars[i] = Int::from_u64(1); break;
              case 2: scalars[i] = C::Scalar::kModulus - Int::from_u64(1); break;
              default: scalars[i] = C::Scalar::random(rng).to_canonical();
            }
        }
      }
      DeviceBuffer<uint32_t> dscalars(8 * n);
      dscalars.upload(scalar_words(scalars));
      auto want = msm::msm<C>(std::span<const ec::Affine<C>>(pts), std::span<const Int>(scalars));
      for (uint32_t c : {0u, 4u, 9u, 13u}) {
        if (mix != ScalarMix::kMixed && c != 0) continue;
        auto rig = make_msm<C>({n, c, 1});
        auto got = rig.plan.run(dbases.ptr, n, dscalars.ptr, n, nullptr, nullptr);
        ASSERT_TRUE(got.ok()) << got.status().to_string();
        EXPECT_TRUE(*got == want) << "n = " << n << ", c = " << rig.plan.window_bits(n)
                                  << ", mix = " << int(mix);
      }
      if (mix != ScalarMix::kMixed) continue;
      // Precomputed copies: 3 and one per window (a single window left to reduce).
      for (uint32_t copies : {3u, 64u}) {
        auto rig = make_msm<C>({n, 0, copies});
        DeviceBuffer<Point> shifted(n * copies);
        ASSERT_TRUE(rig.plan.precompute(dbases.ptr, n, shifted.ptr, nullptr).ok());
        auto got = rig.plan.run(shifted.ptr, n, dscalars.ptr, n, nullptr, nullptr);
        ASSERT_TRUE(got.ok()) << got.status().to_string();
        EXPECT_TRUE(*got == want) << "n = " << n << ", copies = " << copies;
      }
      // As the prover keeps them: one plan that takes up to 4 copies, bases with 1, 2 and 4
      // copies made for all n points (sizes below and off the precomputation's batch of 8, an
      // identity at index 3), the plan told which by each run; then a run of the first half of
      // the points over the same copies (a window chosen for twice its points).
      {
        auto rig = make_msm<C>({n, 0, 4});
        const size_t half = (n + 1) / 2;
        auto want_half = msm::msm<C>(std::span<const ec::Affine<C>>(pts).first(half),
                                     std::span<const Int>(scalars).first(half));
        for (uint32_t copies : {1u, 2u, 4u}) {
          const BaseCopies b = DeviceMsm<C>::copies_for(n, copies);
          DeviceBuffer<Point> shifted(n * copies);
          ASSERT_TRUE(DeviceMsm<C>::precompute(b, dbases.ptr, n, shifted.ptr, nullptr).ok());
          auto got = rig.plan.run(shifted.ptr, n, b, dscalars.ptr, n, nullptr, nullptr);
          ASSERT_TRUE(got.ok()) << got.status().to_string();
          EXPECT_TRUE(*got == want) << "n = " << n << ", " << copies << " copies";
          auto got_half = rig.plan.run(shifted.ptr, n, b, dscalars.ptr, half, nullptr, nullptr);
          ASSERT_TRUE(got_half.ok()) << got_half.status().to_string();
          EXPECT_TRUE(*got_half == want_half)
              << "n = " << n << ", " << copies << " copies, first half";
        }
      }
      // An index list: every other base, reversed.
      if (n >= 4) {
        std::vector<uint32_t> idx;
        std::vector<Int> sub_scalars;
        std::vector<ec::Affine<C>> sub_pts;
        for (size_t i = n; i-- > 0;) {
          if (i % 2) continue;
          idx.push_back(uint32_t(i));
          sub_scalars.push_back(scalars[i]);
          sub_pts.push_back(pts[i]);
        }
        DeviceBuffer<uint32_t> didx(idx.size()), dsub(8 * idx.size());
        didx.upload(idx);
        dsub.upload(scalar_words(sub_scalars));
        auto rig = make_msm<C>({idx.size(), 0, 1});
        auto got = rig.plan.run(dbases.ptr, n, dsub.ptr, idx.size(), didx.ptr, nullptr);
        ASSERT_TRUE(got.ok()) << got.status().to_string();
        auto want_sub = msm::msm<C>(std::span<const ec::Affine<C>>(sub_pts),
                                    std::span<const Int>(sub_scalars));
        EXPECT_TRUE(*got == want_sub) << "indices, n = " << n;
      }
    }
  }
}

// The copies' window arithmetic, on the host (no GPU needed): every window lies in some copy,
// a run of as many points as the copies were made for takes them, a much smaller run takes the
// plain bases, and windows never narrow as the points grow (the plan's workspace bound relies
// on it).
template <class C>
void check_copies_model() {
  using M = DeviceMsm<C>;
  EXPECT_EQ(M::copies_for(1000, 1), BaseCopies{});
  EXPECT_EQ(M::prefer(1000, BaseCopies{}), BaseCopies{});
  for (uint32_t log_n : {10u, 16u, 20u, 24u, 27u}) {
    const size_t n = size_t(1) << log_n;
    for (uint32_t k : {2u, 3u, 4u, 13u}) {
      const BaseCopies b = M::copies_for(n, k);
      EXPECT_EQ(b.copies, k);
      const uint32_t w = M::windows_for(b.window_bits), shift = M::shift_bits(b);
      EXPECT_EQ(shift % b.window_bits, 0u);
      EXPECT_GE(uint64_t(shift) * k, uint64_t(w) * b.window_bits)
          << "2^" << log_n << ", " << k << " copies";
      EXPECT_EQ(M::prefer(n, b), b) << "2^" << log_n << ", " << k << " copies";
    }
    if (log_n >= 20) EXPECT_EQ(M::prefer(1000, M::copies_for(n, 4)), BaseCopies{}) << "2^" << log_n;
  }
  std::mt19937_64 rng(seed() + 11);
  for (uint32_t k : {1u, 2u, 4u, 64u}) {
    std::vector<size_t> sizes;
    for (int i = 0; i < 2000; ++i) sizes.push_back(1 + rng() % (size_t(1) << (1 + rng() % 28)));
    std::sort(sizes.begin(), sizes.end());
    for (size_t i = 1; i < sizes.size(); ++i) {
      EXPECT_LE(M::windows_for(M::choose_window(sizes[i], k)),
                M::windows_for(M::choose_window(sizes[i - 1], k)))
          << sizes[i - 1] << " then " << sizes[i] << " points, " << k << " copies";
    }
  }
}

template <class C>
void check_msm_rejects_oversized_runs() {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  auto rig = make_msm<C>({100, 0, 1});
  auto r = rig.plan.run(nullptr, 1000, nullptr, 1000, nullptr, nullptr);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().to_string().find("exceeds"), std::string::npos);
  // Copies whose window needs more buckets than the plan holds, or with no window at all.
  auto wide = rig.plan.run(nullptr, 100, BaseCopies{4, 22}, nullptr, 100, nullptr, nullptr);
  EXPECT_FALSE(wide.ok());
  EXPECT_NE(wide.status().to_string().find("more workspace than the plan has"), std::string::npos)
      << wide.status().to_string();
  auto no_window = rig.plan.run(nullptr, 100, BaseCopies{2, 0}, nullptr, 100, nullptr, nullptr);
  EXPECT_FALSE(no_window.ok());
  EXPECT_NE(no_window.status().to_string().find("window"), std::string::npos)
      << no_window.status().to_string();
  // A run of few points prefers the plain bases over copies made for many more; as many points
  // as the copies were made for take the copies.
  const BaseCopies big = DeviceMsm<C>::copies_for(size_t(1) << 22, 4);
  EXPECT_EQ(DeviceMsm<C>::prefer(100, big), BaseCopies{});
  EXPECT_EQ(DeviceMsm<C>::prefer(size_t(1) << 22, big), big);
  // A workspace larger than the arena is an error naming the buffer, not a crash.
  auto small = DeviceArena::create(1024).value();
  auto plan = DeviceMsm<C>::create({1 << 16, 0, 1}, small);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().to_string().find("device arena"), std::string::npos);
}

// The 0/1 split: classes, counts, the sum of the bases with scalar 1, and the compacted
// "other" indices and scalars, against a CPU pass.
template <class C>
void check_batch_addition_matches_cpu() {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using Int = typename C::Scalar::Int;
  using Point = typename DeviceMsm<C>::Point;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 5);
  const bool g2 = sizeof(typename C::Field) > 64;
  for (size_t n : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000),
                   g2 ? size_t(30000) : size_t(200003)}) {
    auto pts = random_points<C>(n, rng);
    if (n > 3) pts[1] = ec::Affine<C>::identity();
    std::vector<Int> scalars(n);
    for (size_t i = 0; i < n; ++i) {
      switch (rng() % 10) {
        case 0: case 1: case 2: scalars[i] = Int{}; break;
        case 9: scalars[i] = C::Scalar::random(rng).to_canonical(); break;
        case 8: scalars[i] = Int::from_u64(2); break;
        default: scalars[i] = Int::from_u64(1);
      }
    }
    if (n > 3) scalars[2] = C::Scalar::kModulus - Int::from_u64(1);
    DeviceBuffer<Point> dbases(n);
    dbases.upload(DeviceMsm<C>::to_device_layout(pts));
    DeviceBuffer<uint32_t> dscalars(8 * n);
    dscalars.upload(scalar_words(scalars));
    auto bytes = DeviceBatchAdd<C>::workspace_bytes(n);
    ASSERT_TRUE(bytes.ok());
    auto arena = std::move(DeviceArena::create(*bytes).value());
    auto plan = DeviceBatchAdd<C>::create(n, arena);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    ASSERT_TRUE(plan->launch(dbases.ptr, dscalars.ptr, n, nullptr).ok());
    auto out = plan->finish(nullptr);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ec::Jacobian<C> ones = ec::Jacobian<C>::identity();
    size_t zeros = 0, one_count = 0;
    std::vector<uint32_t> others;
    std::vector<uint32_t> other_words;
    for (size_t i = 0; i < n; ++i) {
      if (scalars[i] == Int{}) {
        ++zeros;
      } else if (scalars[i] == Int::from_u64(1)) {
        ++one_count;
        ones = ones.add_mixed(pts[i]);
      } else {
        others.push_back(uint32_t(i));
        for (int w = 0; w < 8; ++w) other_words.push_back(uint32_t(scalars[i].limbs[w / 2] >> (32 * (w % 2))));
      }
    }
    EXPECT_EQ(out->zeros, zeros);
    EXPECT_EQ(out->ones, one_count);
    EXPECT_EQ(out->others, others.size());
    EXPECT_TRUE(out->ones_sum == ones) << "n = " << n;
    std::vector<uint32_t> got_idx(others.size()), got_words(other_words.size());
    ASSERT_EQ(cudaMemcpy(got_idx.data(), plan->other_indices(), 4 * got_idx.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got_words.data(), plan->other_scalars(), 4 * got_words.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(got_idx, others);
    EXPECT_EQ(got_words, other_words);
  }
}

}  // namespace snarkd::gpu::testing_support
