#!/usr/bin/env bash
# The daemon as a process: `snarkd serve` on a unix socket, driven by the client commands.
#   (a) a malformed or unknown-key config is refused (exit 2) naming the key
#   (b) the socket is created with mode 0660
#   (c) `snarkd prove --addr` on zkeys of both curves; snarkjs verifies the proofs
#   (d) status, keys, submit, await (with a timeout), cancel, bench daemon
#   (e) SIGTERM with jobs in flight drains: exit 0 within the drain deadline, timeline written
#   (f) after kill -9 and a restart, awaiting a job id of the old run is NOT_FOUND (exit 2), never
#       another client's job
#   (g) a key that fits the budget but never with a partition: its jobs are refused at once
#       (RESOURCE_EXHAUSTED naming the sizes) and another key's jobs keep flowing
#   (h) witness bytes are charged: a witness larger than the budget is refused at submit
#   (i) a second daemon on the same address refuses to start; the first keeps serving
#   (j) RegisterKey{path}: off outside keys.register_dirs; a FIFO inside is refused at once and
#       SIGTERM still finishes
#   (k) a witness that does not satisfy the circuit: INVALID_ARGUMENT, exit 2, never retried
#   (l) config errors that used to abort (an unterminated string, 100000 workers, a bad log
#       path) exit 2 naming file:line:col or the key
#   (m) a client waiting on a daemon that stops answering (SIGSTOP) fails with UNAVAILABLE
#       within seconds
#   (n) a second SIGTERM ends the drain at once
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
# (l) config errors that aborted (exit 134) before
config_refused() {  # NAME TEXT NEEDLE
  printf '%s\n' "$2" >"$work/$1.toml"
  timeout 20 "$snarkd" serve --config "$work/$1.toml" >"$work/$1.log" 2>&1
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qF "$3" "$work/$1.log"; then ok "config: $1 refused (exit 2)"; else bad "config: $1 (exit $rc)" "$work/$1.log"; fi
}
config_refused unterminated 'listen = "unix:///tmp/x' "unterminated.toml:1:"
config_refused workers "$(printf 'listen = "unix://%s/w.sock"\n[engine]\nbackend = "cpu"\nsynthesis_workers = 100000' "$work")" "engine.synthesis_workers: must be between 1 and 256"
config_refused logpath "$(printf 'listen = "unix://%s/l.sock"\n[log]\nfile = "%s/no/such/dir/snarkd.log"' "$work" "$work")" "log.file"

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
# Log timestamps carry three digits of milliseconds (".083", never ".83").
if grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z (info|warn|error|debug) ' "$work/daemon.log" &&
  ! grep -E '^[0-9]{4}-' "$work/daemon.log" | grep -qvE '^[0-9-]{10}T[0-9:]{8}\.[0-9]{3}Z '; then
  ok "log timestamps have zero-padded milliseconds"
else
  bad "log timestamp format" "$work/daemon.log"
fi
if [ -s "$work/timeline.jsonl" ] && "$snarkd" timeline "$work/timeline.jsonl" >"$work/timeline.txt" 2>&1; then ok "timeline written at shutdown"; else bad "timeline" "$work/timeline.txt"; fi

start_daemon() {  # CONFIG LOG: starts `snarkd serve`, waits for its socket; sets pid
  "$snarkd" serve --config "$1" >>"$2" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do [ -S "$sock" ] && kill -0 "$pid" 2>/dev/null && "$snarkd" status --addr "$addr" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}
stop_daemon() {  # SIGTERM and wait (up to 70 s)
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 700); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  wait "$pid" 2>/dev/null
  pid=""
}

# (f) restart: an old job id is unknown, not another client's job
if start_daemon "$work/snarkd.toml" "$work/daemon2.log"; then ok "daemon restarted"; else bad "daemon restart" "$work/daemon2.log"; exit 1; fi
old_job=$(timeout 30 "$snarkd" submit --addr "$addr" --key "$key" --partitions 200 --seed 21)
kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=""
if start_daemon "$work/snarkd.toml" "$work/daemon3.log"; then ok "daemon restarted after kill -9 (stale socket replaced)"; else bad "restart after kill -9" "$work/daemon3.log"; exit 1; fi
new_job=$(timeout 30 "$snarkd" submit --addr "$addr" --key "$key" --partitions 1 --seed 22)
timeout 30 "$snarkd" await --addr "$addr" "$old_job" >"$work/old.log" 2>&1
rc=$?
if [ -n "$old_job" ] && [ "$old_job" != "$new_job" ] && [ "$rc" -eq 2 ] && grep -q "unknown job" "$work/old.log"; then
  ok "await of a job id from before the restart: NOT_FOUND (ids $old_job, $new_job)"
else
  bad "await after restart (exit $rc, old $old_job, new $new_job)" "$work/old.log"
fi

# (i) a second daemon on the same address
timeout 30 "$snarkd" serve --config "$work/snarkd.toml" >"$work/second.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "in use" "$work/second.log" && timeout 30 "$snarkd" status --addr "$addr" >/dev/null 2>&1 && [ -S "$sock" ]; then
  ok "a second daemon on the same socket refuses to start (exit $rc); the first still serves"
else
  bad "second daemon (exit $rc)" "$work/second.log"
fi

