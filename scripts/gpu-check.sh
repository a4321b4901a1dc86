#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool), from the repository root, with the
# statically linked GPU binaries carried in build/release/gpu and build/release/snarkd:
#   build here:  cmake -S . -B build/release -DSNARKD_SERVER=OFF (the GPU machine has no gRPC), then
#                cmake --build build/release --target gpu_test gpu_bench gpu_prover_test snarkd
#   run there:   bash scripts/gpu-check.sh [all|kernels|prover|zkeys|large|engine|perf|perf-proofs|partition|fp64|copies] [quick]
# kernels: the kernel suite and gpu_bench; prover: the GPU prover suite and `snarkd bench prove`;
# zkeys: `snarkd prove --backend gpu` on each snarkjs key under $ZKEYS (default build/zkeys,
# dirs holding k.zkey and w.wtns), writing proof.json/public.json under $OUT/zkeys for
# `snarkjs groth16 verify` back on a machine with node; large: BLS12-381 at 2^26, 90% bits
# and random; engine: `snarkd bench engine` on the GPU (10-partition jobs), with
# timelines under $OUT/timelines; perf: a short before/after run (the suites without the 2^20
# cases, MSMs 2^20..2^24); perf-proofs: whole proofs at 2^16..2^24 on both curves (2^16 verified);
# partition: the PoRep-shaped circuit (25% of variables in B, mostly bits), verified at 2^16, then
# 2^24 and the PoRep-sized case (130M constraints, 2^27) with synthetic keys; fp64: the FP64-pipe
# field experiment (its device checks, `gpu_bench field` and `gpu_bench affine`); copies: shifted
# copies of the bases (their tests, `gpu_bench copies`, BLS12-381 2^24 proofs without and with).
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
  timeout 420 build/release/gpu/gpu_prover_test >"$out/gpu_prover_test.txt" 2>&1 || status=1
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
if [ "$mode" = zkeys ]; then
  for dir in "${ZKEYS:-build/zkeys}"/*/; do
    name=$(basename "$dir")
    mkdir -p "$out/zkeys/$name"
    if timeout 60 build/release/snarkd prove --backend gpu --timings "$dir/k.zkey" "$dir/w.wtns" \
        "$out/zkeys/$name/proof.json" "$out/zkeys/$name/public.json" >"$out/zkeys/$name/prove.txt" 2>&1 &&
      timeout 60 build/release/snarkd verify "$dir/vk.json" "$out/zkeys/$name/public.json" \
        "$out/zkeys/$name/proof.json" >>"$out/zkeys/$name/prove.txt" 2>&1; then
      echo "zkey $name: GPU proof made and verified by snarkd" >>"$out/zkeys.txt"
    else
      echo "zkey $name: FAILED (see zkeys/$name/prove.txt)" >>"$out/zkeys.txt"
      status=1
    fi
  done
fi
if [ "$mode" = large ]; then
  # Synthesis (the serial chain) and the synthetic key run on the host first: about two minutes
  # per witness kind at 2^26 on 16 cores.
  timeout 420 build/release/snarkd bench prove --curve bls12-381 --log-size 26 \
    --boolean-percent 90,0 --slots 1 --proofs 1 --setup-limit 16 --backend gpu \
    >"$out/bench_prove_bls12_381_2p26.txt" 2>&1 || status=1
fi
if [ "$mode" = perf ]; then
  # A short run comparing kernel versions: the suites without the 2^20 byte-identical cases
  # (their CPU reference proofs take minutes) and the MSMs at 2^20..2^24.
  timeout 150 build/release/gpu/gpu_test >"$out/gpu_test.txt" 2>&1 || status=1
  timeout 200 build/release/gpu/gpu_bench msm >"$out/gpu_bench.txt" 2>&1 || status=1
  timeout 200 build/release/gpu/gpu_prover_test --gtest_filter=-*MillionConstraint* \
    >"$out/gpu_prover_test.txt" 2>&1 || status=1
fi
if [ "$mode" = perf-proofs ]; then
  timeout 300 build/release/snarkd bench prove --curve bls12-381 --log-size 16,20,24 \
    --boolean-percent 0,90 --slots 1 --proofs 2 --setup-limit 16 --backend gpu \
    >"$out/bench_prove_bls12_381.txt" 2>&1 || status=1
  timeout 250 build/release/snarkd bench prove --curve bn254 --log-size 22,24 \
    --boolean-percent 0,90 --slots 1,2 --proofs 2 --setup-limit 16 --backend gpu \
    >"$out/bench_prove_bn254.txt" 2>&1 || status=1
fi
if [ "$mode" = partition ]; then
  timeout 100 build/release/snarkd bench prove --shape partition --curve bls12-381 --log-size 16,24 \
    --boolean-percent 95 --slots 1 --proofs 2 --setup-limit 16 --backend gpu \
    >"$out/bench_prove_partition.txt" 2>&1 || status=1
  peak=()  # peak host memory, where GNU time is installed
  [ -x /usr/bin/time ] && peak=(/usr/bin/time -v)
  # The PoRep-sized partition: 130M constraints in a 2^27 domain, key resident on the device.
  "${peak[@]}" timeout 470 build/release/snarkd bench prove --shape partition --curve bls12-381 \
    --log-size 27 --constraints 130000000 --boolean-percent 95 --slots 1 --proofs 2 --key synthetic \
    --backend gpu >"$out/bench_prove_partition_2p27.txt" 2>&1 || status=1
fi
if [ "$mode" = fp64 ]; then
  timeout 120 build/release/gpu/gpu_test --gtest_filter='GpuFp64Test.*:GpuFieldTest.*' \
    >"$out/gpu_test.txt" 2>&1 || status=1
  timeout 150 build/release/gpu/gpu_bench field >"$out/gpu_bench.txt" 2>&1 || status=1
  timeout 150 build/release/gpu/gpu_bench affine >>"$out/gpu_bench.txt" 2>&1 || status=1
fi
if [ "$mode" = copies ]; then
  # Shifted copies of the bases (--base-copies): their device tests, the MSMs at 2^24 with 1-4
  # copies against the plain bases in one process (the precomputation timed too), then whole
  # proofs without and with them. Each group of gpu_bench copies has its own limit (G2's bases
  # are twice G1's and their copies take about 3x as long to make).
  timeout 60 build/release/gpu/gpu_test --gtest_filter='*Msm*:*Copies*' >"$out/gpu_test.txt" 2>&1 || status=1
  timeout 60 build/release/gpu/gpu_prover_test --gtest_filter='*BaseCopies*' \
    >"$out/gpu_prover_test.txt" 2>&1 || status=1
  timeout 120 build/release/gpu/gpu_bench copies g1 >"$out/gpu_bench.txt" 2>&1 || status=1
  timeout 180 build/release/gpu/gpu_bench copies g2 >>"$out/gpu_bench.txt" 2>&1 || status=1
  for k in 1 0; do
    # With copies the key upload makes them: 14.9 s at 2^24 on an H100.
    timeout $((k ? 60 : 110)) build/release/snarkd bench prove --curve bls12-381 --log-size 24 --boolean-percent 0 \
      --slots 1 --proofs 2 --setup-limit 16 --backend gpu --base-copies $k \
      >"$out/bench_prove_bls12_381_copies$k.txt" 2>&1 || status=1
  done
fi
if [ "$mode" = engine ]; then
  mkdir -p "$out/timelines"
  run_engine() {  # name, then bench engine arguments
    local name=$1
    shift
    timeout 200 build/release/snarkd bench engine --backend gpu --synthesis-workers 8 \
      --timeline "$out/timelines/$name.jsonl" "$@" >"$out/bench_engine_$name.txt" 2>&1 || status=1
  }
  run_engine bn254_2p20_j1_s1 --curve bn254 --size 20 --partitions 10 -n 2 -j 1 --slots 1
  run_engine bn254_2p20_j2_s2 --curve bn254 --size 20 --partitions 10 -n 4 -j 2 --slots 2
  run_engine bls12_381_2p20_j2_s2 --curve bls12-381 --size 20 --partitions 10 -n 2 -j 2 --slots 2
  run_engine bn254_2p22_j2_s2 --curve bn254 --size 22 --partitions 10 -n 2 -j 2 --slots 2
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
[ -f "$out/zkeys.txt" ] && { echo "== zkeys"; cat "$out/zkeys.txt"; }
[ -f "$out/gpu_bench.txt" ] && { echo "== gpu_bench"; cat "$out/gpu_bench.txt"; }
for f in "$out"/bench_engine_*.txt; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f" .txt)"
  grep -E "^backend|^key |proofs completed|device [0-9]|FAILED" "$f"
done
for f in "$out"/bench_prove_*.txt; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f" .txt)"
  case "$f" in
    *2p2[67].txt) grep -vE "^\s+(Average|Exit|File|Minor|Major|Page|Signals|Socket|Swaps|Voluntary|Involuntary|Percent|System|User)" "$f" ;;
    *) grep -E "^== |slot|warm-up|backend|prove:|key:" "$f" ;;
  esac
done
exit "$status"
