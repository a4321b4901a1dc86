#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool), from the repository root: issue 36's PoRep C2
# scenario, `snarkd bench porep`, with the statically linked binaries carried in $BIN (default
# build/release; build them here with -DSNARKD_SERVER=OFF -DSNARKD_CUDA=ON, targets snarkd and
# gpu_prover_test).
#   bash scripts/gpu-porep-bench.sh sanity             the GPU prover's adoption, streaming, host-
#                                                      evaluation and engine tests, then 2 KiB C2
#                                                      proofs with test parameters made there
#                                                      (every proof verified)
#   bash scripts/gpu-porep-bench.sh run SIZE C J [LIMIT]  `bench porep --sector-size SIZE -c C -j J` on
#                                                      the GPU (synthetic key), LIMIT: --gpu-memory-limit;
#                                                      env SLOTS: --slots (2 lets a host-evaluated
#                                                      placement compute one proof's a, b, c while
#                                                      another holds the device)
# Writes every log under $OUT (default /tmp/snarkd-porep-bench): the bench's report, its timeline (JSON
# lines and a Perfetto trace beside it), /usr/bin/time's peak RSS, and the device memory in use sampled each second.
set -uo pipefail
mode=${1:-sanity}
bin=${BIN:-build/release}
out=${OUT:-/tmp/snarkd-porep-bench}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$out/gpu.txt" 2>&1
nproc >>"$out/gpu.txt"
free -g >>"$out/gpu.txt"
status=0
# The device memory in use, once a second, while the steps run.
(while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null; sleep 1; done) \
  >"$out/device-memory-$mode.txt" &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT
step() {  # step NAME SECONDS COMMAND...: the command's output and peak RSS under $OUT/NAME.txt
  local name=$1 limit=$2
  shift 2
  local t0=$(date +%s)
  /usr/bin/time -v timeout "$limit" "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc in $(($(date +%s) - t0)) s; $(grep 'Maximum resident' "$out/$name.txt" | tr -s ' ')" \
    | tee -a "$out/summary.txt"
  [ $rc -eq 0 ] || status=1
}
if [ "$mode" = sanity ]; then
  step gpu_prover_test 200 "$bin/gpu_prover_test" \
    --gtest_filter='*AdoptedKeysProveAsBefore*:*StreamedKeysMatch*:*ProofsMatchTheCpuProver*:*EvaluationOnTheCpuMatches*:*RejectsAWitness*:GpuEngineTest.*'
  params=/tmp/snarkd-porep-2KiB
  mkdir -p "$params"
  [ -s "$params/p.params" ] || step setup_2KiB 200 "$bin/snarkd" setup --porep 2KiB --params "$params/p.params" --vk "$params/p.vk"
  step bench_porep_2KiB 200 "$bin/snarkd" bench porep --sector-size 2KiB -c 4 -j 4 --params "$params/p.params" \
    --backend gpu --timeline "$out/timeline-2KiB.jsonl"
elif [ "$mode" = run ]; then
  size=$2 c=$3 j=$4 limit=${5:-}
  name="bench_porep_${size}_c${c}_j${j}${limit:+_limit$limit}"
  step "$name" "${SECONDS_LIMIT:-585}" "$bin/snarkd" bench porep --sector-size "$size" -c "$c" -j "$j" --backend gpu \
    --timeline "$out/timeline-$name.jsonl" ${limit:+--gpu-memory-limit "$limit"} ${SLOTS:+--slots "$SLOTS"}
  sort -n "$out/device-memory-$mode.txt" | tail -1 | sed "s/^/$name: peak device memory in use (MiB, nvidia-smi): /" \
    | tee -a "$out/summary.txt"
else
  echo "usage: $0 sanity | run SIZE C J [LIMIT]" >&2
  exit 2
fi
exit $status
