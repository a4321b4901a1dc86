#!/usr/bin/env bash
# The daemon as a process: `snarkd serve` on a unix socket, driven by the client commands.
#   (a) a malformed or unknown-key config is refused (exit 2) naming the key
#   (b) the socket is created with mode 0660
#   (c) `snarkd prove --addr` on zkeys of both curves; snarkjs verifies the proofs
#   (d) status, keys, submit, await (with a timeout), cancel, bench daemon
#   (e) SIGTERM with jobs in flight drains: exit 0 within the drain deadline, timeline written
#
#   daemon.sh SNARKD_BINARY WORK_DIR
# Every step has a time limit; the trap stops the daemon whatever happens.
set -uo pipefail
snarkd=$(realpath "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
js="$here/../js/node_modules"
rm -rf "$work" && mkdir -p "$work"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "  ok    $1"; }
bad() { failed=$((failed + 1)); echo "  FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/        /' "$2" | tail -20; }
pid=""
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; }
trap cleanup EXIT

# (a) config errors
printf 'listen = "unix://%s/s.sock"\n[engine]\ngpu_slotz = 2\n' "$work" >"$work/bad.toml"
timeout 20 "$snarkd" serve --config "$work/bad.toml" >"$work/bad.log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "engine.gpu_slotz: unknown key" "$work/bad.log"; then ok "unknown config key refused"; else bad "unknown config key (exit $rc)" "$work/bad.log"; fi
printf 'listen = \n' >"$work/bad2.toml"
timeout 20 "$snarkd" serve --config "$work/bad2.toml" >"$work/bad2.log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "bad2.toml:1" "$work/bad2.log"; then ok "malformed TOML refused with its line"; else bad "malformed TOML (exit $rc)" "$work/bad2.log"; fi

sock="$work/snarkd.sock"
addr="unix://$sock"
cat >"$work/snarkd.toml" <<TOML
listen = "$addr"
http_listen = "127.0.0.1:0"
drain_seconds = 60
[engine]
backend = "cpu"
memory_budget = "2GiB"
synthesis_workers = 1
[keys]
dir = "$work/keys"
preload = ["builtin:chain:bn254:10"]
[timeline]
path = "$work/timeline.jsonl"
TOML
"$snarkd" serve --config "$work/snarkd.toml" >"$work/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -S "$sock" ] && break; sleep 0.1; done
if [ -S "$sock" ]; then ok "daemon listening"; else bad "daemon did not start" "$work/daemon.log"; exit 1; fi
# (b)
mode=$(stat -c %a "$sock")
if [ "$mode" = 660 ]; then ok "socket mode 0660"; else bad "socket mode $mode"; fi

# (c) zkeys of both curves through the daemon, verified by snarkjs
for curve in bn254 bls12-381; do
  d="$work/$curve"
  mkdir -p "$d"
  timeout 120 "$snarkd" setup --curve "$curve" --constraints 300 --zkey "$d/k.zkey" --vk "$d/vk.json" --wtns "$d/w.wtns" >"$d/setup.log" 2>&1
  if timeout 120 "$snarkd" prove --addr "$addr" "$d/k.zkey" "$d/w.wtns" "$d/proof.json" "$d/public.json" >"$d/prove.log" 2>&1; then
    ok "$curve: prove --addr"
  else
    bad "$curve: prove --addr" "$d/prove.log"
  fi
  if [ -f "$js/snarkjs/cli.js" ]; then
    if timeout 120 node "$js/snarkjs/cli.js" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" >"$d/verify.log" 2>&1; then
      ok "$curve: snarkjs verifies the daemon's proof"
    else
      bad "$curve: snarkjs verify" "$d/verify.log"
    fi
  else
    bad "$curve: snarkjs missing (cd tests/js && npm install)"
  fi
done

# (d) client commands
key=$(timeout 30 "$snarkd" keys --addr "$addr" | awk '/builtin:chain:bn128:10/ {print $1}')
if [ -n "$key" ]; then ok "keys lists the preloaded key"; else bad "keys"; fi
if timeout 30 "$snarkd" status --addr "$addr" >"$work/status.log" 2>&1 && grep -q "device 0 (cpu)" "$work/status.log"; then ok "status"; else bad "status" "$work/status.log"; fi
job=$(timeout 30 "$snarkd" submit --addr "$addr" --key "$key" --partitions 40 --seed 3)
timeout 30 "$snarkd" await --addr "$addr" "$job" --timeout-ms 10 >"$work/await.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "did not finish within" "$work/await.log"; then ok "await times out"; else bad "await timeout (exit $rc)" "$work/await.log"; fi
if timeout 30 "$snarkd" cancel --addr "$addr" "$job" | grep -q CANCELLED; then ok "cancel"; else bad "cancel"; fi
if timeout 120 "$snarkd" bench daemon --addr "$addr" -n 4 -j 2 --key builtin:chain:bn254:10 >"$work/bench.log" 2>&1 &&
  grep -q "4/4 proofs" "$work/bench.log"; then ok "bench daemon"; else bad "bench daemon" "$work/bench.log"; fi
if timeout 30 "$snarkd" submit --addr "$addr" --key nosuchkey >"$work/nokey.log" 2>&1; then bad "unknown key accepted"; else
  grep -q "unknown key" "$work/nokey.log" && ok "unknown key refused" || bad "unknown key message" "$work/nokey.log"
fi

# (e) SIGTERM with jobs in flight
for s in 11 12 13; do timeout 30 "$snarkd" submit --addr "$addr" --key "$key" --partitions 3 --seed $s >/dev/null; done
sleep 0.2
kill -TERM "$pid"
start=$(date +%s)
rc=0
for _ in $(seq 1 700); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then bad "daemon still running 70 s after SIGTERM"; else
  wait "$pid"
  rc=$?
  pid=""
  if [ "$rc" -eq 0 ] && grep -q "draining" "$work/daemon.log" && grep -q "stopped" "$work/daemon.log"; then
    ok "SIGTERM drains and exits 0 ($(($(date +%s) - start)) s)"
  else
    bad "SIGTERM (exit $rc)" "$work/daemon.log"
  fi
fi
if [ -s "$work/timeline.jsonl" ] && "$snarkd" timeline "$work/timeline.jsonl" >"$work/timeline.txt" 2>&1; then ok "timeline written at shutdown"; else bad "timeline" "$work/timeline.txt"; fi

echo "daemon: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
