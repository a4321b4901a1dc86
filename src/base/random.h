// snarkd/base: randomness. Secrets (toxic waste, the prover's r and s) come from the operating
// system's CSPRNG; tests inject a seeded generator through the same interface.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>

namespace snarkd {

// A UniformRandomBitGenerator of 64-bit words, usable with Fp<P>::random.
class RandomSource {
 public:
  using result_type = uint64_t;
  virtual ~RandomSource() = default;
  virtual uint64_t next() = 0;
  uint64_t operator()() { return next(); }
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
};

// getrandom(2); aborts the process if the kernel cannot supply randomness (never silently weak).
class OsRandom final : public RandomSource {
 public:
  uint64_t next() override;
};

// Deterministic (splitmix64): for tests and reproducible benchmarks only.
class SeededRandom final : public RandomSource {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}
  uint64_t next() override {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace snarkd
