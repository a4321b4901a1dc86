// GPU suite (run on the GPU machine by scripts/gpu-check.sh, not in CI): G1 point arithmetic,
// MSM and batch addition against the CPU code on fresh random inputs, including edge values
// (the checks are in gpu_group_checks.cuh).
#include "gpu_group_checks.cuh"

namespace snarkd::gpu {
namespace {
using namespace testing_support;

template <class C>
class GpuG1Test : public ::testing::Test {};
using Groups = ::testing::Types<ec::bls12_381::G1, ec::bn254::G1>;
TYPED_TEST_SUITE(GpuG1Test, Groups);

TYPED_TEST(GpuG1Test, PointArithmeticMatchesCpu) { check_points_match_cpu<TypeParam>(); }
TYPED_TEST(GpuG1Test, MsmMatchesCpuPippenger) { check_msm_matches_cpu<TypeParam>(); }
TYPED_TEST(GpuG1Test, MsmRejectsOversizedRuns) { check_msm_rejects_oversized_runs<TypeParam>(); }
TYPED_TEST(GpuG1Test, CopiesWindowModel) { check_copies_model<TypeParam>(); }
TYPED_TEST(GpuG1Test, BatchAdditionMatchesCpu) { check_batch_addition_matches_cpu<TypeParam>(); }

}  // namespace
}  // namespace snarkd::gpu
