#!/usr/bin/env bash
# cuzk.v1 compatibility (CTest label "heavy", Release build): `snarkd serve` with Curio's API on
# its listener, driven by a client that is not ours (tests/server/cuzk_client.mjs: @grpc/grpc-js),
# proving the C2 of a freshly sealed 2 KiB test sector from Curio's wrapper; the proof it gets
# back is checked with `snarkd porep verify` (exit 0).
#
#   cuzk.sh SNARKD_BINARY WORK_DIR PARAMS_DIR
# PARAMS_DIR holds the 2 KiB test parameters the heavy PoRep tests share (made here if absent).
set -uo pipefail
snarkd=$(realpath "$1")
work=$2
params_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" "$params_dir"
pid=""
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
hex32() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }

params="$params_dir/porep-test-2KiB.params"
vk="$params_dir/porep-test-2KiB.vk"
if [ ! -s "$params" ] || [ ! -s "$vk" ]; then
  "$snarkd" setup --porep 2KiB --params "$params.tmp" --vk "$vk.tmp" 2> "$work/setup.txt" || { cat "$work/setup.txt"; fail "setup"; }
  mv "$params.tmp" "$params" && mv "$vk.tmp" "$vk"
fi

ticket=$(hex32); seed=$(hex32); sector=$(( $(od -An -N2 -tu2 /dev/urandom) + 1 )); miner=1000
"$snarkd" porep seal --sector-size 2KiB --miner-id $miner --sector $sector --ticket "$ticket" --seed "$seed" \
  --out "$work/c1.json" > "$work/seal.txt" || fail "seal"
comm_d=$(awk '/^comm_d /{print $2}' "$work/seal.txt")
comm_r=$(awk '/^comm_r /{print $2}' "$work/seal.txt")
# Curio's wrapper, as Go's encoding/json writes it: no spaces, standard base64 with padding.
python3 - "$work/c1.json" "$work/wrapper.json" $sector <<'PY' || fail "wrapper"
import base64, json, sys
raw = open(sys.argv[1], "rb").read()
open(sys.argv[2], "w").write(json.dumps({"SectorNum": int(sys.argv[3]), "Phase1Out": base64.b64encode(raw).decode(),
                                         "SectorSize": 2048}, separators=(",", ":")))
PY

# One synthesis worker and one CPU prover: the cancelled jobs must not race the first proof.
cat > "$work/snarkd.toml" <<TOML
listen = "unix://$work/cuzk.sock"
http_listen = ""
[engine]
backend = "cpu"
synthesis_workers = 1
max_retries = 0
[cuzk.keys]
"porep-2k" = "bellperson:porep:2KiB@$params"
TOML
"$snarkd" serve --config "$work/snarkd.toml" > "$work/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -S "$work/cuzk.sock" ] && break; sleep 0.1; done
[ -S "$work/cuzk.sock" ] || { cat "$work/daemon.log"; fail "the daemon did not start"; }

timeout 1200 node "$here/cuzk_client.mjs" "unix://$work/cuzk.sock" "$work/wrapper.json" $miner $sector "$work/proof.bin"
client=$?
"$snarkd" porep verify --registered-proof StackedDrg2KiBV1_1 --miner-id $miner --sector $sector --ticket "$ticket" \
  --seed "$seed" --comm-d "$comm_d" --comm-r "$comm_r" --vk "$vk" --proof "$work/proof.bin" > "$work/verify.txt" 2>&1
verified=$?
# snarkd's bench over cuzk.v1, as cuzk-bench drives cuzk: two proofs, both in flight.
timeout 900 "$snarkd" bench daemon --api cuzk --addr "unix://$work/cuzk.sock" --c1 "$work/wrapper.json" \
  --miner-id $miner --sector $sector -c 2 -j 2 > "$work/bench.txt" 2>&1
benched=$?
cat "$work/bench.txt"
kill -TERM "$pid"; wait "$pid"; stopped=$?; pid=""
[ $client = 0 ] || { tail -30 "$work/daemon.log"; fail "the cuzk client (exit $client)"; }
[ $verified = 0 ] || { cat "$work/verify.txt"; fail "porep verify of the proof Prove returned: exit $verified"; }
[ $benched = 0 ] && grep -q "^2/2 proofs in" "$work/bench.txt" && [ "$(grep -c 'COMPLETED — ' "$work/bench.txt")" = 2 ] &&
  grep -q "kernel-busy" "$work/bench.txt" || fail "bench daemon --api cuzk (exit $benched)"
[ $stopped = 0 ] || fail "the daemon exited $stopped on SIGTERM"
echo "cuzk: the proof Prove returned verifies; all passed"
