// Reads served at the edge (issues 29 and 43), in one run: `npm run bench:edge-reads`.
//
//   node bench/edge-reads.mjs [--quick] [--write] [--sizes 1k,10k,100k] [--skip-profiles]
//                             [--max-bytes N] [--port 8799] [--keep] [--cpu-profile] [--reuse DIR]
//
// One wrangler dev serving the bench's entry module (bench/edge-worker.ts, which injects the
// far-edge latencies), project snapshot, fresh state. On a 1,000-lesson agent, in the `local`
// profile and the `far-edge` one (FAR_EDGE of bench/edge.mjs: each Durable Object call +40 ms,
// D1 +80 ms, KV read and location-cache operation +5 ms): warm retrieve and prompt served from the
// edge (the Worker's snapshot) and through the object (`consistency: "strong"`), sequential client
// wall time; 16 concurrent clients against /healthz in the same run; the object's storage accesses
// per warm read (pread64/pwrite64 of the workerd process on the Durable Objects' SQLite files,
// counted by strace from outside); how often a steady reader revalidates its snapshot (each reset
// of `snapshotAgeMs` is one). Then per size (--sizes or EDGE_READS_SIZES; 1k,10k,100k, or 1k,10k
// with --quick), memories loaded through the API (bench/edge-sizes.mjs) under the deployment's
// snapshot limit (or --max-bytes): write → read-your-write, the next read, warm and far-edge warm
// reads, snapshot bytes and the isolate's weight per agent, CPU per write, one writer's throughput
// while 16 clients read, and the share of reads served at the edge. --cpu-profile samples the
// workerd isolate during each size's write → read-your-write cycles (its latencies then include the
// sampling) and prints where the time went. --keep leaves the run's directory (state and its keys
// in bench-session.json); --reuse DIR starts from that state and measures the agents it holds
// without loading them again (a 100,000-memory agent takes about 13 minutes to load).
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { corpus, queries } from "./corpus.mjs";
import { FAR_EDGE } from "./edge.mjs";
import { devServer, log, machine, must, replaceResultsSection, request } from "./lib/dev-server.mjs";
import { storageTrace } from "./lib/storage-trace.mjs";
import { flag, opt } from "./lib/options.mjs";
import { CASE_SHARE, farEdgeWarm, loadMemories, measureSize, postBatch, sizesFrom } from "./edge-sizes.mjs";

export const EDGE_READS_HEADING = "## Reads at the edge (`npm run bench:edge-reads`)";
const MEMORIES = 1000;
const CLIENTS = 16;
const STALENESS_MS = 2000;
/** The snapshot limit the sizes are measured under: the deployment's default unless --max-bytes. */
const MAX_BYTES = opt("--max-bytes");
/** Before reads moved to the edge (issue 29, measured on the same machine): far-edge warm retrieve, storage accesses, 16 clients. */
const BEFORE = { farEdgeP50: 63.6, storagePerRetrieve: 3133 / 40, sixteenClientRatio: 1.58 };
/**
 * Reads per storage-access window: a few seconds of them, so the window holds the snapshot's
 * revalidations and the use counters' batches they cause, amortised over the reads.
 */
const STORAGE_READS = 300;
/** Lessons per /library/batch call (what bench/edge.mjs loads with). */
const BATCH = 90;

const QUICK = flag("--quick");
const WRITE = flag("--write") || !QUICK;
const SIZES = sizesFrom(opt("--sizes") ?? process.env.EDGE_READS_SIZES, QUICK ? "1000,10000" : "1000,10000,100000");
const PROFILES = !flag("--skip-profiles");
/** Per size: write → read-your-write cycles, warm reads, seconds of each throughput window; far-edge warm reads. */
const SIZE_RUN = QUICK ? { cycles: 8, warmReads: 30, busyS: 5 } : { cycles: 20, warmReads: 100, busyS: 15 };
const FAR_EDGE_RUN = QUICK ? { warmup: 20, n: 60 } : { warmup: 30, n: 200 };
const N = QUICK ? 60 : 300;
const CONC_TOTAL = QUICK ? 320 : 800;
const STEADY_S = QUICK ? 10 : 30;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, min: s[0], p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99) };
};
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const mib = (b) => (b === null || b === undefined ? "—" : `${(b / 1048576).toFixed(2)} MiB`);

