#include "base/status.h"

#include <gtest/gtest.h>

#include "base/hex.h"

namespace snarkd {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return invalid_argument("value " + std::to_string(v) + " is not positive");
  return v;
}

Result<int> doubled(int v) {
  ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

Status check_all(int a, int b) {
  RETURN_IF_ERROR(parse_positive(a).status());
  RETURN_IF_ERROR(parse_positive(b).status().with_context("second value"));
  return Status();
}

TEST(Status, OkAndErrors) {
  EXPECT_TRUE(Status().ok());
  Status s = invalid_argument("bad");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.to_string(), "INVALID_ARGUMENT: bad");
  EXPECT_EQ(s.with_context("reading key 'k'").message(), "reading key 'k': bad");
  EXPECT_EQ(int(StatusCode::kDataLoss), 15);  // gRPC's numbering
}

TEST(Status, MacrosPropagate) {
  EXPECT_EQ(*doubled(4), 8);
  auto r = doubled(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "value -1 is not positive");
  EXPECT_TRUE(check_all(1, 2).ok());
  EXPECT_EQ(check_all(1, -2).message(), "second value: value -2 is not positive");
}

TEST(Hex, RoundTripAndErrors) {
  std::vector<uint8_t> bytes = {0x00, 0x01, 0xab, 0xff};
  EXPECT_EQ(to_hex(bytes), "0001abff");
  EXPECT_EQ(*from_hex("0x0001ABff"), bytes);
  EXPECT_NE(from_hex("abc").status().message().find("odd length"), std::string::npos);
  EXPECT_NE(from_hex("zz").status().message().find("position 0"), std::string::npos);
  EXPECT_NE(from_hex("0g").status().message().find("position 1"), std::string::npos);
}

}  // namespace
}  // namespace snarkd
