#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool), from the repository root, with the
# statically linked GPU binaries carried in build/release/gpu and build/release/snarkd:
#   build here:  cmake --build build/release --target gpu_test gpu_bench gpu_prover_test snarkd
#   run there:   bash scripts/gpu-check.sh [all|kernels|prover] [quick]
# kernels: the kernel suite and gpu_bench; prover: the GPU prover suite and `snarkd bench prove`.
# Writes full logs under $OUT (when set) and prints a short table last. Time limits keep one
# device call under its 10-minute cap.
set -uo pipefail
mode=${1:-all}
quick=${2:-}
out=${OUT:-/tmp/snarkd-gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >"$out/gpu.txt" 2>&1
status=0
build/release/snarkd info >"$out/info.txt" 2>&1 || status=1
if [ "$mode" = all ] || [ "$mode" = kernels ]; then
  timeout 240 build/release/gpu/gpu_test >"$out/gpu_test.txt" 2>&1 || status=1
  timeout 330 build/release/gpu/gpu_bench $quick >"$out/gpu_bench.txt" 2>&1 || status=1
fi
if [ "$mode" = all ] || [ "$mode" = prover ]; then
  timeout 200 build/release/gpu/gpu_prover_test >"$out/gpu_prover_test.txt" 2>&1 || status=1
  sizes_bls=16,20,24
  sizes_bn=20,22,24
  [ -n "$quick" ] && sizes_bls=16,20 && sizes_bn=16
  # Keys above 2^16 are synthetic (random points: timing only) so the CPU setup does not eat
  # the device time; the 2^16 runs and gpu_prover_test verify every proof.
  timeout 220 build/release/snarkd bench prove --curve bls12-381 --log-size $sizes_bls \
    --boolean-percent 0,90 --slots 1,2 --proofs 3 --setup-limit 16 --backend gpu \
    >"$out/bench_prove_bls12_381.txt" 2>&1 || status=1
  timeout 150 build/release/snarkd bench prove --curve bn254 --log-size $sizes_bn \
    --boolean-percent 90 --slots 1,2 --proofs 3 --setup-limit 16 --backend gpu \
    >"$out/bench_prove_bn254.txt" 2>&1 || status=1
fi
echo "== GPU"
cat "$out/gpu.txt"
echo "== snarkd info"
cat "$out/info.txt"
for suite in gpu_test gpu_prover_test; do
  [ -f "$out/$suite.txt" ] || continue
  echo "== $suite"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED|Failure|error" "$out/$suite.txt" | tail -25
done
[ -f "$out/gpu_bench.txt" ] && { echo "== gpu_bench"; cat "$out/gpu_bench.txt"; }
for f in "$out"/bench_prove_*.txt; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f" .txt)"
  grep -E "^== |slot|warm-up|backend|prove:|key:" "$f"
done
exit "$status"
