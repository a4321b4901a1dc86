#!/usr/bin/env bash
# Interoperability with circom and snarkjs (the npm packages in tests/js), for both curves:
#   (a) snarkd's proof of a snarkjs key verifies with `snarkjs groth16 verify`
#   (b) snarkjs's proof verifies with `snarkd verify`
#   (c) a key from `snarkd setup --r1cs` proves and verifies in snarkjs (and in snarkd)
#   (d) tampered proofs and public inputs are rejected by both
#   (e) truncated, corrupted, wrong-curve and mismatched inputs give exit code 2 and a message
#
#   interop.sh SNARKD_BINARY WORK_DIR
# Powers-of-tau files are cached in WORK_DIR/ptau (they dominate the run time).
set -uo pipefail
snarkd=$(realpath "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
js="$here/../js/node_modules"
if [ ! -x "$js/.bin/circom2" ] || [ ! -f "$js/snarkjs/cli.js" ]; then
  echo "interop: snarkjs/circom2 missing; run: (cd tests/js && npm install --no-package-lock)"
  exit 1
fi
snarkjs() { node "$js/snarkjs/cli.js" "$@"; }
circom2() { "$js/.bin/circom2" "$@"; }
mkdir -p "$work/ptau"

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "  ok    $1"; }
bad() { failed=$((failed + 1)); echo "  FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/        /' "$2" | head -20; }

# expect RC NAME -- command...: the command must exit with RC.
expect() {
  local want=$1 name=$2
  shift 3
  local log
  log=$(mktemp)
  "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$name"; else bad "$name (exit $rc, wanted $want)" "$log"; fi
  rm -f "$log"
}
# expect_message RC TEXT NAME -- command...: exit RC and TEXT in the output.
expect_message() {
  local want=$1 text=$2 name=$3
  shift 4
  local log
  log=$(mktemp)
  "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -q -- "$text" "$log"; then
    ok "$name"
  else
    bad "$name (exit $rc, wanted $want with '$text')" "$log"
  fi
  rm -f "$log"
}

ptau_for() {  # curve -> prepared ptau of power 10, made once
  local curve=$1 out="$work/ptau/pot10_$1.ptau"
  if [ ! -s "$out" ]; then
    echo "making $out (cached for later runs)" >&2
    snarkjs powersoftau new "$curve" 10 "$work/ptau/$curve.0.ptau" >/dev/null &&
      snarkjs powersoftau contribute "$work/ptau/$curve.0.ptau" "$work/ptau/$curve.1.ptau" \
        --name=interop -e=snarkd-interop-entropy >/dev/null &&
      snarkjs powersoftau prepare phase2 "$work/ptau/$curve.1.ptau" "$out.tmp" >/dev/null &&
      mv "$out.tmp" "$out"
    rm -f "$work/ptau/$curve.0.ptau" "$work/ptau/$curve.1.ptau"
  fi
  [ -s "$out" ] || { echo "interop: cannot make $out" >&2; exit 1; }
  echo "$out"
}

# Replaces the first decimal digit of pi_a's x with another digit.
tamper_proof() {
  node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1]));
    const x = p.pi_a[0];
    p.pi_a[0] = (x[0] === "1" ? "2" : "1") + x.slice(1);
    fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$1" "$2"
}
tamper_public() {
  node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1]));
    p[0] = (BigInt(p[0]) + 1n).toString();
    fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$1" "$2"
}

