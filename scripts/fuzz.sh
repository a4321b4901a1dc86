#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SNARKD_FUZZ_SECONDS (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null 2>&1 || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
fi
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DSNARKD_FUZZ=ON -DSNARKD_CUDA=OFF -DSNARKD_BUILD_TESTS=OFF -DSNARKD_BUILD_BENCH=OFF \
  -DSNARKD_FUZZ_SECONDS="${SNARKD_FUZZ_SECONDS:-45}" >/dev/null
cmake --build build/fuzz --target point_decode_fuzzer make_fuzz_corpus r1cs_fuzzer wtns_fuzzer zkey_fuzzer json_fuzzer params_fuzzer keycache_fuzzer config_fuzzer c1_fuzzer
ctest --test-dir build/fuzz --output-on-failure -j "$(nproc)"
