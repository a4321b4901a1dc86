#!/usr/bin/env bash
# snarkd porep from the command line: seal a 2 KiB test sector with a fresh random ticket and
# seed, check its C1 (JSON and bincode), derive the public inputs from the ids alone and compare
# them with what the C1 holds, and see corrupt C1 files refused with exit 2 and the field named.
set -u
snarkd="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
hex32() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
ticket=$(hex32)
seed=$(hex32)
fail() { echo "FAIL: $*"; exit 1; }

"$snarkd" porep seal --sector-size 2KiB --miner-id 1234 --sector 77 --ticket "$ticket" --seed "$seed" \
  --out "$dir/c1.json" > "$dir/seal.txt" || fail "seal"
"$snarkd" porep seal --sector-size 2KiB --miner-id 1234 --sector 77 --ticket "$ticket" --seed "$seed" \
  --out "$dir/c1.bin" --bincode > /dev/null || fail "seal --bincode"
"$snarkd" porep check-c1 "$dir/c1.json" | grep -q "a valid StackedDrg2KiBV1_1 C1 output" || fail "check-c1 json"
"$snarkd" porep check-c1 "$dir/c1.bin" --registered-proof StackedDrg2KiBV1_1 | grep -q "a valid" || fail "check-c1 bincode"
size=$(stat -c %s "$dir/c1.bin")
# supraseal's size arithmetic for a 2 KiB C1: 14,036 bytes a challenge, 28,248 in all.
[ "$size" = 28248 ] || fail "bincode size $size, expected 28248"

comm_d=$(awk '/^comm_d /{print $2}' "$dir/seal.txt")
comm_r=$(awk '/^comm_r /{print $2}' "$dir/seal.txt")
replica=$(awk '/^replica id /{print $3}' "$dir/seal.txt")
"$snarkd" porep public-inputs --registered-proof 5 --miner-id 1234 --sector 77 --ticket "$ticket" --seed "$seed" \
  --comm-d "$comm_d" --comm-r "$comm_r" --json > "$dir/inputs.json" || fail "public-inputs"
python3 - "$dir/inputs.json" "$dir/c1.json" "$replica" <<'PY' || fail "public inputs differ from the C1"
import json, sys
inputs = json.load(open(sys.argv[1]))
c1 = json.load(open(sys.argv[2]))
assert inputs["replica_id"] == sys.argv[3], "replica id"
assert bytes(c1["replica_id"]).hex() == sys.argv[3]
part = inputs["partitions"][0]
proofs = c1["vanilla_proofs"]["StackedDrg2KiBV1"][0]
assert len(part["inputs"]) == 3 + 18 * len(proofs)
def num(h): return int.from_bytes(bytes.fromhex(h), "little")
def leaf_index(proof):
    body = list(proof["data"].values())[0]
    idx, scale = 0, 1
    for e in body["path"]["path"]:
        idx += e["index"] * scale
        scale *= len(e["hashes"]) + 1
    return idx
for i, p in enumerate(proofs):
    got = [num(h) for h in part["inputs"][3 + 18 * i: 3 + 18 * (i + 1)]]
    rc = p["replica_column_proofs"]
    want = ([leaf_index(p["comm_d_proofs"])] + [c["column"]["index"] for c in rc["drg_parents"]] +
            [c["column"]["index"] for c in rc["exp_parents"]] + [p["labeling_proofs"][0]["node"]] +
            [leaf_index(p["comm_r_last_proof"]), rc["c_x"]["column"]["index"]])
    assert got == want, (got, want)
    assert part["challenges"][i] == want[0]
print("public inputs match")
PY

expect_refusal() {  # file, expected message
  out=$("$snarkd" porep check-c1 "$1" 2>&1)
  code=$?
  [ "$code" = 2 ] || fail "exit $code for $1: $out"
  echo "$out" | grep -qF "$2" || fail "message for $1: $out (wanted: $2)"
}
head -c 5000 "$dir/c1.json" > "$dir/truncated.json"
expect_refusal "$dir/truncated.json" "not valid JSON"
sed 's/"registered_proof":"StackedDrg2KiBV1_1"/"registered_proof":"StackedDrg8MiBV1_1"/' "$dir/c1.json" > "$dir/size.json"
expect_refusal "$dir/size.json" "vanilla_proofs.StackedDrg2KiBV1: the proofs of another sector size"
sed 's/"registered_proof":"StackedDrg2KiBV1_1"/"registered_proof":"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"/' "$dir/c1.json" > "$dir/ni.json"
expect_refusal "$dir/ni.json" "1 partitions, but StackedDrg2KiBV1_2_Feat_NonInteractivePoRep has 13"
sed 's/"layer_index":2/"layer_index":"2"/' "$dir/c1.json" > "$dir/type.json"
expect_refusal "$dir/type.json" "labeling_proofs[1].layer_index: expected an unsigned integer"
python3 - "$dir/c1.json" "$dir/seed.json" <<'PY'
import json, sys
c1 = json.load(open(sys.argv[1]))
c1["seed"][0] ^= 1
json.dump(c1, open(sys.argv[2], "w"))
PY
expect_refusal "$dir/seed.json" "the challenge is"
head -c 1000 "$dir/c1.bin" > "$dir/truncated.bin"
out=$("$snarkd" porep check-c1 "$dir/truncated.bin" --registered-proof 5 2>&1); code=$?
[ "$code" = 2 ] && echo "$out" | grep -q "byte" || fail "truncated bincode: exit $code: $out"
out=$("$snarkd" porep parents --registered-proof 20 --node 1 2>&1); code=$?
[ "$code" = 2 ] && echo "$out" | grep -q "registered seal proof 20 does not exist" || fail "bad proof: $out"
echo "porep cli: all passed"
