// Shared test helpers: a seeded RNG whose seed is printed (and replayable with SNARKD_TEST_SEED).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

namespace snarkd::testing {

inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    if (const char* env = std::getenv("SNARKD_TEST_SEED")) {
      return uint64_t(std::strtoull(env, nullptr, 10));
    }
    std::random_device rd;
    return uint64_t((uint64_t(rd()) << 32) ^ rd());
  }();
  return seed;
}

// One generator per test, derived from the run's seed and the test's name so tests stay
// independent of their order. The seed is attached to every failure message via SCOPED_TRACE.
inline std::mt19937_64 make_rng() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  return std::mt19937_64(test_seed() ^ std::hash<std::string>{}(name));
}

#define SNARKD_SEED_TRACE() \
  SCOPED_TRACE("replay with SNARKD_TEST_SEED=" + std::to_string(::snarkd::testing::test_seed()))

}  // namespace snarkd::testing