/** The far-edge latencies, as the bench's latency mechanism takes them (bench/edge.mjs owns it). */
const farEdgeVars = () => ({ BENCH_LATENCY: FAR_EDGE });

/**
 * Loads `n` lessons in batches. A batch whose answer is lost (a busy machine's runtime drops a
 * connection now and then) is sent again only if the library's last version is not it.
 */
async function loadLessons(base, token, agentId, n, seed) {
  const items = corpus(n, seed);
  const A = `${base}/v1/agents/${agentId}`;
  for (let i = 0; i < items.length; i += BATCH) {
    const reason = `bench load ${i}`;
    const operations = items.slice(i, i + BATCH).map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags } }));
    await postBatch(A, token, reason, operations);
    if (i % 5000 === 0 && i) log(`  ${agentId}: ${i} lessons`);
  }
}

/**
 * Requests the bench repeats (reads, and rewards, which replay): the local runtime on a busy
 * machine now and then drops a connection ("Network connection lost"); such a request is sent
 * again, and counted in `lost`, its latency left out.
 */
let lost = 0;
async function send(method, url, token, body) {
  for (let attempt = 1; ; attempt++) {
    const r = await request(method, url, token, body);
    if (r.status === 200) return r;
    if (attempt === 3 || r.status < 500) throw new Error(`${method} ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    lost++;
  }
}

async function sequential(count, make, token) {
  const lat = [];
  const bodies = [];
  for (let i = 0; i < count; i++) {
    const { method, url, body } = make(i);
    const r = await send(method, url, token, body);
    lat.push(r.ms);
    bodies.push(r.body);
  }
  return { ...stats(lat), bodies };
}

async function concurrent(total, make, token) {
  let next = 0;
  const lat = [];
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const { method, url, body } = make(i);
      lat.push((await send(method, url, token, body)).ms);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  return stats(lat);
}

/** pread64/pwrite64 calls on the Durable Objects' SQLite files while `work` runs (bench/lib/storage-trace.mjs). */
const storageAccesses = async (stateDir, work) => (await storageTrace(stateDir, work)).accesses;

async function main() {
  const started = Date.now();
  const reuse = opt("--reuse");
  const session = reuse ? JSON.parse(readFileSync(path.join(reuse, "bench-session.json"), "utf8")) : null;
  const server = devServer({
    keep: flag("--keep"),
    tmpPrefix: "praxis-bench-edge-reads-",
    state: reuse ? path.join(reuse, "state") : null,
  });
  const adminKey = session?.adminKey ?? `pxadmin_bench_${randomBytes(18).toString("hex")}`;
  const baseVars = { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn", PRAXIS_ENV: "development" };
  const sizeVars = { ...baseVars, ...(MAX_BYTES ? { READ_SNAPSHOT_MAX_BYTES: MAX_BYTES } : {}) };
  const counts = { lost: 0 };
  const result = { profiles: [], storage: null, steady: null, sizes: [] };
  try {
    let { base, logFile } = await server.start({ firstPort: Number(opt("--port") ?? 8799), vars: baseVars, main: "bench/edge-worker.ts" });
    const stateDir = path.join(path.dirname(logFile), "state");
    // A kept run's session without its key (the operator key alone) gets its tenant a new one.
    const keptTenant = async () => {
      const { items } = (await must("GET", `${base}/v1/tenants`, adminKey, undefined, [200])).body;
      const t = items.find((i) => i.name.startsWith("bench-edge-reads-"));
      return (await must("POST", `${base}/v1/tenants/${t.tenantId}/keys/rotate`, adminKey, {}, [201])).body.apiKey;
    };
    const token =
      session?.token ??
      (session
        ? await keptTenant()
        : (await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-edge-reads-${new Date().toISOString()}` }, [201])).body
            .apiKey);
    if (flag("--keep")) writeFileSync(path.join(path.dirname(logFile), "bench-session.json"), JSON.stringify({ adminKey, token }));
    const agentId = "edge-1k";
    await must("PUT", `${base}/v1/agents/${agentId}`, token, { displayName: "edge reads bench" });
    if (PROFILES) {
      await loadLessons(base, token, agentId, MEMORIES, 42);
      log(`loaded ${MEMORIES} lessons`);
    }

    for (const profile of PROFILES ? ["local", "far-edge"] : []) {
      ({ base, logFile } = await server.restartWith({ ...baseVars, ...(profile === "far-edge" ? farEdgeVars() : {}) }));
      const A = `${base}/v1/agents/${agentId}`;
      const qs = queries(4 * N + 200, profile === "local" ? 3 : 4);
      let q = 0;
      const retrieve =
        (extra = {}) =>
        () => ({ method: "POST", url: `${A}/retrieve`, body: { query: qs[q++ % qs.length], ...extra } });
      const prompt =
        (extra = "") =>
        () => ({ method: "GET", url: `${A}/prompt?query=${encodeURIComponent(qs[q++ % qs.length])}&budgetTokens=400${extra}` });
      await sequential(profile === "local" ? 100 : 30, retrieve(), token);
      await sequential(profile === "local" ? 30 : 10, retrieve({ consistency: "strong" }), token);
      const row = { profile };
      row.edgeRetrieve = await sequential(N, retrieve(), token);
      row.objectRetrieve = await sequential(N, retrieve({ consistency: "strong" }), token);
      row.edgePrompt = await sequential(N, prompt(), token);
      row.objectPrompt = await sequential(N, prompt("&consistency=strong"), token);
      row.healthz = await sequential(N, () => ({ method: "GET", url: `${base}/healthz` }), undefined);
      row.servedFromEdge = row.edgeRetrieve.bodies.filter((b) => b.servedFrom === "edge").length / row.edgeRetrieve.n;
      if (profile === "local") {
        row.concHealthz = await concurrent(CONC_TOTAL, () => ({ method: "GET", url: `${base}/healthz` }), undefined);
        row.concEdge = await concurrent(CONC_TOTAL, retrieve(), token);
        row.concObject = await concurrent(CONC_TOTAL, retrieve({ consistency: "strong" }), token);
      }
      for (const k of Object.keys(row)) if (row[k]?.bodies) delete row[k].bodies;
      result.profiles.push(row);
      log(
        `${profile}: edge retrieve p50 ${f(row.edgeRetrieve.p50)} ms, object ${f(row.objectRetrieve.p50)} ms; edge prompt p50 ${f(row.edgePrompt.p50)} ms, object ${f(row.objectPrompt.p50)} ms`,
      );

      if (profile === "local") {
        const counted = {};
        // A read key's reads count no use: what is left is the snapshot's revalidation alone.
        const reader = (await must("POST", `${base}/v1/keys`, token, { name: "bench reader", scope: "read" }, [201])).body.apiKey;
        await sequential(20, retrieve(), reader);
        for (const [name, make, key] of [
          ["edge retrieve, read key", retrieve(), reader],
          ["strong retrieve, read key", retrieve({ consistency: "strong" }), reader],
          ["edge retrieve", retrieve(), token],
          ["edge prompt", prompt(), token],
        ]) {
          counted[name] = (await storageAccesses(stateDir, () => sequential(STORAGE_READS, make, key))) / STORAGE_READS;
        }
        const ids = (await sequential(40, retrieve(), token)).bodies.map((b) => b.retrievalId);
        let k = 0;
        counted.reward =
          (await storageAccesses(stateDir, () =>
            sequential(
              40,
              () => ({ method: "POST", url: `${A}/rewards`, body: { retrievalId: ids[k++], outcome: k % 3 ? "success" : "failure" } }),
              token,
            ),
          )) / 40;
        result.storage = counted;
        log(`storage accesses per request: ${JSON.stringify(counted)}`);

        // A steady reader (a reward every tenth read): each reset of snapshotAgeMs is one revalidation.
        const t0 = performance.now();
        let reads = 0;
        let resets = 0;
        let last = null;
        let rewards = 0;
        while (performance.now() - t0 < STEADY_S * 1000) {
          const r = await send("POST", `${A}/retrieve`, token, { query: qs[q++ % qs.length] });
          reads++;
          if (last !== null && r.body.snapshotAgeMs < last) resets++;
          last = r.body.snapshotAgeMs;
          if (reads % 10 === 0) {
            await send("POST", `${A}/rewards`, token, { retrievalId: r.body.retrievalId, outcome: "success" });
            rewards++;
          }
        }
        const minutes = (performance.now() - t0) / 60_000;
        result.steady = { reads, rewards, perMinute: resets / minutes, readsPerMinute: reads / minutes };
        log(`steady: ${reads} reads, ${resets} revalidations in ${f(minutes * 60, 0)} s`);
      }
    }

    if (SIZES.length) {
      const restarted = await server.restartWith(sizeVars);
      base = restarted.base;
      const ctx = { base, token, counts, cpuSeconds: server.cpuSeconds, profileOn: flag("--cpu-profile") ? restarted.inspectorPort : null };
      for (const size of SIZES) {
        const id = `edge-size-${size}`;
        const held = await request("GET", `${base}/v1/agents/${id}`, token);
        let load;
        if (reuse && held.status === 200) {
          // As the kept run loaded it (and wrote to it since): its load time is that run's.
          const cases = Math.round(size * CASE_SHARE);
          load = { lessons: size - cases, cases, seconds: 0, lessonsS: Number.NaN, casesS: Number.NaN };
          log(`${id}: reused as the kept run left it`);
        } else {
          await must("PUT", `${base}/v1/agents/${id}`, token, { displayName: `size ${size}` });
          load = await loadMemories(base, token, id, size, size);
          log(`loaded ${load.lessons} lessons and ${load.cases} cases into ${id} in ${f(load.seconds, 0)} s`);
        }
        const row = { ...(await measureSize(ctx, { agentId: id, size, ...SIZE_RUN })), load };
        result.sizes.push(row);
        log(
          `${size}: snapshot ${mib(row.snapshotBytes)}, held ${mib(row.heldBytes)}, first read ${f(row.firstMs)} ms (${row.firstServed}), write → read-your-write p50 ${f(row.ryw.p50)} ms, next read ${f(row.next.p50)} ms, warm ${f(row.warm.p50)} ms, CPU/write ${f(row.writeCpuMs)} ms, writes/s ${f(row.busy.alone.perS)} alone, ${f(row.busy.withReaders.perS)} with ${CLIENTS} readers`,
        );
      }
      ({ base } = await server.restartWith({ ...sizeVars, ...farEdgeVars() }));
      for (const row of result.sizes) {
        row.farEdge = await farEdgeWarm({ base, token, counts }, `edge-size-${row.size}`, row.size, FAR_EDGE_RUN);
        log(
          `${row.size}: far-edge warm p50 ${f(row.farEdge.p50)} ms, p99 ${f(row.farEdge.p99)} ms, from the edge ${f(100 * row.farEdge.edgeShare, 0)}%`,
        );
      }
    }
  } finally {
    await server.cleanup();
  }
  return { result, seconds: (Date.now() - started) / 1000, lost: lost + counts.lost };
}

