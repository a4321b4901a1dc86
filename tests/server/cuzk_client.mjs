// Curio's cuzk client, played by a gRPC implementation that is not snarkd's (@grpc/grpc-js with
// @grpc/proto-loader reading proto/cuzk/v1/proving.proto): the calls Curio makes (an insecure
// channel, 256 MiB message limits, Prove with the {"SectorNum","Phase1Out","SectorSize"} wrapper
// and a 30-minute deadline), then every other RPC and the bad requests the daemon must survive.
//
//   node cuzk_client.mjs ADDRESS WRAPPER_JSON MINER SECTOR PROOF_OUT
// Prints "ok"/"FAIL" lines and "cuzk client: N passed, M failed"; exit 1 on any failure.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../js/package.json"));
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const [address, wrapperPath, miner, sector, proofOut] = process.argv.slice(2);
const def = protoLoader.loadSync(path.join(here, "../../proto/cuzk/v1/proving.proto"), {
  keepCase: true, longs: String, enums: String, bytes: Buffer, defaults: true,
});
const cuzk = grpc.loadPackageDefinition(def).cuzk.v1;
const MiB = 1 << 20;
const client = (limit = 256 * MiB) => new cuzk.ProvingEngine(address, grpc.credentials.createInsecure(), {
  "grpc.max_send_message_length": limit, "grpc.max_receive_message_length": limit,
});
const curio = client();

