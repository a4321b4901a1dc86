// Shared body of the product/butterfly throughput bench; includer defines FT and MUL(a,b).
#include <cstdio>
#include <cstdint>
constexpr int ITERS = 2048;
template <class T> __global__ void __launch_bounds__(256) k_mul(T* p) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  T a = p[3 * i], b = p[3 * i + 1], w = p[3 * i + 2];
  #pragma unroll 1
  for (int it = 0; it < ITERS; it++) { a = MUL(a, w); b = MUL(b, w); }
  p[3 * i] = a; p[3 * i + 1] = b;
}
template <class T> __global__ void __launch_bounds__(256) k_bfly(T* p) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  T a = p[3 * i], b = p[3 * i + 1], w = p[3 * i + 2];
  #pragma unroll 1
  for (int it = 0; it < ITERS; it++) { T t = MUL(b, w); b = a - t; a = a + t; }
  p[3 * i] = a; p[3 * i + 1] = b;
}
template <class T> void run_bench(const char* name) {
  const int blocks = 132 * 16, threads = 256;
  size_t n = size_t(blocks) * threads;
  T* d; cudaMalloc(&d, 3 * n * sizeof(T));
  // fill with small values (valid field elements for any < 2^250 modulus)
  uint32_t* h = new uint32_t[3 * n * sizeof(T) / 4];
  uint32_t s = 12345;
  for (size_t i = 0; i < 3 * n * sizeof(T) / 4; i++) { s = s * 1664525u + 1013904223u; h[i] = (i % 8 == 7) ? (s >> 8) : s; }
  cudaMemcpy(d, h, 3 * n * sizeof(T), cudaMemcpyHostToDevice);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int which = 0; which < 2; which++) {
    float best = 1e9;
    for (int r = 0; r < 4; r++) {
      cudaEventRecord(e0);
      if (which == 0) k_mul<T><<<blocks, threads>>>(d); else k_bfly<T><<<blocks, threads>>>(d);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float m; cudaEventElapsedTime(&m, e0, e1); if (r && m < best) best = m;
    }
    double ops = double(n) * ITERS * (which == 0 ? 2 : 1);
    printf("%-28s %-10s %8.3f ms  %7.2f G%s/s\n", name, which == 0 ? "mul" : "butterfly", best, ops / best / 1e6, which == 0 ? "mul" : "bfly");
  }
  cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k_mul<T>); int r1 = fa.numRegs; cudaFuncGetAttributes(&fa, k_bfly<T>);
  printf("%-28s regs mul %d bfly %d; %s\n", name, r1, fa.numRegs, cudaGetErrorString(cudaGetLastError()));
  cudaFree(d); delete[] h;
}