for curve in bn128 bls12381; do
  echo "== $curve"
  ptau=$(ptau_for "$curve") || exit 1
  for circuit in mult nopublic chain bits; do
    d="$work/$curve/$circuit"
    rm -rf "$d"
    mkdir -p "$d"
    opt=""
    [ "$circuit" = chain ] && opt="--O0"
    if ! circom2 "$here/circuits/$circuit.circom" --r1cs --wasm --prime "$curve" $opt -o "$d" >"$d/compile.log" 2>&1; then
      bad "$curve/$circuit: circom2 compile" "$d/compile.log"
      continue
    fi
    node "$d/${circuit}_js/generate_witness.js" "$d/${circuit}_js/$circuit.wasm" \
      "$here/circuits/$circuit.input.json" "$d/w.wtns" >"$d/wtns.log" 2>&1 || bad "$curve/$circuit: witness" "$d/wtns.log"
    snarkjs groth16 setup "$d/$circuit.r1cs" "$ptau" "$d/k.zkey" >"$d/setup.log" 2>&1
    if [ ! -s "$d/k.zkey" ]; then bad "$curve/$circuit: snarkjs setup" "$d/setup.log"; continue; fi
    snarkjs zkey export verificationkey "$d/k.zkey" "$d/vk.json" >/dev/null 2>&1
    c="$curve/$circuit"

    # (a) our proof, their verifier (and ours)
    expect 0 "$c: snarkd prove" -- "$snarkd" prove "$d/k.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json"
    expect 0 "$c: snarkjs verifies snarkd's proof" -- snarkjs groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json"
    expect 0 "$c: snarkd verifies snarkd's proof" -- "$snarkd" verify "$d/vk.json" "$d/public.json" "$d/proof.json"
    # (b) their proof, our verifier
    snarkjs groth16 prove "$d/k.zkey" "$d/w.wtns" "$d/sj_proof.json" "$d/sj_public.json" >/dev/null 2>&1
    expect 0 "$c: snarkd verifies snarkjs's proof" -- "$snarkd" verify "$d/vk.json" "$d/sj_public.json" "$d/sj_proof.json"
    if cmp -s "$d/public.json" "$d/sj_public.json" || node -e '
        const fs=require("fs"); const a=JSON.parse(fs.readFileSync(process.argv[1])), b=JSON.parse(fs.readFileSync(process.argv[2]));
        process.exit(JSON.stringify(a)===JSON.stringify(b)?0:1)' "$d/public.json" "$d/sj_public.json"; then
      ok "$c: public.json equals snarkjs's"
    else
      bad "$c: public.json differs from snarkjs's"
    fi
    # (c) our setup, their prover and verifier
    expect 0 "$c: snarkd setup --r1cs" -- "$snarkd" setup --r1cs "$d/$circuit.r1cs" --zkey "$d/ours.zkey" --vk "$d/ours_vk.json"
    snarkjs groth16 prove "$d/ours.zkey" "$d/w.wtns" "$d/o_proof.json" "$d/o_public.json" >/dev/null 2>&1
    expect 0 "$c: snarkjs proves+verifies with snarkd's key" -- snarkjs groth16 verify "$d/ours_vk.json" "$d/o_public.json" "$d/o_proof.json"
    snarkjs zkey export verificationkey "$d/ours.zkey" "$d/ours_vk_sj.json" >/dev/null 2>&1
    expect 0 "$c: snarkjs's export of snarkd's key verifies" -- snarkjs groth16 verify "$d/ours_vk_sj.json" "$d/o_public.json" "$d/o_proof.json"
    expect 0 "$c: snarkd proves with its own key" -- "$snarkd" prove "$d/ours.zkey" "$d/w.wtns" "$d/oo_proof.json" "$d/oo_public.json"
    expect 0 "$c: snarkjs verifies that proof" -- snarkjs groth16 verify "$d/ours_vk.json" "$d/oo_public.json" "$d/oo_proof.json"
    # (d) tampering
    tamper_proof "$d/proof.json" "$d/t_proof.json"
    expect 1 "$c: snarkjs rejects a tampered proof" -- snarkjs groth16 verify "$d/vk.json" "$d/public.json" "$d/t_proof.json"
    expect 2 "$c: snarkd rejects a tampered proof (off the curve)" -- "$snarkd" verify "$d/vk.json" "$d/public.json" "$d/t_proof.json"
    expect 1 "$c: snarkd rejects another statement's proof" -- "$snarkd" verify "$d/vk.json" "$d/public.json" "$d/o_proof.json"
    if [ "$circuit" != nopublic ]; then
      tamper_public "$d/public.json" "$d/t_public.json"
      expect 1 "$c: snarkjs rejects tampered public inputs" -- snarkjs groth16 verify "$d/vk.json" "$d/t_public.json" "$d/proof.json"
      expect 1 "$c: snarkd rejects tampered public inputs" -- "$snarkd" verify "$d/vk.json" "$d/t_public.json" "$d/proof.json"
    fi
  done