let passed = 0, failed = 0;
const ok = (what) => { passed++; console.log(`  ok    ${what}`); };
const bad = (what, detail) => { failed++; console.log(`  FAIL  ${what}${detail ? ": " + detail : ""}`); };
const check = (cond, what, detail) => (cond ? ok(what) : bad(what, detail));
const call = (c, method, req, deadlineMs = 30 * 60 * 1000) => new Promise((resolve) => {
  c[method](req, { deadline: new Date(Date.now() + deadlineMs) }, (err, res) => resolve({ err, res }));
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const code = (r) => (r.err ? r.err.code : 0);

const wrapper = readFileSync(wrapperPath);
const porep = (over = {}) => ({
  request_id: `porep-${miner}-${sector}`, proof_kind: "POREP_SEAL_COMMIT", sector_size: "2048",
  registered_proof: "5", priority: "NORMAL", vanilla_proof: wrapper, sector_number: sector, miner_id: miner, ...over,
});

// Status and metrics of an idle daemon.
let r = await call(curio, "GetStatus", {}, 10000);
check(!r.err && Array.isArray(r.res.queues), "GetStatus answers", r.err?.message);
r = await call(curio, "GetMetrics", {}, 10000);
check(!r.err && r.res.prometheus_text.includes("snarkd_"), "GetMetrics returns the Prometheus text", r.err?.message);

// The parameters: loaded into the hot tier, then listed.
r = await call(curio, "PreloadSRS", { circuit_id: "porep-2k" }, 600000);
check(!r.err && r.res.already_loaded === false, "PreloadSRS porep-2k loads the key", r.err?.message);
r = await call(curio, "PreloadSRS", { circuit_id: "porep-2k" }, 60000);
check(!r.err && r.res.already_loaded === true, "PreloadSRS again: already loaded", r.err?.message);
r = await call(curio, "GetStatus", {}, 10000);
const srs = r.res?.loaded_srs?.find((s) => s.circuit_id === "porep-2k");
check(srs && srs.tier === "HOT" && Number(srs.size_bytes) > 0, "GetStatus lists porep-2k HOT", JSON.stringify(r.res?.loaded_srs));

// Curio's call: Prove, the wrapper, a 30-minute deadline.
const t0 = Date.now();
r = await call(curio, "Prove", { submit: porep() });
const result = r.res?.result;
check(!r.err && result?.status === "COMPLETED" && result.proof.length === 192,
  "Prove (Curio's request) returns COMPLETED and one 192-byte proof", r.err?.message ?? JSON.stringify({ ...result, proof: result?.proof?.length }));
if (result?.proof?.length) writeFileSync(proofOut, result.proof);
check(Number(result?.total_ms) > 0 && result?.job_id !== "", "Prove fills job_id and total_ms", JSON.stringify({ job: result?.job_id, total: result?.total_ms }));
console.log(`        proved in ${Date.now() - t0} ms (queue ${result?.queue_wait_ms}, srs ${result?.srs_load_ms}, synthesis ${result?.synthesis_ms}, gpu ${result?.gpu_compute_ms}, total ${result?.total_ms})`);

// A retry with the same request id (Curio resends it) returns that job's proof.
r = await call(curio, "Prove", { submit: porep() }, 60000);
check(!r.err && r.res.result.status === "COMPLETED" && r.res.result.job_id === result?.job_id &&
  Buffer.compare(r.res.result.proof, result?.proof ?? Buffer.alloc(0)) === 0, "the same request_id again: the same job and proof", r.err?.message);

// SubmitProof / AwaitProof / CancelProof: any request id (WindowPoSt's have spaces and brackets),
// priority 0, sector_size 0 (from registered_proof).
r = await call(curio, "SubmitProof", porep({ request_id: `wdpost-${miner}-0-[12 34 56 78]`, priority: "PRIORITY_UNSPECIFIED", sector_size: "0" }), 60000);
const job = r.res?.job_id;
check(!r.err && job, "SubmitProof with an odd request_id, priority 0 and sector_size 0", r.err?.message);
r = await call(curio, "AwaitProof", { job_id: job, timeout_ms: "200" }, 60000);
check(!r.err && r.res.status === "TIMEOUT", "AwaitProof with a short timeout: TIMEOUT", r.err?.message ?? r.res?.status);
r = await call(curio, "CancelProof", { job_id: job }, 60000);
check(!r.err && r.res.was_running === true, "CancelProof of the running job: was_running", r.err?.message);
r = await call(curio, "AwaitProof", { job_id: job, timeout_ms: "60000" }, 70000);
check(!r.err && r.res.status === "CANCELLED", "AwaitProof after the cancel: CANCELLED", r.err?.message ?? r.res?.status);
r = await call(curio, "AwaitProof", { job_id: "no such job" }, 10000);
check(code(r) === grpc.status.NOT_FOUND, "AwaitProof of an unknown job: NOT_FOUND", r.err?.message);

// A client that goes away mid-proof: its deadline passes, the daemon cancels the job.
const cancelled = async () => {
  const m = (await call(curio, "GetMetrics", {}, 10000)).res?.prometheus_text ?? "";
  const line = m.split("\n").find((l) => l.startsWith("snarkd_jobs_finished_total") && l.includes('state="cancelled"'));
  return line ? Number(line.trim().split(/\s+/).pop()) : 0;
};
const before = await cancelled();
r = await call(curio, "Prove", { submit: porep({ request_id: `porep-${miner}-${sector}-gone` }) }, 1500);
check(code(r) === grpc.status.DEADLINE_EXCEEDED, "Prove with a 1.5 s deadline: DEADLINE_EXCEEDED", r.err?.message);
let after = before;
for (let i = 0; i < 100 && after <= before; i++) { await sleep(100); after = await cancelled(); }
check(after === before + 1, "the job of the client that went away is cancelled", `${before} -> ${after}`);

// Kinds snarkd does not prove yet, and bad requests: the right codes, never INTERNAL.
for (const kind of ["SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION", "WINNING_POST"]) {
  r = await call(curio, "Prove", { submit: porep({ request_id: `k-${kind}`, proof_kind: kind }) }, 10000);
  check(code(r) === grpc.status.UNIMPLEMENTED && r.err.details.includes(kind), `${kind}: UNIMPLEMENTED naming the kind`, r.err?.details);
}
r = await call(curio, "Prove", {}, 10000);
check(code(r) === grpc.status.INVALID_ARGUMENT && r.err.details.includes("submit"), "Prove without submit: INVALID_ARGUMENT", r.err?.details);
r = await call(curio, "Prove", { submit: porep({ request_id: "k-unspecified", proof_kind: "PROOF_KIND_UNSPECIFIED" }) }, 10000);
check(code(r) === grpc.status.INVALID_ARGUMENT, "proof_kind 0: INVALID_ARGUMENT", r.err?.details);
r = await call(curio, "Prove", { submit: porep({ request_id: "k-bad-wrapper", vanilla_proof: Buffer.from('{"SectorNum":1,"Phase1Out":"!!not base64!!","SectorSize":2048}') }) }, 10000);
check(code(r) === grpc.status.INVALID_ARGUMENT && r.err.details.includes("vanilla_proof"), "a malformed wrapper: INVALID_ARGUMENT naming vanilla_proof", r.err?.details);
r = await call(curio, "Prove", { submit: porep({ request_id: "k-size", sector_size: String(8 << 20) }) }, 10000);
check(code(r) === grpc.status.INVALID_ARGUMENT, "sector_size disagreeing with registered_proof: INVALID_ARGUMENT", r.err?.details);
const huge = client(300 * MiB);
r = await call(huge, "Prove", { submit: porep({ request_id: "k-huge", vanilla_proof: Buffer.alloc(257 * MiB, 0x20) }) }, 120000);
check(code(r) === grpc.status.RESOURCE_EXHAUSTED, "a 257 MiB request: RESOURCE_EXHAUSTED", r.err?.details);
huge.close();
r = await call(curio, "PreloadSRS", { circuit_id: "wpost-32g" }, 10000);
check(code(r) === grpc.status.UNIMPLEMENTED, "PreloadSRS wpost-32g: UNIMPLEMENTED", r.err?.details);
r = await call(curio, "PreloadSRS", { circuit_id: "porep-1t" }, 10000);
check(code(r) === grpc.status.INVALID_ARGUMENT, "PreloadSRS of an unknown id: INVALID_ARGUMENT", r.err?.details);

// Still healthy: status, then the parameters evicted.
r = await call(curio, "GetStatus", {}, 10000);
check(!r.err && Number(r.res.total_proofs_completed) >= 1, "GetStatus after the bad requests", r.err?.message);
// A cancelled job's partition finishes its current stage before it lets the key go (a CPU
// prove is not interrupted): wait for the key to be idle, as an operator would.
let busy = true;
for (let i = 0; i < 600 && busy; i++) {
  const st = (await call(curio, "GetStatus", {}, 10000)).res;
  busy = Number(st?.loaded_srs?.find((s) => s.circuit_id === "porep-2k")?.ref_count ?? 1) > 0;
  if (busy) await sleep(500);
}
check(!busy, "the key is idle once the cancelled partitions have finished their stage");
r = await call(curio, "EvictSRS", { circuit_id: "porep-2k" }, 60000);
check(!r.err && r.res.was_loaded === true && Number(r.res.freed_bytes) > 0, "EvictSRS porep-2k", r.err?.message);
r = await call(curio, "EvictSRS", { circuit_id: "porep-2k" }, 60000);
check(!r.err && r.res.was_loaded === false, "EvictSRS again: was not loaded", r.err?.message);

curio.close();
console.log(`cuzk client: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
