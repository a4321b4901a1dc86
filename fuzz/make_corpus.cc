// Writes valid encodings of random points (every form, both curves) as fuzzer seed files.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "ec/encoding.h"

namespace {

using namespace snarkd;

void write(const std::filesystem::path& dir, int& n, uint8_t selector, std::span<const uint8_t> b) {
  std::ofstream out(dir / ("seed" + std::to_string(n++)), std::ios::binary);
  out.put(char(selector));
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

template <class C>
ec::Affine<C> random_point(std::mt19937_64& rng) {
  return ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical()).to_affine();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::path dir(argv[1]);
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(7);
  int n = 0;
  for (int i = 0; i < 3; ++i) {
    auto g1 = random_point<ec::bls12_381::G1>(rng);
    auto g2 = random_point<ec::bls12_381::G2>(rng);
    write(dir, n, 0, ec::encode_compressed(g1));
    write(dir, n, 0, ec::encode_uncompressed(g1));
    write(dir, n, 4, ec::encode_compressed(g2));
    write(dir, n, 4, ec::encode_uncompressed(g2));
    write(dir, n, 1, ec::encode_snarkjs(g1));
    write(dir, n, 1, ec::encode_snarkjs(g2));
    write(dir, n, 1, ec::encode_snarkjs(random_point<ec::bn254::G1>(rng)));
    write(dir, n, 1, ec::encode_snarkjs(random_point<ec::bn254::G2>(rng)));
    std::string j1 = ec::to_snarkjs_json(random_point<ec::bn254::G1>(rng)).dump();
    std::string j2 = ec::to_snarkjs_json(random_point<ec::bls12_381::G2>(rng)).dump();
    write(dir, n, 2, std::span(reinterpret_cast<const uint8_t*>(j1.data()), j1.size()));
    write(dir, n, 2, std::span(reinterpret_cast<const uint8_t*>(j2.data()), j2.size()));
  }
  return 0;
}
