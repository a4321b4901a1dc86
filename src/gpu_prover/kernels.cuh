// snarkd/gpu_prover (internal): the prover's own small kernels: a, b, c from the QAP rows (CSR or
// compact), their product and the satisfiability check, the Montgomery-to-canonical pass and the
// gather of a density-compressed query's scalars.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace snarkd::gpu_prover {

namespace kernels {

// out[r] = <row r, w> for the CSR rows; rows past `rows` are left alone (zeroed by the caller).
template <class F>
__global__ void sparse_rows(const uint64_t* row_start, const uint32_t* column, const F* value,
                            const F* w, uint32_t rows, F* out) {
  uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  F acc = F::zero();
  for (uint64_t k = row_start[r], end = row_start[r + 1]; k < end; ++k) {
    acc += value[k] * w[column[k]];
  }
  out[r] = acc;
}

// The same from compact rows: u32 row starts, u16 indices into the dictionary of coefficients;
// `one` is the index of 1 (no multiplication there), or 0xffffffff.
template <class F>
__global__ void compact_rows(const uint32_t* row_start, const uint32_t* column, const uint16_t* coeff,
                             const F* dictionary, uint32_t one, const F* w, uint32_t rows, F* out) {
  uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  F acc = F::zero();
  for (uint32_t k = row_start[r], end = row_start[r + 1]; k < end; ++k) {
    const uint32_t i = coeff[k];
    if (i == one) {
      acc += w[column[k]];
    } else {
      acc += dictionary[i] * w[column[k]];
    }
  }
  out[r] = acc;
}

template <class F>
__global__ void product(const F* a, const F* b, F* c, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i];
}

// first_bad = the lowest constraint with a * b != c (stays 0xffffffff when all hold).
template <class F>
__global__ void check_rows(const F* a, const F* b, const F* c, uint32_t rows, uint32_t* first_bad) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows && !(a[i] * b[i] == c[i])) atomicMin(first_bad, i);
}

// Montgomery form -> canonical integers in place: a Montgomery product with the integer 1.
template <class F>
__global__ void from_montgomery(F* data, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  F one_raw = F::zero();
  one_raw.v[0] = 1;
  data[i] = data[i] * one_raw;
}

// out[i] = w[index[i]]: the scalars of a density-compressed query.
template <class F>
__global__ void gather(const F* w, const uint32_t* index, size_t count, F* out) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = w[index[i]];
}

}  // namespace kernels

}  // namespace snarkd::gpu_prover
