#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool), from the repository root, with the
# statically linked GPU binaries carried in build/release/gpu:
#   build here:  cmake --build build/release --target gpu_test gpu_bench snarkd
#   run there:   bash scripts/gpu-check.sh     (carry build/release/gpu and build/release/snarkd)
# Writes full logs under $OUT (when set) and prints a short table last.
set -uo pipefail
out=${OUT:-/tmp/snarkd-gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >"$out/gpu.txt" 2>&1
status=0
build/release/snarkd info >"$out/info.txt" 2>&1 || status=1
build/release/gpu/gpu_test >"$out/gpu_test.txt" 2>&1 || status=1
build/release/gpu/gpu_bench >"$out/gpu_bench.txt" 2>&1 || status=1
echo "== GPU"
cat "$out/gpu.txt"
echo "== snarkd info"
cat "$out/info.txt"
echo "== gpu_test"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED" "$out/gpu_test.txt" | tail -15
echo "== gpu_bench"
cat "$out/gpu_bench.txt"
exit "$status"