/** One row per size: the issue-43 measurements. */
function sizesTable(rows) {
  const pp = (s) => `${f(s.p50)} / ${f(s.p99)}`;
  const pct100 = (x) => `${f(100 * x, 0)}%`;
  return [
    `Sizes under the snapshot limit ${MAX_BYTES ? mib(Number(MAX_BYTES)) : "of the deployment (72 MiB decoded)"}: memories loaded through the API, ${rows[0] ? `${f(100 * (rows[0].load.cases / rows[0].size), 0)}% of them cases` : ""} (lessons by /library/batch, 500 a call; cases by POST …/cases from 16 clients). Client wall time in ms, p50 / p99; a write is POST …/experiences; its read-your-write carries the write's \`minVersion\`; "next read" is the read after it. CPU: user + system time of wrangler dev (its workerd: Worker and objects) per write, writes alone and write + read-your-write + next read. Throughput: one sequential writer for ${SIZE_RUN.busyS} s alone, then while ${CLIENTS} clients read the agent without pause. Held: what the isolate's snapshot LRU weighs for this agent alone.`,
    "",
    "| memories (lessons + cases) | load: lessons + cases | snapshot | held by the isolate | first read | write p50 | write → read-your-write | next read | warm read | far-edge warm | CPU per write (alone / + reads) | writes/s alone / with 16 readers | readers' p50 / p99 | served at the edge: warm / after writes / under writers / far-edge |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.size.toLocaleString("en")} (${r.load.lessons.toLocaleString("en")} + ${r.load.cases.toLocaleString("en")}) | ${f(r.load.lessonsS, 0)} + ${f(r.load.casesS, 0)} s | ${mib(r.snapshotBytes)} | ${mib(r.heldBytes)} | ${f(r.firstMs)}${r.firstServed === "edge" ? "" : ` (${r.firstServed}${r.fallbackReason ? `, ${r.fallbackReason}` : ""})`} | ${f(r.write.p50)} | ${pp(r.ryw)} | ${pp(r.next)} | ${pp(r.warm)} | ${r.farEdge ? pp(r.farEdge) : "—"} | ${f(r.writeCpuMs)} / ${f(r.cycleCpuMs)} ms | ${f(r.busy.alone.perS)} / ${f(r.busy.withReaders.perS)} | ${pp(r.busy.reads)} | ${pct100(r.edgeShare.warm)} / ${pct100(r.edgeShare.ryw)} / ${pct100(r.edgeShare.busy)} / ${r.farEdge ? pct100(r.farEdge.edgeShare) : "—"} |`,
    ),
  ].join("\n");
}

