#!/usr/bin/env bash
# The main job: install dependencies, build snarkd (release) and run it. For now the job is the
# self-check: which backend (GPU or CPU) is found, and a quick arithmetic self-test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNARKD_BUILD_TESTS=OFF >/dev/null
cmake --build build/release --target snarkd
./build/release/snarkd selfcheck
./build/release/snarkd demo
