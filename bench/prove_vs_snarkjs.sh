#!/usr/bin/env bash
# Whole-proof comparison in one run: `snarkd prove` against `snarkjs groth16 prove` on the same
# zkey and witness (the built-in chain circuit, written by `snarkd setup`), both curves.
#
#   bench/prove_vs_snarkjs.sh SNARKD_BINARY [CONSTRAINTS=65000] [RUNS=3]
# Prints the median wall time of each and the ratio. Needs tests/js/node_modules (npm install).
set -euo pipefail
snarkd=$(realpath "$1")
constraints=${2:-65000}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
snarkjs="node $here/../tests/js/node_modules/snarkjs/cli.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
time_runs() {  # command... -> median seconds over $runs runs
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
  done | median
}

printf "%-10s %12s %12s %12s %8s\n" curve constraints snarkd_s snarkjs_s ratio
for curve in bn254 bls12-381; do
  "$snarkd" setup --curve "$curve" --constraints "$constraints" --zkey "$work/k.zkey" \
    --wtns "$work/w.wtns" >/dev/null 2>&1
  ours=$(time_runs "$snarkd" prove "$work/k.zkey" "$work/w.wtns" "$work/p.json" "$work/q.json")
  theirs=$(time_runs $snarkjs groth16 prove "$work/k.zkey" "$work/w.wtns" "$work/p2.json" "$work/q2.json")
  printf "%-10s %12s %12.3f %12.3f %7.1fx\n" "$curve" "$constraints" "$ours" "$theirs" \
    "$(awk -v a="$theirs" -v b="$ours" 'BEGIN { print a / b }')"
done
