// GPU benchmark: G1 MSM and batch addition (see gpu_bench.cu).
#include "gpu_bench_common.cuh"

namespace bench {

void run_g1(bool quick, bool msm_only) {
  if (msm_only) {
    bench_msm<ec::bls12_381::G1>("bls12_381", "g1", quick ? 24 : 20, 24, 0);
    bench_msm<ec::bn254::G1>("bn254", "g1", quick ? 24 : 20, 24, 0);
    return;
  }
  const uint32_t top = quick ? 20 : 0;
  bench_msm<ec::bls12_381::G1>("bls12_381", "g1", 16, top ? top : 27, top ? 18 : 24);
  bench_msm<ec::bn254::G1>("bn254", "g1", 16, top ? top : 26, top ? 18 : 24);
  bench_batch_add<ec::bls12_381::G1>("bls12_381/G1", 20, top ? top : 26);
  bench_batch_add<ec::bn254::G1>("bn254/G1", 20, top ? top : 26);
}

void run_copies_g1(uint32_t log_n) {
  bench_copies<ec::bls12_381::G1>("bls12_381", "g1", log_n);
  bench_copies<ec::bn254::G1>("bn254", "g1", log_n);
}

void run_batch_g1() {
  bench_batch_add<ec::bls12_381::G1>("bls12_381/G1", 22, 26);
  bench_batch_add<ec::bn254::G1>("bn254/G1", 22, 26);
}

}  // namespace bench