# (k) a witness that does not satisfy the circuit
d="$work/bn254"
cp "$d/w.wtns" "$d/bad.wtns"
size=$(stat -c %s "$d/bad.wtns")
printf '\x01' | dd of="$d/bad.wtns" bs=1 seek=$((size - 32)) conv=notrunc status=none
if cmp -s "$d/w.wtns" "$d/bad.wtns"; then printf '\x02' | dd of="$d/bad.wtns" bs=1 seek=$((size - 32)) conv=notrunc status=none; fi
timeout 120 "$snarkd" prove --addr "$addr" "$d/k.zkey" "$d/bad.wtns" "$d/bad-proof.json" "$d/bad-public.json" >"$d/bad.log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "does not satisfy the circuit" "$d/bad.log" && [ ! -e "$d/bad-proof.json" ] &&
  ! grep -q "attempt 2" "$d/bad.log"; then
  ok "an unsatisfied witness: exit 2, not retried"
else
  bad "unsatisfied witness (exit $rc)" "$d/bad.log"
fi

# (m) a client waiting on a daemon that stops answering
long_job=$(timeout 30 "$snarkd" submit --addr "$addr" --key "$key" --partitions 400 --seed 23)
timeout 120 "$snarkd" await --addr "$addr" "$long_job" >"$work/stopped.log" 2>&1 &
await_pid=$!
sleep 1
kill -STOP "$pid"
stopped_at=$(date +%s)
wait "$await_pid"
rc=$?
waited=$(($(date +%s) - stopped_at))
kill -CONT "$pid"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$waited" -le 30 ] && grep -q "not answering" "$work/stopped.log"; then
  ok "await on a stopped daemon fails with UNAVAILABLE after $waited s"
else
  bad "await on a stopped daemon (exit $rc after $waited s)" "$work/stopped.log"
fi
timeout 30 "$snarkd" cancel --addr "$addr" "$long_job" >/dev/null 2>&1

# (n) a second SIGTERM ends the drain at once
timeout 30 "$snarkd" submit --addr "$addr" --key "$key" --partitions 400 --seed 24 >/dev/null
sleep 0.5
kill -TERM "$pid"
sleep 1
kill -TERM "$pid"
t0=$(date +%s)
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then bad "still running 30 s after a second SIGTERM" "$work/daemon3.log"; kill -KILL "$pid"; else
  wait "$pid"; rc=$?
  if [ "$rc" -ne 0 ] && grep -q "second SIGTERM" "$work/daemon3.log"; then ok "a second SIGTERM exits at once ($(($(date +%s) - t0)) s, exit $rc)"; else bad "second SIGTERM (exit $rc)" "$work/daemon3.log"; fi
fi
pid=""

# (g), (h), (j): a daemon with a small budget and a directory clients may register keys from
mkdir -p "$work/regdir"
mkfifo "$work/regdir/fifo.zkey"
cat >"$work/small.toml" <<TOML
listen = "$addr"
http_listen = ""
drain_seconds = 10
[engine]
backend = "cpu"
memory_budget = "12MiB"
[keys]
register_dirs = ["$work/regdir"]
preload = ["builtin:chain:bn254:14"]
TOML
if start_daemon "$work/small.toml" "$work/small.log"; then ok "small-budget daemon started"; else bad "small-budget daemon" "$work/small.log"; exit 1; fi
big=$(timeout 30 "$snarkd" keys --addr "$addr" | awk '/builtin:chain:bn128:14/ {print $1}')
timeout 30 "$snarkd" submit --addr "$addr" --key "$big" >"$work/never.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "one partition" "$work/never.log" && grep -q "memory budget allows" "$work/never.log"; then
  ok "a job that never fits beside its key is refused at once"
else
  bad "never-fitting job (exit $rc)" "$work/never.log"
fi
timeout 60 "$snarkd" bench daemon --addr "$addr" -n 2 -j 2 --key builtin:chain:bn254:8 >"$work/flow.log" 2>&1
if grep -q "2/2 proofs" "$work/flow.log"; then ok "another key's jobs still flow"; else bad "other key's jobs" "$work/flow.log"; fi
# (h) a witness larger than the budget
head -c $((13 * 1024 * 1024)) /dev/zero >"$work/huge.wtns"
timeout 30 "$snarkd" keys --addr "$addr" --register "$work/regdir/../bn254/k.zkey" >"$work/dotdot.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "not under keys.register_dirs" "$work/dotdot.log"; then ok "a path leaving keys.register_dirs by .. is refused"; else bad "dot-dot path (exit $rc)" "$work/dotdot.log"; fi
cp "$work/bn254/k.zkey" "$work/regdir/k.zkey"
zkey_id=$(timeout 30 "$snarkd" keys --addr "$addr" --register "$work/regdir/k.zkey" | awk '{print $1}')
timeout 30 "$snarkd" submit --addr "$addr" --key "$zkey_id" --witness "$work/huge.wtns" >"$work/huge.log" 2>&1
rc=$?
if [ -n "$zkey_id" ] && [ "$rc" -ne 0 ] && grep -q "memory budget" "$work/huge.log"; then ok "a witness larger than the budget is refused at submit"; else bad "huge witness (exit $rc)" "$work/huge.log"; fi
# (j) path registration
timeout 30 "$snarkd" keys --addr "$addr" --register "$work/bn254/k.zkey" >"$work/outside.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "not under keys.register_dirs" "$work/outside.log"; then ok "a path outside keys.register_dirs is refused"; else bad "outside path (exit $rc)" "$work/outside.log"; fi
timeout 10 "$snarkd" keys --addr "$addr" --register "$work/regdir/fifo.zkey" >"$work/fifo.log" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "not a regular file" "$work/fifo.log"; then ok "a FIFO is refused at once"; else bad "FIFO (exit $rc)" "$work/fifo.log"; fi
t0=$(date +%s)
stop_daemon
if [ $(($(date +%s) - t0)) -le 15 ]; then ok "SIGTERM finishes after the FIFO"; else bad "SIGTERM after the FIFO took $(($(date +%s) - t0)) s"; fi

echo "daemon: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
