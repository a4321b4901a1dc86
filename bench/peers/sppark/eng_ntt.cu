// The engineer's DeviceNtt at 2^lg, timed in the same process layout as ntt_time (best of 5).
#include "gpu/field_constants.cuh"
#include "gpu/ntt.cuh"
#include <cstdio>
#include <random>
using namespace snarkd;
using P = ff::bls12_381::FrParams;
int main(int argc, char** argv) {
  uint32_t lg = argc > 1 ? atoi(argv[1]) : 27;
  using H = ff::Fp<P>; using O = gpu::NttOrder;
  size_t n = size_t(1) << lg;
  std::mt19937_64 rng(2); std::vector<H> h(n); for (auto& v : h) v = H::random(rng);
  gpu::DevFp<P>* d; cudaMalloc(&d, n * sizeof(H)); cudaMemcpy(d, h.data(), n * sizeof(H), cudaMemcpyHostToDevice);
  auto plan = gpu::DeviceNtt<P>::create(lg, H::from_u64(7));
  if (!plan.ok()) { printf("plan failed\n"); return 1; }
  if (argc > 2) { (void)plan->forward(d, O::kNatural, O::kBitReversed, nullptr); (void)plan->forward(d, O::kBitReversed, O::kNatural, nullptr); cudaDeviceSynchronize(); return 0; }
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](const char* name, auto f) {
    f(); cudaDeviceSynchronize(); float best = 1e9;
    for (int r = 0; r < 5; r++) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float m; cudaEventElapsedTime(&m, e0, e1); if (m < best) best = m; }
    printf("engineer 2^%u %-24s best %.2f ms\n", lg, name, best);
  };
  time("forward N->R (DIF)", [&] { (void)plan->forward(d, O::kNatural, O::kBitReversed, nullptr); });
  time("forward R->N (DIT)", [&] { (void)plan->forward(d, O::kBitReversed, O::kNatural, nullptr); });
  time("forward N->N", [&] { (void)plan->forward(d, nullptr); });
  time("inverse R->N", [&] { (void)plan->inverse(d, O::kBitReversed, O::kNatural, nullptr); });
  printf("cuda: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
