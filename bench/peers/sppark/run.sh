#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .peers/sppark carried (populate.sh made it):
# sppark's NTT and ours at 2^27 in one process layout and on one card (issue 36's comparison),
# the Fr product and butterfly throughput of sppark's mont_t against our forms, each binary's
# SASS, and per-kernel Nsight Compute metrics. Logs under $OUT.
#   run(command="bash bench/peers/sppark/run.sh", carry=[".peers"])   (NCU=0: without Nsight Compute)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
sp="$root/.peers/sppark"
out=${OUT:-/tmp/sppark-peer}
build=$(mktemp -d)
mkdir -p "$out"
[ -d "$sp/ntt" ] || { echo "no $sp: run bench/peers/sppark/populate.sh here and carry .peers" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$out/gpu.txt"
nvcc=/usr/local/cuda/bin/nvcc
f="-O3 -arch=sm_90"
cd "$build"
# sppark's own sources are built only here, from the ignored copy; the stub stands in for blst's
# host header (the drivers do no host arithmetic).
$nvcc -std=c++17 $f -DFEATURE_BLS12_381 -I"$sp" -I"$here/stub" -I"$here" "$here/sp_mul.cu" -o sp_mul &
$nvcc -std=c++20 $f -I"$root/src" -I"$here" "$here/eng_mul.cu" -o eng_mul &
$nvcc -std=c++17 $f -DFEATURE_BLS12_381 -I"$sp" -I"$here/stub" "$here/ntt_time.cu" "$sp/util/all_gpus.cpp" -o ntt_time &
$nvcc -std=c++20 $f -I"$root/src" "$here/eng_ntt.cu" "$root/src/base/thread_pool.cc" "$root/src/base/status.cc" -o eng_ntt &
wait
{ ./sp_mul; ./eng_mul; ./ntt_time 27; ./eng_ntt 27; ./ntt_time 27; ./eng_ntt 27; } 2>&1 | tee "$out/times.txt"
for b in sp_mul eng_mul ntt_time eng_ntt; do cuobjdump -sass $b > "$out/$b.sass" 2>&1; done
[ "${NCU:-1}" = 0 ] && exit 0  # NCU=0: times and SASS only
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
timeout 200 ncu --metrics $m -k regex:'_GS_NTT|_CT_NTT' ./ntt_time 27 once > "$out/ncu_sppark.txt" 2>&1
timeout 200 ncu --metrics $m -k regex:radix_pass ./eng_ntt 27 once > "$out/ncu_ours.txt" 2>&1
grep -E "NTT|radix|time_duration|dram__|issue_active|warps_active|inst_executed.sum|registers" "$out/ncu_sppark.txt" "$out/ncu_ours.txt" | head -120
