#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool), from the repository root, with the
# statically linked GPU binaries carried in build/release/gpu:
#   build here:  cmake --build build/release --target gpu_test gpu_bench snarkd
#   run there:   bash scripts/gpu-check.sh [quick]   (carry build/release/gpu and build/release/snarkd)
# Writes full logs under $OUT (when set) and prints a short table last. Time limits keep one
# device call under its 10-minute cap.
set -uo pipefail
out=${OUT:-/tmp/snarkd-gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >"$out/gpu.txt" 2>&1
status=0
build/release/snarkd info >"$out/info.txt" 2>&1 || status=1
timeout 240 build/release/gpu/gpu_test >"$out/gpu_test.txt" 2>&1 || status=1
timeout 330 build/release/gpu/gpu_bench ${1:-} >"$out/gpu_bench.txt" 2>&1 || status=1
echo "== GPU"
cat "$out/gpu.txt"
echo "== snarkd info"
cat "$out/info.txt"
echo "== gpu_test"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED|Failure|error" "$out/gpu_test.txt" | tail -25
echo "== gpu_bench"
cat "$out/gpu_bench.txt"
exit "$status"