/** The issue-43 aims the sizes decide, against the smallest size of the same run. */
function sizeVerdicts(rows) {
  const base = rows.find((r) => r.size === 1000) ?? rows[0];
  if (!base) return [];
  const out = [];
  for (const [size, aim] of [
    [10_000, 2],
    [100_000, 3],
  ]) {
    const r = rows.find((x) => x.size === size);
    if (!r || r === base) continue;
    const ratio = r.ryw.p50 / base.ryw.p50;
    out.push(
      `Write → read-your-write p50 at ${size.toLocaleString("en")} ÷ at ${base.size.toLocaleString("en")}: ${f(r.ryw.p50)} ÷ ${f(base.ryw.p50)} = ${f(ratio, 2)}; aim ≤ ${aim}: ${ratio <= aim ? "met" : "NOT met"}.`,
    );
  }
  const big = rows.find((r) => r.size === 100_000);
  if (big?.farEdge)
    out.push(
      `100,000 memories at the far edge: warm p50 ${f(big.farEdge.p50)} ms, p99 ${f(big.farEdge.p99)} ms, ${f(100 * big.farEdge.edgeShare, 0)}% served at the edge; aim p50 ≤ 10, p99 ≤ 25, served at the edge: ${big.farEdge.p50 <= 10 && big.farEdge.p99 <= 25 && big.farEdge.edgeShare === 1 ? "met" : "NOT met"}.`,
    );
  return out;
}

