// snarkd/gpu: the constant-memory copies of each field's constants. Included by every .cu that
// does field arithmetic (each translation unit gets its own copy; no relocatable device code).
#pragma once

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/field.cuh"

namespace snarkd::gpu {

namespace constants {
static __constant__ FieldConstants<ff::bls12_381::FqParams> kBls12_381Fq =
    make_field_constants<ff::bls12_381::FqParams>();
static __constant__ FieldConstants<ff::bls12_381::FrParams> kBls12_381Fr =
    make_field_constants<ff::bls12_381::FrParams>();
static __constant__ FieldConstants<ff::bn254::FqParams> kBn254Fq =
    make_field_constants<ff::bn254::FqParams>();
static __constant__ FieldConstants<ff::bn254::FrParams> kBn254Fr =
    make_field_constants<ff::bn254::FrParams>();
}  // namespace constants

template <>
struct DeviceConstants<ff::bls12_381::FqParams> {
  __device__ __forceinline__ static const auto& get() { return constants::kBls12_381Fq; }
};
template <>
struct DeviceConstants<ff::bls12_381::FrParams> {
  __device__ __forceinline__ static const auto& get() { return constants::kBls12_381Fr; }
};
template <>
struct DeviceConstants<ff::bn254::FqParams> {
  __device__ __forceinline__ static const auto& get() { return constants::kBn254Fq; }
};
template <>
struct DeviceConstants<ff::bn254::FrParams> {
  __device__ __forceinline__ static const auto& get() { return constants::kBn254Fr; }
};

}  // namespace snarkd::gpu
