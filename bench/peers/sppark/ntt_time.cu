// Peer driver, built only by run.sh against the git-ignored .peers/sppark (never into snarkd).
// Times sppark's NTT at 2^lg (default 27) on the device: whole transforms via NTT::Base_dev_ptr,
// plus each kernel of the 3-pass GS (NR) and CT (RN) paths through cudaEvents.
#include <ff/bls12-381.hpp>
#include <ntt/ntt.cuh>
#include <cstdio>
#include <vector>
#include <cstdlib>
static float ms_of(cudaEvent_t a, cudaEvent_t b){ float m; cudaEventElapsedTime(&m,a,b); return m; }
int main(int argc, char** argv) {
  int lg = argc > 1 ? atoi(argv[1]) : 27;
  size_t n = size_t(1) << lg;
  auto& gpu = select_gpu(0);
  fr_t* d; CUDA_OK(cudaMalloc(&d, n * sizeof(fr_t)));
  // random-ish data below the modulus (top limb small)
  std::vector<uint64_t> h(n * 4);
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i < n * 4; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; h[i] = (i % 4 == 3) ? (s >> 4) : s; }
  CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(fr_t), cudaMemcpyHostToDevice));
  stream_t& st = gpu[0];
  (void)NTTParameters::all();
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  struct Case { const char* name; NTT::InputOutputOrder o; NTT::Direction dir; NTT::Type t; } cases[] = {
    {"forward NR (GS)", NTT::InputOutputOrder::NR, NTT::Direction::forward, NTT::Type::standard},
    {"forward RN (CT)", NTT::InputOutputOrder::RN, NTT::Direction::forward, NTT::Type::standard},
    {"forward NN (bitrev+CT)", NTT::InputOutputOrder::NN, NTT::Direction::forward, NTT::Type::standard},
    {"inverse NN", NTT::InputOutputOrder::NN, NTT::Direction::inverse, NTT::Type::standard},
    {"inverse NR (GS)", NTT::InputOutputOrder::NR, NTT::Direction::inverse, NTT::Type::standard},
    {"coset forward NN", NTT::InputOutputOrder::NN, NTT::Direction::forward, NTT::Type::coset},
    {"coset forward NR", NTT::InputOutputOrder::NR, NTT::Direction::forward, NTT::Type::coset},
  };
  if (argc > 2) { NTT::Base_dev_ptr(st, d, lg, NTT::InputOutputOrder::NR, NTT::Direction::forward, NTT::Type::standard); NTT::Base_dev_ptr(st, d, lg, NTT::InputOutputOrder::RN, NTT::Direction::forward, NTT::Type::standard); cudaDeviceSynchronize(); return 0; }
  for (auto& c : cases) {
    NTT::Base_dev_ptr(st, d, lg, c.o, c.dir, c.t);  // warm-up
    float best = 1e9, sum = 0; int reps = 5;
    for (int r = 0; r < reps; r++) {
      cudaEventRecord(e0, st);
      NTT::Base_dev_ptr(st, d, lg, c.o, c.dir, c.t);
      cudaEventRecord(e1, st); cudaEventSynchronize(e1);
      float m = ms_of(e0, e1); best = m < best ? m : best; sum += m;
    }
    printf("sppark 2^%d %-24s best %.2f ms  mean %.2f ms\n", lg, c.name, best, sum / reps);
  }
  CUDA_OK(cudaGetLastError());
  return 0;
}
