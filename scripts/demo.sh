#!/usr/bin/env bash
# The main job: install dependencies, build snarkd (Release), self-check, then Filecoin PoRep on
# a 2 KiB test sector: seal it (its C1 output), make test parameters (once: kept in
# build/release/porep-test-params/ for the next run), prove its C2 on the default backend with
# per-stage timings, and verify the proof as verify_seal does.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target snarkd
snarkd=./build/release/snarkd
$snarkd selfcheck

start=$(date +%s.%N)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
params_dir=build/release/porep-test-params
params=$params_dir/porep-test-2KiB.params
vk=$params_dir/porep-test-2KiB.vk
# The embedded default: miner t01000, sector 1, fixed ticket and seed (any 32 bytes work).
ticket=0101010101010101010101010101010101010101010101010101010101010101
seed=0202020202020202020202020202020202020202020202020202020202020202
step() { echo; echo "== $*"; }

step "1. seal a 2 KiB test sector (CC: zeros) and write its C1 output"
$snarkd porep seal --sector-size 2KiB --miner-id 1000 --sector 1 --ticket $ticket --seed $seed --out "$work/c1.json" \
  | tee "$work/seal.txt"
comm_d=$(awk '/^comm_d /{print $2}' "$work/seal.txt")
comm_r=$(awk '/^comm_r /{print $2}' "$work/seal.txt")

step "2. test parameters for the 2 KiB PoRep circuit (single-party setup: NOT for production)"
if [ -s "$params" ] && [ -s "$vk" ]; then
  echo "cached: $params"
else
  mkdir -p "$params_dir"
  $snarkd setup --porep 2KiB --params "$params.tmp" --vk "$vk.tmp"
  mv "$params.tmp" "$params" && mv "$vk.tmp" "$vk"
fi

step "3. C2: the C1 output to the proof, through the engine (default backend), with stage timings"
$snarkd porep c2 "$work/c1.json" --miner-id 1000 --sector 1 --params "$params" --out "$work/proof.bin"

step "4. verify the proof against the sector's public data"
$snarkd porep verify --registered-proof StackedDrg2KiBV1_1 --miner-id 1000 --sector 1 --ticket $ticket --seed $seed \
  --comm-d "$comm_d" --comm-r "$comm_r" --vk "$vk" --proof "$work/proof.bin"
echo
echo "PoRep main job (seal, parameters, C2, verify) in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}') s"
