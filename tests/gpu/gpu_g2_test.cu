// GPU suite (run on the GPU machine by scripts/gpu-check.sh, not in CI): G2 point arithmetic,
// MSM and batch addition against the CPU code on fresh random inputs, including edge values
// (the checks are in gpu_group_checks.cuh).
#include "gpu_group_checks.cuh"

namespace snarkd::gpu {
namespace {
using namespace testing_support;

template <class C>
class GpuG2Test : public ::testing::Test {};
using Groups = ::testing::Types<ec::bls12_381::G2, ec::bn254::G2>;
TYPED_TEST_SUITE(GpuG2Test, Groups);

TYPED_TEST(GpuG2Test, PointArithmeticMatchesCpu) { check_points_match_cpu<TypeParam>(); }
TYPED_TEST(GpuG2Test, MsmMatchesCpuPippenger) { check_msm_matches_cpu<TypeParam>(); }
TYPED_TEST(GpuG2Test, MsmRejectsOversizedRuns) { check_msm_rejects_oversized_runs<TypeParam>(); }
TYPED_TEST(GpuG2Test, CopiesWindowModel) { check_copies_model<TypeParam>(); }
TYPED_TEST(GpuG2Test, BatchAdditionMatchesCpu) { check_batch_addition_matches_cpu<TypeParam>(); }

}  // namespace
}  // namespace snarkd::gpu
