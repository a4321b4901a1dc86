#!/usr/bin/env bash
# The whole test suite: install dependencies (apt and npm), build with AddressSanitizer and
# UndefinedBehaviorSanitizer, and run every test with CTest. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --with-npm
jobs=$(nproc)
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSNARKD_SANITIZE=ON >/dev/null
cmake --build build/asan -j "$jobs"
# The CUDA runtime maps memory where ASan keeps its shadow gap; allow it (no GPU needed).
export ASAN_OPTIONS="${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir build/asan --output-on-failure -j "$jobs"
# Parsers are fuzzed too: a short libFuzzer run of every decoder (clang build).
bash scripts/fuzz.sh