done

# (e) bad inputs: exit 2 and a message naming the problem.
echo "== bad inputs"
bn="$work/bn128/mult"
bls="$work/bls12381/mult"
other="$work/bn128/chain"
size=$(stat -c %s "$bn/k.zkey")
head -c $((size / 2)) "$bn/k.zkey" >"$work/truncated.zkey"
expect_message 2 "claims" "truncated zkey" -- "$snarkd" prove "$work/truncated.zkey" "$bn/w.wtns" "$work/p.json" "$work/q.json"
cp "$bn/k.zkey" "$work/corrupt.zkey"
printf 'XXXX' | dd of="$work/corrupt.zkey" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_message 2 "not a .zkey file" "corrupted magic" -- "$snarkd" prove "$work/corrupt.zkey" "$bn/w.wtns" "$work/p.json" "$work/q.json"
cp "$bn/k.zkey" "$work/corrupt2.zkey"
# Byte 60 lies inside section 2's prime q.
printf '\x01' | dd of="$work/corrupt2.zkey" bs=1 seek=60 conv=notrunc 2>/dev/null
expect_message 2 "prime" "corrupted header prime" -- "$snarkd" prove "$work/corrupt2.zkey" "$bn/w.wtns" "$work/p.json" "$work/q.json"
expect_message 2 "scalar field" "witness of the other curve" -- "$snarkd" prove "$bn/k.zkey" "$bls/w.wtns" "$work/p.json" "$work/q.json"
expect_message 2 "another circuit" "witness of another circuit" -- "$snarkd" prove "$bn/k.zkey" "$other/w.wtns" "$work/p.json" "$work/q.json"
expect_message 2 "cannot open" "missing file" -- "$snarkd" prove "$work/nope.zkey" "$bn/w.wtns" "$work/p.json" "$work/q.json"
expect_message 2 "BLS12-381 proof" "proof of the other curve" -- "$snarkd" verify "$bn/vk.json" "$bn/public.json" "$bls/proof.json"
echo '{"pi_a": 1}' >"$work/junk.json"
expect_message 2 "pi_a" "malformed proof JSON" -- "$snarkd" verify "$bn/vk.json" "$bn/public.json" "$work/junk.json"
expect_message 2 "public inputs" "wrong number of public inputs" -- "$snarkd" verify "$bn/vk.json" "$other/public.json" "$bn/proof.json"
head -c 100 "$bn/w.wtns" >"$work/truncated.wtns"
expect_message 2 "wtns" "truncated witness" -- "$snarkd" prove "$bn/k.zkey" "$work/truncated.wtns" "$work/p.json" "$work/q.json"
# A witness that does not satisfy the circuit: the proof is refused, nothing is written.
node -e '
  const fs = require("fs");
  const b = fs.readFileSync(process.argv[1]);
  b[b.length - 1] ^= 1;
  fs.writeFileSync(process.argv[2], b);' "$bn/w.wtns" "$work/wrong.wtns"
rm -f "$work/p.json"
expect_message 2 "does not satisfy" "unsatisfying witness" -- "$snarkd" prove "$bn/k.zkey" "$work/wrong.wtns" "$work/p.json" "$work/q.json"
if [ -e "$work/p.json" ]; then bad "unsatisfying witness wrote a proof"; else ok "unsatisfying witness wrote nothing"; fi

echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