function report({ result, seconds, lost: dropped }) {
  const m = machine();
  const row = (_name, s) => `${f(s.p50)} / ${f(s.p99)}`;
  const latency = [
    "| profile | retrieve, edge | retrieve, object | prompt, edge | prompt, object | /healthz |",
    "|---|---|---|---|---|---|",
    ...result.profiles.map(
      (p) =>
        `| ${p.profile} | ${row("", p.edgeRetrieve)} | ${row("", p.objectRetrieve)} | ${row("", p.edgePrompt)} | ${row("", p.objectPrompt)} | ${row("", p.healthz)} |`,
    ),
  ].join("\n");
  const local = result.profiles.find((p) => p.profile === "local");
  const far = result.profiles.find((p) => p.profile === "far-edge");
  const conc = local?.concEdge
    ? [
        `| ${CLIENTS} clients, local | p50 | p95 | p99 | p95 ÷ /healthz p95 |`,
        "|---|---|---|---|---|",
        `| /healthz | ${f(local.concHealthz.p50)} | ${f(local.concHealthz.p95)} | ${f(local.concHealthz.p99)} | 1.00 |`,
        `| retrieve, edge | ${f(local.concEdge.p50)} | ${f(local.concEdge.p95)} | ${f(local.concEdge.p99)} | ${f(local.concEdge.p95 / local.concHealthz.p95, 2)} |`,
        `| retrieve, object | ${f(local.concObject.p50)} | ${f(local.concObject.p95)} | ${f(local.concObject.p99)} | ${f(local.concObject.p95 / local.concHealthz.p95, 2)} |`,
      ].join("\n")
    : "";
  const storage = result.storage
    ? Object.entries(result.storage)
        .map(([k, v]) => `${k} ${f(v, 1)}`)
        .join(", ")
    : "—";
  const sizes = result.sizes.length ? sizesTable(result.sizes) : "";
  const steady = result.steady
    ? `A steady reader (${f(result.steady.readsPerMinute, 0)} reads and ${f((result.steady.rewards / result.steady.reads) * result.steady.readsPerMinute, 0)} rewards a minute, one agent, one isolate) revalidated its snapshot ${f(result.steady.perMinute, 1)} times a minute: one small Durable Object call each ("current", or a delta of what the rewards changed) and one D1 query for the revocation of the keys that read, against ${f(result.steady.readsPerMinute, 0)} object calls a minute before; a content change adds one snapshot fetch.`
    : "";
  const verdicts = [
    far && local
      ? `Injected latency on the path through the object, far-edge − local: retrieve ${f(far.objectRetrieve.min - local.objectRetrieve.min)} ms fastest, ${f(far.objectRetrieve.p50 - local.objectRetrieve.p50)} ms p50; prompt ${f(far.objectPrompt.min - local.objectPrompt.min)} / ${f(far.objectPrompt.p50 - local.objectPrompt.p50)} ms (one Durable Object call each, ${FAR_EDGE} injected); /healthz ${f(far.healthz.min - local.healthz.min)} / ${f(far.healthz.p50 - local.healthz.p50)} ms (one D1 query). The fastest request is the one least disturbed by a loaded machine.`
      : "",
    ...sizeVerdicts(result.sizes),
    far
      ? `Far-edge warm retrieve p50 ${f(far.edgeRetrieve.p50)} ms from the edge (p99 ${f(far.edgeRetrieve.p99)}), ${f(far.objectRetrieve.p50)} ms through the object (p99 ${f(far.objectRetrieve.p99)}); aim ≤ 15 ms: ${far.edgeRetrieve.p50 <= 15 ? "met" : "NOT met"}.`
      : "",
    local?.concEdge
      ? `${CLIENTS}-client retrieve p95 ÷ /healthz p95: ${f(local.concEdge.p95 / local.concHealthz.p95, 2)} from the edge, ${f(local.concObject.p95 / local.concHealthz.p95, 2)} through the object; aim ≤ 1.35: ${local.concEdge.p95 / local.concHealthz.p95 <= 1.35 ? "met" : "NOT met"}.`
      : "",
    `Storage accesses of the agent's object per warm request: ${storage}.`,
    far && local?.concEdge && result.storage
      ? `Before and after: far-edge warm retrieve p50 ${f(BEFORE.farEdgeP50)} ms → ${f(far.edgeRetrieve.p50)} ms (p99 ${f(far.edgeRetrieve.p99)} ms); the object's storage accesses per warm retrieve ${f(BEFORE.storagePerRetrieve, 0)} → ${f(result.storage["edge retrieve"], 1)} (its use counters' batches; ${f(result.storage["edge retrieve, read key"], 1)} for a read key); ${CLIENTS}-client retrieve p95 ÷ /healthz ${f(BEFORE.sixteenClientRatio, 2)} → ${f(local.concEdge.p95 / local.concHealthz.p95, 2)}.`
      : "",
  ].filter(Boolean);
  const body = `Run ${new Date().toISOString().slice(0, 16)}Z, ${seconds.toFixed(0)} s, on ${m.cpu} (${m.cores} cores shared), node ${m.node}, wrangler ${m.wrangler}; load average at end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}.
Requests the runtime dropped and the bench sent again (left out of the latencies): ${dropped}.
One agent with ${MEMORIES} lessons (semantic embedder); client wall time in ms over keep-alive HTTP to wrangler dev on 127.0.0.1, sequential, ${N} requests per cell, p50 / p99.
\`edge\`: ranked in the Worker from its snapshot (staleness bound ${STALENESS_MS} ms, the default); \`object\`: \`consistency: "strong"\`, ranked by the agent's Durable Object.
\`far-edge\` adds ${FAR_EDGE} (ms per D1 query, Durable Object call, KV read, location-cache operation) at the bindings.

${latency}

${conc}

Storage accesses: pread64/pwrite64 calls of workerd on the Durable Objects' SQLite files, per request: over ${STORAGE_READS} warm reads in a row (their revalidations and batched use counters included), or 40 rewards (strace).
${steady}

${sizes}

${verdicts.join("\n")}`;
  console.log(`\n${EDGE_READS_HEADING}\n\n${body}\n`);
  if (WRITE) {
    replaceResultsSection(EDGE_READS_HEADING, body);
    log("wrote the edge-reads section of bench/RESULTS.md");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (r) => {
      report(r);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
