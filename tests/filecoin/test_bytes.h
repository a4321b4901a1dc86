// Test helpers for the filecoin tests: 32-byte values of small numbers and random bytes.
#pragma once

#include "ff/bls12_381.h"
#include "filecoin/seal_proof.h"

namespace snarkd::filecoin::testing {

inline Bytes32 fr_bytes(uint64_t v) {
  Bytes32 b;
  ff::bls12_381::Fr::from_u64(v).to_bytes_le(b);
  return b;
}

template <class Rng>
Bytes32 random_bytes(Rng& rng) {
  Bytes32 b;
  for (auto& x : b) x = uint8_t(rng());
  return b;
}

}  // namespace snarkd::filecoin::testing
