#!/usr/bin/env bash
# PoRep C2 end to end from the command line (a Release build; CTest label "heavy"): seal a test
# sector of SIZE with a fresh random ticket, seed and sector number, make test parameters (or
# reuse them from PARAMS_DIR), prove its C2 from the C1 JSON and from a Commit2In wrapper, and
# check each proof with `porep verify` (exit 0). A proof checked against other public data is
# invalid (exit 1); a C1 of another sector, a truncated parameter file and a short proof are
# refused with exit 2 and the file named.
set -u
snarkd="$1"
size="$2"
params_dir="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
hex32() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
fail() { echo "FAIL: $*"; exit 1; }
ticket=$(hex32)
seed=$(hex32)
sector=$(( $(od -An -N2 -tu2 /dev/urandom) + 1 ))
miner=1000

"$snarkd" porep seal --sector-size "$size" --miner-id $miner --sector $sector --ticket "$ticket" --seed "$seed" \
  --out "$dir/c1.json" > "$dir/seal.txt" || fail "seal"
proof_name=$(awk '/^registered proof /{print $3}' "$dir/seal.txt")
comm_d=$(awk '/^comm_d /{print $2}' "$dir/seal.txt")
comm_r=$(awk '/^comm_r /{print $2}' "$dir/seal.txt")

mkdir -p "$params_dir"
params="$params_dir/porep-test-$size.params"
vk="$params_dir/porep-test-$size.vk"
if [ ! -s "$params" ] || [ ! -s "$vk" ]; then
  "$snarkd" setup --porep "$size" --params "$params.tmp" --vk "$vk.tmp" 2> "$dir/setup.txt" || { cat "$dir/setup.txt"; fail "setup"; }
  mv "$params.tmp" "$params" && mv "$vk.tmp" "$vk"
fi

verify() {  # verify PROOF SECTOR SEED -> exit code
  "$snarkd" porep verify --registered-proof "$proof_name" --miner-id $miner --sector "$2" --ticket "$ticket" \
    --seed "$3" --comm-d "$comm_d" --comm-r "$comm_r" --vk "$vk" --proof "$1" > "$dir/verify.txt" 2>&1
}

"$snarkd" porep c2 "$dir/c1.json" --miner-id $miner --sector $sector --params "$params" --backend cpu \
  --out "$dir/proof.bin" > "$dir/c2.txt" 2>&1 || { cat "$dir/c2.txt"; fail "c2 (C1 JSON)"; }
grep -q "verified" "$dir/c2.txt" || fail "c2 did not say the proof verified"
verify "$dir/proof.bin" $sector "$seed"; rc=$?
[ $rc = 0 ] || { cat "$dir/verify.txt"; fail "verify: exit $rc"; }
echo "c2 from the C1 JSON: a valid $proof_name proof ($(stat -c %s "$dir/proof.bin") bytes)"

# Curio's cuzk client and lotus-bench send {"SectorNum", "Phase1Out": base64(C1 JSON), "SectorSize"}.
python3 - "$dir/c1.json" "$dir/commit2in.json" $sector <<'PY' || fail "wrapper"
import base64, json, sys
raw = open(sys.argv[1], "rb").read()
sizes = {"StackedDrg2KiBV1_1": 2048, "StackedDrg8MiBV1_1": 8 << 20, "StackedDrg512MiBV1_1": 512 << 20}
size = sizes[json.loads(raw)["registered_proof"]]
json.dump({"SectorNum": int(sys.argv[3]), "Phase1Out": base64.b64encode(raw).decode(), "SectorSize": size},
          open(sys.argv[2], "w"))
PY
"$snarkd" porep c2 "$dir/commit2in.json" --miner-id $miner --params "$params" --backend cpu \
  --out "$dir/proof2.bin" > "$dir/c2b.txt" 2>&1 || { cat "$dir/c2b.txt"; fail "c2 (Commit2In)"; }
verify "$dir/proof2.bin" $sector "$seed"; rc=$?
[ $rc = 0 ] || { cat "$dir/verify.txt"; fail "verify (Commit2In): exit $rc"; }
echo "c2 from a Commit2In wrapper: valid"

# Other public data: invalid (exit 1).
verify "$dir/proof.bin" $((sector + 1)) "$seed"; rc=$?
[ $rc = 1 ] || { cat "$dir/verify.txt"; fail "verify with another sector number: exit $rc, expected 1"; }
verify "$dir/proof.bin" $sector "$(hex32)"; rc=$?
[ $rc = 1 ] || { cat "$dir/verify.txt"; fail "verify with another seed: exit $rc, expected 1"; }
echo "other public data: invalid"

# Bad input: exit 2, the file named.
"$snarkd" porep c2 "$dir/c1.json" --miner-id $miner --sector $((sector + 1)) --params "$params" \
  --out "$dir/x.bin" > "$dir/bad.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "c1.json'.*replica_id" "$dir/bad.txt" || { cat "$dir/bad.txt"; fail "c2 of another sector: exit $rc"; }
head -c 100000 "$params" > "$dir/short.params"
"$snarkd" porep c2 "$dir/c1.json" --miner-id $miner --sector $sector --params "$dir/short.params" --backend cpu \
  --out "$dir/x.bin" > "$dir/bad.txt" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "short.params'.*truncated" "$dir/bad.txt" || { cat "$dir/bad.txt"; fail "truncated params: exit $rc"; }
[ ! -e "$dir/x.bin" ] || fail "a failed c2 wrote a proof"
head -c 191 "$dir/proof.bin" > "$dir/short.bin"
verify "$dir/short.bin" $sector "$seed"; rc=$?
[ $rc = 2 ] && grep -q "short.bin'" "$dir/verify.txt" || { cat "$dir/verify.txt"; fail "short proof: exit $rc"; }
echo "bad input: exit 2"
echo "porep c2 $size: all passed"
