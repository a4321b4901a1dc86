#include <gtest/gtest.h>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "r1cs/builder.h"
#include "test_util.h"

namespace snarkd::r1cs {
namespace {

using Fr = ff::bn254::Fr;

TEST(Builder, PublicVariablesAreNumberedFirst) {
  CircuitBuilder<Fr> cb;
  auto p = cb.alloc(Fr::from_u64(3));       // private, allocated first
  auto x = cb.alloc_input(Fr::from_u64(9)); // public
  cb.enforce({{p, Fr::one()}}, {{p, Fr::one()}}, {{x, Fr::one()}});
  auto [cs, w] = cb.finish();
  EXPECT_EQ(cs.num_public, 1u);
  EXPECT_EQ(cs.num_variables, 3u);
  EXPECT_EQ(w, (std::vector<Fr>{Fr::one(), Fr::from_u64(9), Fr::from_u64(3)}));
  EXPECT_EQ(cs.a.column, (std::vector<uint32_t>{2}));
  EXPECT_EQ(cs.c.column, (std::vector<uint32_t>{1}));
  EXPECT_TRUE(cs.validate().ok());
  EXPECT_TRUE(check_satisfied(cs, std::span<const Fr>(w)).ok());
  w[1] = Fr::from_u64(10);
  auto st = check_satisfied(cs, std::span<const Fr>(w));
  EXPECT_EQ(st.message(), "constraint 0 is not satisfied");
}

}  // namespace
}  // namespace snarkd::r1cs
