// GMP as an independent reference for big-integer and modular arithmetic.
#pragma once

#include <gmpxx.h>

#include "ff/bigint.h"

namespace snarkd::testing {

template <size_t N>
mpz_class to_mpz(const ff::BigInt<N>& v) {
  mpz_class out;
  mpz_import(out.get_mpz_t(), N, -1, sizeof(uint64_t), 0, 0, v.limbs.data());
  return out;
}

// The value must be non-negative and fit in N limbs.
template <size_t N>
ff::BigInt<N> from_mpz(const mpz_class& v) {
  ff::BigInt<N> out;
  size_t count = 0;
  if (mpz_sizeinbase(v.get_mpz_t(), 2) > 64 * N) throw std::runtime_error("mpz value too large");
  mpz_export(out.limbs.data(), &count, -1, sizeof(uint64_t), 0, 0, v.get_mpz_t());
  return out;
}

}  // namespace snarkd::testing
