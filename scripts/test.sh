#!/usr/bin/env bash
# The whole test suite: install dependencies (apt and npm), build with AddressSanitizer and
# UndefinedBehaviorSanitizer, and run every test with CTest; the fuzzers; then the heavy tests from
# a Release build. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --with-npm
jobs=$(nproc)
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSNARKD_SANITIZE=ON >/dev/null
cmake --build build/asan -j "$jobs"
# The CUDA runtime maps memory where ASan keeps its shadow gap; allow it (no GPU needed).
export ASAN_OPTIONS="${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir build/asan --output-on-failure -j "$jobs" -LE heavy
# Parsers are fuzzed too: a short libFuzzer run of every decoder (clang build).
bash scripts/fuzz.sh
# Heavy cases (label "heavy": the 32 GiB PoRep partition's shape, PoRep C2 of 2 KiB and 8 MiB
# sectors end to end) run from the Release build the main job uses, not under the sanitizers.
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNARKD_BUILD_TESTS=ON >/dev/null
cmake --build build/release -j "$jobs" --target snarkd
ctest --test-dir build/release --output-on-failure -j "$jobs" -L heavy
