// GPU benchmark: G2 MSM (see gpu_bench.cu).
#include "gpu_bench_common.cuh"

namespace bench {

void run_g2(bool quick, bool msm_only) {
  if (msm_only) {
    bench_msm<ec::bls12_381::G2>("bls12_381", "g2", quick ? 24 : 20, 24, 0);
    bench_msm<ec::bn254::G2>("bn254", "g2", quick ? 24 : 20, 24, 0);
    return;
  }
  bench_msm<ec::bls12_381::G2>("bls12_381", "g2", 16, quick ? 18 : 24, 0);
  bench_msm<ec::bn254::G2>("bn254", "g2", 16, quick ? 18 : 24, 0);
}

void run_copies_g2(uint32_t log_n) {
  bench_copies<ec::bls12_381::G2>("bls12_381", "g2", log_n);
  bench_copies<ec::bn254::G2>("bn254", "g2", log_n);
}

void run_batch_g2() {
  bench_batch_add<ec::bls12_381::G2>("bls12_381/G2", 22, 24);
  bench_batch_add<ec::bn254::G2>("bn254/G2", 22, 24);
}

}  // namespace bench
