// Peer comparison (issue 36), our side: the Fr product and butterfly throughput of our device
// field forms (wide, PTX rows, PTX split), timed by mulbench.cuh like sppark_mul in sp_mul.cu.
#include "gpu/field_constants.cuh"
using namespace snarkd;
using P = ff::bls12_381::FrParams;
struct WideTag {}; struct RowsTag {};
#define MUL(a, b) (decltype(a)::mul_sel((a), (b)))
template <int form> struct FrW : gpu::DevFp<P> {
  __device__ FrW() {}
  __device__ FrW(const gpu::DevFp<P>& x) : gpu::DevFp<P>(x) {}
  __device__ static FrW mul_sel(const FrW& a, const FrW& b) {
    if constexpr (form == 0) return gpu::DevFp<P>::mul_portable(a, b);
    else if constexpr (form == 1) return gpu::DevFp<P>::mul_rows(a, b);
    else return gpu::DevFp<P>::mul_split(a, b);
  }
  __device__ friend FrW operator+(const FrW& a, const FrW& b) { return (const gpu::DevFp<P>&)a + (const gpu::DevFp<P>&)b; }
  __device__ friend FrW operator-(const FrW& a, const FrW& b) { return (const gpu::DevFp<P>&)a - (const gpu::DevFp<P>&)b; }
};
#include "mulbench.cuh"
int main() { run_bench<FrW<0>>("engineer wide (mul_portable)"); run_bench<FrW<1>>("engineer PTX rows"); run_bench<FrW<2>>("engineer PTX split"); return 0; }
