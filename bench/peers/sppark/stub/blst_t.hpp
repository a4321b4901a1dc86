// Minimal host-side stand-in for blst_t.hpp: storage only (the study driver does no host arithmetic).
#pragma once
#include <cstdint>
#include <cstddef>
typedef uint64_t limb_t;
typedef limb_t vec256[4];
typedef limb_t vec384[6];
#define TO_LIMB_T(x) x
template<size_t N, const vec256 MOD, limb_t M0, const vec256 RR, const vec256 ONE>
struct blst_256_t { vec256 val; blst_256_t() {} blst_256_t(const limb_t* p) { for (int i=0;i<4;i++) val[i]=p[i]; } };
template<size_t N, const vec384 MOD, limb_t M0, const vec384 RR, const vec384 ONE>
struct blst_384_t { vec384 val; blst_384_t() {} blst_384_t(const limb_t* p) { for (int i=0;i<6;i++) val[i]=p[i]; } };
