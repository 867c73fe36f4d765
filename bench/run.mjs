// `npm run bench`: retrieval and reward-write latency/throughput through the real Worker →
// Durable Object path on local workerd (wrangler dev), plus the ranking step alone in-process.
//
//   node bench/run.mjs [--sizes 1000,10000,50000] [--quick] [--port 8799] [--write] [--keep]
//
//   --sizes   memory counts to test (default 1000,10000,50000; --quick: 1000,5000)
//   --quick   fewer requests per phase; does not overwrite bench/RESULTS.md unless --write
//   --write   write bench/RESULTS.md even for a --quick or custom-size run
//   --port    first port to try for wrangler dev (default 8799; the next free one is used)
//   --keep    keep the temporary directory (project snapshot, state, wrangler log; path printed)
//
// Everything runs on 127.0.0.1: wrangler dev serves a snapshot of the project copied at start
// (so concurrent edits cannot hot-reload it mid-run) with a fresh temporary --persist-to state
// directory and its own operator key. The wrangler process group is killed on exit, on error
// and on SIGINT/SIGTERM. Every loop is bounded in count
// and in time. Client-side wall time per request is measured with performance.now().
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { corpus, queries, rng } from "./corpus.mjs";
import { EDGE_HEADING } from "./edge.mjs";
import { EDGE_READS_HEADING } from "./edge-reads.mjs";
import {
  devLogFindings,
  devServer,
  log,
  machine,
  must,
  PRACTICE_HEADING,
  QUALITY_HEADING,
  request,
  RESULTS_FILE,
  root,
  writeResults,
} from "./lib/dev-server.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const runStarted = performance.now();

// ---------------------------------------------------------------- options
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const QUICK = flag("--quick");
const SIZES = (opt("--sizes") ?? (QUICK ? "1000,5000" : "1000,10000,50000"))
  .split(",")
  .map((s) => Number(s.trim().replace(/k$/i, "000")))
  .filter((n) => Number.isInteger(n) && n > 0);
if (!SIZES.length) fail("--sizes must list positive integers, e.g. --sizes 1000,10000");
const DEFAULT_SIZES = !opt("--sizes") && !QUICK;
const WRITE = flag("--write") || DEFAULT_SIZES;
const KEEP = flag("--keep");
const FIRST_PORT = Number(opt("--port") ?? 8799);
const PROFILE = opt("--profile") ?? "local";
if (PROFILE === "far-edge") {
  const { runEdgeBench } = await import("./edge.mjs");
  await runEdgeBench(argv).then(
    () => process.exit(0),
    (err) => fail(err instanceof Error ? err.message : String(err)),
  );
} else if (PROFILE !== "local") fail(`--profile must be local or far-edge, not ${PROFILE}`);

const CFG = QUICK
  ? { serverWarmup: 100, warmup: 20, seq: 100, conc: 16, concTotal: 320, baseline: 100, rankIters: 100 }
  : { serverWarmup: 300, warmup: 50, seq: 300, conc: 16, concTotal: 800, baseline: 200, rankIters: 300 };
const API_BATCH_MAX = 500; // operations per /library/batch call allowed by the API schema
const SAFE_BATCH = 99; // what works when the server hits SQLite's 100-bound-parameter limit (see probeBatch)
const MAX_BODY = 1_048_576; // MAX_BODY_BYTES default; batches are split to stay well under it
const PHASE_TIME_LIMIT_MS = 180_000; // any single measured phase stops after this
const LOAD_TIME_LIMIT_MS = 420_000; // bulk load of one size gives up after this
const TARGETS = {
  retrieveP99At10k: 15,
  rewardP99: 10,
  rankP50: { 10000: 1, 50000: 4 }, // ms, the new kernel's rank step in-process
  speedup: 4, // old rank step p50 ÷ new, same run
  recall: 0.99, // recall@20 of the new kernel against the old (exact) one
  scanOverBaselineAt10k: 2, // retrieve p50 − baseline GET p50 through the Worker, ms
  footprintMiBAt50k: 48,
  coldStartMsAt50k: 300,
};

function fail(msg) {
  console.error(`bench: ${msg}`);
  process.exit(2);
}

// ---------------------------------------------------------------- wrangler lifecycle
const server = devServer({ keep: KEEP });

async function startWorker(adminKey) {
  return server.start({ firstPort: FIRST_PORT, vars: { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn" } });
}

// ---------------------------------------------------------------- stats
function pct(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), mean, max: s.length ? s[s.length - 1] : NaN };
}

/** Sequential: `count` requests one after another (bounded by count and by PHASE_TIME_LIMIT_MS). */
async function sequential(count, make) {
  const lat = [];
  let errors = 0;
  let firstError = null;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    if (server.stopping || performance.now() - t0 > PHASE_TIME_LIMIT_MS) break;
    const { method, url, token, body, check } = make(i);
    const r = await request(method, url, token, body);
    if (r.status !== 200) {
      errors++;
      firstError ??= `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
    } else {
      lat.push(r.ms);
      check?.(r.body);
    }
  }
  return { ...stats(lat), errors, firstError, wallMs: performance.now() - t0, truncated: lat.length + errors < count };
}

/** `clients` concurrent loops sharing `total` requests; throughput = completed / wall time. */
async function concurrent(clients, total, make) {
  let next = 0;
  let ok = 0;
  let errors = 0;
  let firstError = null;
  const lat = [];
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (server.stopping || i >= total || performance.now() - t0 > PHASE_TIME_LIMIT_MS) return;
      const { method, url, token, body, check } = make(i);
      try {
        const r = await request(method, url, token, body);
        if (r.status !== 200) {
          errors++;
          firstError ??= `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
        } else {
          ok++;
          lat.push(r.ms);
          check?.(r.body);
        }
      } catch (e) {
        errors++;
        firstError ??= String(e);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const wallMs = performance.now() - t0;
  return { ...stats(lat), ok, errors, firstError, wallMs, rps: ok / (wallMs / 1000), truncated: ok + errors < total };
}

// ---------------------------------------------------------------- the benchmark
/**
 * The API accepts 500 operations per batch, but a server that binds more than 100 SQL variables
 * in one statement fails (500) on batches of 100 or more, after committing them. Probe once on a
 * throwaway agent and fall back to 99-operation batches if needed, so the load still works.
 */
async function probeBatch(base, token) {
  const A = `${base}/v1/agents/bench-probe-${randomBytes(3).toString("hex")}`;
  await must("PUT", A, token, {});
  const ops = Array.from({ length: 100 }, (_, i) => ({ op: "create", experience: { text: `probe experience number ${i}` } }));
  const r = await request("POST", `${A}/library/batch`, token, { reason: "bench probe", operations: ops });
  await request("DELETE", A, token).catch(() => {});
  if (r.status === 200) return { batch: API_BATCH_MAX, note: null };
  return {
    batch: SAFE_BATCH,
    note: `A 100-operation \`POST …/library/batch\` returned ${r.status} (${(r.body && r.body.title) || "error"}), so experiences were loaded in batches of ${SAFE_BATCH} instead of ${API_BATCH_MAX}.`,
  };
}

/**
 * Before any measurement, exercise every measured route on a throwaway agent so the Worker's and
 * the Durable Object's code is JIT-compiled; otherwise the first size pays the warm-up.
 */
async function warmupServer(base, token, batch) {
  const A = `${base}/v1/agents/bench-warmup-${randomBytes(3).toString("hex")}`;
  await must("PUT", A, token, {});
  const items = corpus(1000, 4242);
  const ids = [];
  for (let i = 0; i < items.length; i += batch) {
    const ops = items.slice(i, i + batch).map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags } }));
    const r = await must("POST", `${A}/library/batch`, token, { reason: "bench warm-up", operations: ops }, [200]);
    for (const e of r.body.experiences) ids.push(e.id);
  }
  await must("POST", `${A}/cases`, token, { task: "warm up the case path", reward: 1 }, [200, 201]);
  const qs = queries(CFG.serverWarmup, 4343);
  const t0 = performance.now();
  for (let i = 0; i < CFG.serverWarmup && performance.now() - t0 < 60_000; i++) {
    const r = await must("POST", `${A}/retrieve`, token, { query: qs[i] }, [200]);
    await must(
      "POST",
      `${A}/rewards`,
      token,
      i % 2 && r.body.items.length
        ? { retrievalId: r.body.retrievalId, outcome: "success" }
        : { memoryIds: [ids[i % ids.length]], reward: 0.5 },
      [200],
    );
    await must("POST", `${A}/retrieve`, token, { query: qs[i], kinds: ["case"] }, [200]);
    await must("GET", A, token);
  }
  await request("DELETE", A, token).catch(() => {});
  log(`warm-up done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function benchSize(base, token, n, BATCH) {
  const agentId = `bench-${n}-${randomBytes(3).toString("hex")}`;
  const A = `${base}/v1/agents/${agentId}`;
  log(`N=${n}: agent ${agentId}`);
  await must("PUT", A, token, { displayName: `bench ${n}` });
  // The default capacity (5000) would let a capacity sweep archive most of a large library;
  // wrangler dev never runs crons by itself, but make the agent able to hold N regardless.
  await must("PATCH", `${A}/config`, token, { capacity: Math.max(5000, n * 2) });

  // ---- bulk load
  const items = corpus(n);
  const ids = [];
  const batchMs = [];
  const loadStart = performance.now();
  let loaded = 0;
  let batchNo = 0;
  while (loaded < n) {
    if (server.stopping) throw new Error("stopped");
    if (performance.now() - loadStart > LOAD_TIME_LIMIT_MS)
      throw new Error(`bulk load of ${n} exceeded ${LOAD_TIME_LIMIT_MS / 1000} s at ${loaded} items`);
    let size = Math.min(BATCH, n - loaded);
    let body;
    for (;;) {
      body = {
        reason: `bench load ${loaded}..${loaded + size}`,
        operations: items
          .slice(loaded, loaded + size)
          .map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags, source: "import" } })),
      };
      if (Buffer.byteLength(JSON.stringify(body)) < MAX_BODY * 0.9 || size === 1) break;
      size = Math.ceil(size / 2);
    }
    const r = await must("POST", `${A}/library/batch`, token, body, [200]);
    for (const e of r.body.experiences) ids.push(e.id);
    batchMs.push(r.ms);
    loaded += size;
    batchNo++;
    if (batchNo % 20 === 0)
      log(`N=${n}: loaded ${loaded}/${n} (${((performance.now() - loadStart) / 1000).toFixed(1)} s, last batch ${r.ms.toFixed(0)} ms)`);
  }
  const loadMs = performance.now() - loadStart;
  if (ids.length !== n) throw new Error(`expected ${n} ids, got ${ids.length}`);
  // A few cases too, so retrieval's default kinds (experience + case) both have data.
  for (let i = 0; i < 10; i++) {
    await must("POST", `${A}/cases`, token, { task: queries(1, 500 + i)[0], reward: i % 3 === 0 ? -0.5 : 1, tags: ["bench"] }, [200, 201]);
  }
  log(
    `N=${n}: loaded in ${(loadMs / 1000).toFixed(1)} s (${batchMs.length} batches; first ${batchMs[0].toFixed(0)} ms, last ${batchMs.at(-1).toFixed(0)} ms)`,
  );

  // ---- retrieval
  const qs = queries(CFG.warmup + CFG.seq + CFG.concTotal, 7 + n);
  const retrievalIds = [];
  let itemsSum = 0;
  let candSum = 0;
  let retrievedCount = 0;
  const retrieveReq = (q, phase) => ({
    method: "POST",
    url: `${A}/retrieve`,
    token,
    body: phase ? { query: q, phase } : { query: q },
    check: (b) => {
      if (!b || !Array.isArray(b.items) || typeof b.retrievalId !== "string")
        throw new Error(`bad retrieve response: ${JSON.stringify(b).slice(0, 200)}`);
      retrievedCount++;
      itemsSum += b.items.length;
      candSum += b.candidates;
      if (b.items.length) retrievalIds.push(b.retrievalId);
    },
  });
  const PHASES = [undefined, "observation", "reasoning", "planning", "action", "reflection"];
  for (let i = 0; i < CFG.warmup; i++) await must("POST", `${A}/retrieve`, token, { query: qs[i] }, [200]);
  const retrieveSeq = await sequential(CFG.seq, (i) => retrieveReq(qs[CFG.warmup + i], PHASES[i % PHASES.length]));
  const retrieveConc = await concurrent(CFG.conc, CFG.concTotal, (i) =>
    retrieveReq(qs[CFG.warmup + CFG.seq + i], PHASES[i % PHASES.length]),
  );
  log(
    `N=${n}: retrieve p50 ${retrieveSeq.p50.toFixed(2)} p99 ${retrieveSeq.p99.toFixed(2)} ms; ${retrieveConc.rps.toFixed(0)} req/s @${CFG.conc}`,
  );

  // ---- reward writes: alternate by retrievalId (the usual path) and by 3 random memoryIds
  const r = rng(n ^ 0x5eed);
  const OUTCOMES = ["success", "failure", "partial", "success"];
  let updatedSum = 0;
  let rewardCount = 0;
  const rewardReq = (i) => {
    const byRetrieval = i % 2 === 0 && retrievalIds.length > 0;
    const body = byRetrieval
      ? { retrievalId: retrievalIds[Math.floor(r() * retrievalIds.length)], outcome: OUTCOMES[i % OUTCOMES.length] }
      : {
          memoryIds: [0, 1, 2].map(() => ids[Math.floor(r() * ids.length)]).filter((x, j, a) => a.indexOf(x) === j),
          reward: Math.round((r() * 2 - 1) * 100) / 100,
        };
    return {
      method: "POST",
      url: `${A}/rewards`,
      token,
      body,
      check: (b) => {
        if (!b || !Array.isArray(b.updated)) throw new Error(`bad reward response: ${JSON.stringify(b).slice(0, 200)}`);
        rewardCount++;
        updatedSum += b.updated.length;
      },
    };
  };
  for (let i = 0; i < CFG.warmup; i++) await must("POST", `${A}/rewards`, token, rewardReq(i).body, [200]);
  const rewardSeq = await sequential(CFG.seq, (i) => rewardReq(i));
  const rewardConc = await concurrent(CFG.conc, CFG.concTotal, (i) => rewardReq(i));
  log(`N=${n}: reward p50 ${rewardSeq.p50.toFixed(2)} p99 ${rewardSeq.p99.toFixed(2)} ms; ${rewardConc.rps.toFixed(0)} req/s @${CFG.conc}`);

  // ---- baseline: an authenticated read that never reaches the Durable Object (auth + D1 only)
  const baseline = await sequential(CFG.baseline, () => ({ method: "GET", url: A, token }));
  const health = await sequential(CFG.baseline, () => ({ method: "GET", url: `${base}/healthz` }));
  // ---- the same retrieval restricted to the 10 cases: everything but the scan of N experience vectors
  const qs2 = queries(CFG.baseline, 31 + n);
  const casesOnly = await sequential(CFG.baseline, (i) => ({
    method: "POST",
    url: `${A}/retrieve`,
    token,
    body: { query: qs2[i], kinds: ["case"] },
  }));

  return {
    n,
    agentId,
    load: {
      ms: loadMs,
      batchSize: BATCH,
      batches: batchMs.length,
      batch: stats(batchMs),
      firstBatchMs: batchMs[0],
      lastBatchMs: batchMs.at(-1),
      itemsPerSec: n / (loadMs / 1000),
    },
    retrieveSeq,
    retrieveConc,
    meanItems: itemsSum / Math.max(1, retrievedCount),
    meanCandidates: candSum / Math.max(1, retrievedCount),
    rewardSeq,
    rewardConc,
    meanUpdated: updatedSum / Math.max(1, rewardCount),
    baseline,
    health,
    casesOnly,
    loadAvg1: os.loadavg()[0],
  };
}

/**
 * The first retrieval of the largest agent after every Durable Object was evicted (wrangler dev
 * restarted on the same state). The Worker is warmed first (/healthz, an agent GET, which never
 * reaches the Durable Object) and so is the code of the Durable Object, by retrievals from the
 * smallest agent (whose first one is reported as the isolate's cold start), so the difference to a
 * warm retrieval is the agent's own start: schema check, configuration, labels, loading its vectors' code pages.
 */
async function coldStart(token, rows) {
  log(`cold start: restarting wrangler dev on the same state…`);
  const { base } = await server.restart();
  const row = rows.at(-1);
  const A = `${base}/v1/agents/${row.agentId}`;
  await must("GET", `${base}/healthz`);
  await must("GET", A, token);
  const qs = queries(CFG.baseline + 1, 4711);
  let isolateFirstMs = NaN;
  if (rows.length > 1) {
    const W = `${base}/v1/agents/${rows[0].agentId}`;
    for (let i = 0; i < CFG.warmup; i++) {
      const r = await must("POST", `${W}/retrieve`, token, { query: qs[i] }, [200]);
      if (i === 0) isolateFirstMs = r.ms;
    }
  }
  const first = await must("POST", `${A}/retrieve`, token, { query: qs[0] }, [200]);
  const warm = await sequential(CFG.baseline, (i) => ({ method: "POST", url: `${A}/retrieve`, token, body: { query: qs[i + 1] } }));
  log(`cold start at N=${row.n}: first retrieval ${first.ms.toFixed(1)} ms, then p50 ${warm.p50.toFixed(2)} ms`);
  return { n: row.n, firstMs: first.ms, warm, startMs: first.ms - warm.p50, isolateFirstMs, warmedOn: rows.length > 1 ? rows[0].n : null };
}

function runRanking(sizes) {
  const tsx = path.join(root, "node_modules/.bin/tsx");
  if (!existsSync(tsx)) throw new Error("node_modules/.bin/tsx not found (needed for the ranking-step benchmark)");
  const out = execFileSync(tsx, [path.join(here, "ranking.ts"), "--sizes", sizes.join(","), "--iters", String(CFG.rankIters), "--json"], {
    cwd: root,
    // A full collection before each footprint reading, so the heap growth is what the index holds.
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc`.trim() },
    encoding: "utf8",
    timeout: 900_000, // two kernels at three sizes; slow when other work shares the cores
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split("\n").at(-1));
}

// ---------------------------------------------------------------- report
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const fi = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "—");

const mib = (bytes) => bytes / 2 ** 20;

function table(rows, rank) {
  const head = [
    "N",
    "retrieve p50",
    "p95",
    "p99",
    "retrieve − GET p50",
    "retrieve rps@16",
    "reward p50",
    "p95",
    "p99",
    "reward rps@16",
    "rank-step p50 old",
    "new",
    "speed-up",
    "rank-step p99 old",
    "new",
    "recall@20",
  ];
  const body = rows.map((r) => {
    const k = rank?.[r.n];
    return [
      fi(r.n),
      f(r.retrieveSeq.p50),
      f(r.retrieveSeq.p95),
      f(r.retrieveSeq.p99),
      f(r.retrieveSeq.p50 - r.baseline.p50),
      fi(r.retrieveConc.rps),
      f(r.rewardSeq.p50),
      f(r.rewardSeq.p95),
      f(r.rewardSeq.p99),
      fi(r.rewardConc.rps),
      f(k?.old.step.p50, 3),
      f(k?.new.step.p50, 3),
      `${f(k?.old.step.p50 / k?.new.step.p50, 1)}×`,
      f(k?.old.step.p99, 3),
      f(k?.new.step.p99, 3),
      f(k?.recall.unthresholded, 4),
    ];
  });
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ");
  const text = [line(head), w.map((x) => "-".repeat(x)).join("  "), ...body.map(line)].join("\n");
  const md = [
    `| ${head.join(" | ")} |`,
    `|${head.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...body.map((b) => `| ${b.join(" | ")} |`),
  ].join("\n");
  return { text, md };
}

const verdict = (ok) => `**${ok ? "met" : "NOT met"}**`;

function speedVerdict(rows, rank, cold) {
  const out = [];
  for (const [n, limit] of Object.entries(TARGETS.rankP50)) {
    const k = rank?.[n];
    out.push(
      k
        ? `- Rank step p50 at ${fi(Number(n))} memories ≤ ${limit} ms: ${verdict(k.new.step.p50 <= limit)} (measured ${f(k.new.step.p50, 3)} ms; the old kernel ${f(k.old.step.p50, 3)} ms in the same run, ${f(k.old.step.p50 / k.new.step.p50, 1)}×, aim ≥ ${TARGETS.speedup}×: ${verdict(k.old.step.p50 / k.new.step.p50 >= TARGETS.speedup)})`
        : `- Rank step p50 at ${fi(Number(n))} memories ≤ ${limit} ms: not measured in this run`,
    );
  }
  const recalls = rows.map((r) => rank?.[r.n]?.recall).filter(Boolean);
  const worst = Math.min(...recalls.map((x) => Math.min(x.unthresholded, x.atThreshold)));
  out.push(
    `- Recall@20 of the int8 scan against the exact float scan ≥ ${TARGETS.recall}: ${verdict(worst >= TARGETS.recall)} (lowest over sizes, with and without the threshold: ${f(worst, 4)})`,
  );
  const at10k = rows.find((r) => r.n === 10_000);
  if (at10k) {
    const over = at10k.retrieveSeq.p50 - at10k.baseline.p50;
    out.push(
      `- Through the Worker at 10k, retrieve p50 − baseline GET p50 ≤ ${TARGETS.scanOverBaselineAt10k} ms: ${verdict(over <= TARGETS.scanOverBaselineAt10k)} (measured ${f(at10k.retrieveSeq.p50)} − ${f(at10k.baseline.p50)} = ${f(over)} ms)`,
    );
  }
  const fp = rank?.[50000]?.footprint;
  if (fp) {
    out.push(
      `- Memory held by the index at 50k memories ≤ ${TARGETS.footprintMiBAt50k} MB: ${verdict(mib(fp.new.heldBytes) <= TARGETS.footprintMiBAt50k)} (measured ${f(mib(fp.new.heldBytes), 1)} MiB; the float matrix held ${f(mib(fp.old.heldBytes), 1)} MiB)`,
    );
  }
  if (cold) {
    out.push(
      `- Cold start of a ${fi(cold.n)}-memory agent ≤ ${TARGETS.coldStartMsAt50k} ms: ${verdict(cold.startMs <= TARGETS.coldStartMsAt50k)} (first retrieval after eviction ${f(cold.firstMs, 1)} ms, warm p50 ${f(cold.warm.p50)} ms, difference ${f(cold.startMs, 1)} ms)`,
    );
  }
  return out.join("\n");
}

function targetsVerdict(rows) {
  const out = [];
  const at10k = rows.find((r) => r.n === 10_000);
  out.push(
    at10k
      ? `- Retrieval p99 at 10k memories < ${TARGETS.retrieveP99At10k} ms: **${at10k.retrieveSeq.p99 < TARGETS.retrieveP99At10k ? "met" : "NOT met"}** (measured ${f(at10k.retrieveSeq.p99)} ms sequential; ${f(at10k.retrieveConc.p99)} ms p99 under 16 clients)`
      : `- Retrieval p99 at 10k memories < ${TARGETS.retrieveP99At10k} ms: not measured in this run (10000 not among the sizes)`,
  );
  for (const r of rows) {
    out.push(
      `- Reward write p99 < ${TARGETS.rewardP99} ms at N=${fi(r.n)}: **${r.rewardSeq.p99 < TARGETS.rewardP99 ? "met" : "NOT met"}** (measured ${f(r.rewardSeq.p99)} ms sequential; ${f(r.rewardConc.p99)} ms p99 under 16 clients)`,
    );
  }
  return out.join("\n");
}

function detailsMd(rows, rank) {
  const lines = [
    `| N | bulk load | batches (${rows[0]?.load.batchSize ?? "?"} ops) | batch p50 / max ms | first → last batch ms | items/s | mean items / candidates per retrieval | retrieve p99 @16 (ms) | mean Q-updates per reward | reward p99 @16 (ms) | /healthz p50 / p99 (ms) | baseline GET agent p50 / p99 (ms) | retrieve cases-only p50 / p99 (ms) | 1-min load avg after |`,
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${fi(r.n)} | ${f(r.load.ms / 1000, 1)} s | ${r.load.batches} | ${f(r.load.batch.p50, 0)} / ${f(r.load.batch.max, 0)} | ${f(r.load.firstBatchMs, 0)} → ${f(r.load.lastBatchMs, 0)} | ${fi(r.load.itemsPerSec)} | ${f(r.meanItems, 1)} / ${f(r.meanCandidates, 1)} | ${f(r.retrieveConc.p99)} | ${f(r.meanUpdated, 1)} | ${f(r.rewardConc.p99)} | ${f(r.health.p50)} / ${f(r.health.p99)} | ${f(r.baseline.p50)} / ${f(r.baseline.p99)} | ${f(r.casesOnly.p50)} / ${f(r.casesOnly.p99)} | ${f(r.loadAvg1)} |`,
    );
  }
  const rl = [
    "| N | kernel | topK p50 / p99 (ms) | rank() p50 / p99 (ms) | mean hits (≤ k1=20) | recall@20 at threshold / none | typed memory (MiB) | held (MiB) | build (ms) | query embed p50 (ms) |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    const k = rank?.[r.n];
    if (!k) continue;
    for (const name of ["old", "new"]) {
      const s = k[name];
      const fp = k.footprint[name];
      const rec = name === "new" ? `${f(k.recall.atThreshold, 4)} / ${f(k.recall.unthresholded, 4)}` : "1 (reference)";
      rl.push(
        `| ${fi(r.n)} | ${name === "old" ? "old: float32 scalar" : "new: int8 SIMD + exact re-score"} | ${f(s.topK.p50, 3)} / ${f(s.topK.p99, 3)} | ${f(s.rank.p50, 4)} / ${f(s.rank.p99, 4)} | ${f(s.meanHits, 1)} | ${rec} | ${f(mib(fp.typedBytes), 1)} | ${k.footprint.measured ? f(mib(fp.heldBytes), 1) : "—"} | ${f(fp.buildMs, 0)} | ${f(k.embedQuery.p50, 3)} |`,
      );
    }
  }
  const errs = rows
    .flatMap((r) =>
      [
        ["retrieve seq", r.retrieveSeq],
        ["retrieve @16", r.retrieveConc],
        ["reward seq", r.rewardSeq],
        ["reward @16", r.rewardConc],
      ]
        .filter(([, s]) => s.errors || s.truncated)
        .map(
          ([name, s]) =>
            `- N=${r.n} ${name}: ${s.errors} errors${s.truncated ? ", stopped at the phase time limit" : ""}${s.firstError ? ` (first: ${s.firstError})` : ""}`,
        ),
    )
    .join("\n");
  return { load: lines.join("\n"), rank: rl.join("\n"), errs };
}

// ---------------------------------------------------------------- main
async function main() {
  const m = machine();
  const load0 = os.loadavg();
  log(`sizes ${SIZES.join(", ")}${QUICK ? " (quick)" : ""}; ${m.cpu}, ${m.cores} cores, node ${m.node}, wrangler ${m.wrangler}`);

  log("ranking step (in-process, tsx)…");
  const rank = runRanking(SIZES);

  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const { base, logFile } = await startWorker(adminKey);
  const tenant = await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-${new Date().toISOString()}` }, [201]);
  const token = tenant.body.apiKey;

  const probe = await probeBatch(base, token);
  if (probe.note) log(probe.note);
  await warmupServer(base, token, probe.batch);
  const rows = [];
  for (const n of SIZES) rows.push(await benchSize(base, token, n, probe.batch));
  const cold = await coldStart(token, rows);
  const load1 = os.loadavg();
  const { reloads, errors: workerErrors } = devLogFindings(logFile);
  await server.cleanup();

  const totalS = (performance.now() - runStarted) / 1000;
  const t = table(rows, rank);
  console.log("");
  console.log("Praxis benchmark — latency in ms (client wall time, sequential), throughput in req/s with 16 concurrent clients");
  console.log(t.text);
  console.log("");
  console.log(targetsVerdict(rows).replace(/\*\*/g, ""));
  console.log(speedVerdict(rows, rank, cold).replace(/\*\*/g, ""));
  console.log(
    `Baseline GET /v1/agents/:id (auth + D1, no Durable Object) p50/p99 ms: ${rows.map((r) => `${f(r.baseline.p50)}/${f(r.baseline.p99)}`).join(", ")}; load average at start ${load0.map((x) => x.toFixed(2)).join(" ")}, at end ${load1.map((x) => x.toFixed(2)).join(" ")} (${m.cores} cores).`,
  );
  if (reloads || workerErrors.length) console.log(`wrangler dev: ${reloads} reloads, ${workerErrors.length} error lines in its log.`);
  console.log(
    `\nTotal run time ${totalS.toFixed(0)} s. Bulk load: ${rows.map((r) => `${fi(r.n)} in ${f(r.load.ms / 1000, 1)} s`).join(", ")}.`,
  );

  const d = detailsMd(rows, rank);
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const md = `# Benchmark results

Latest run of \`npm run bench\` (\`node bench/run.mjs${argv.length ? " " + argv.join(" ") : ""}\`), ${date}.
Total run time ${totalS.toFixed(0)} s.

## Machine

- CPU: ${m.cpu}, ${m.cores} cores available
- Memory: ${m.memGiB} GiB
- OS: ${m.os}
- Node ${m.node}; wrangler ${m.wrangler}; workerd ${m.workerd}
- Load average (1/5/15 min) at start ${load0.map((x) => x.toFixed(2)).join(" / ")}, at end ${load1.map((x) => x.toFixed(2)).join(" / ")}
  (the client, wrangler and workerd all share these cores, so client overhead is included)

## Results

Latency in ms, client-side wall time per request (\`performance.now()\` around one keep-alive HTTP
request), ${CFG.seq} sequential requests after ${CFG.warmup} warm-up requests on the same agent (and a server-wide
warm-up of ${CFG.serverWarmup} rounds of every measured route on a throwaway agent before the first size). Throughput in req/s: ${CFG.concTotal} requests
spread over ${CFG.conc} concurrent clients, completed ÷ wall time. "retrieve − GET" is retrieve p50 minus
the baseline \`GET /v1/agents/:id\` p50 at that size: what the Durable Object adds (embed, scan, re-score,
hydrate, rank, record). The rank step is in-process (no HTTP, no Durable Object), ${CFG.rankIters} calls of a
top-20 scan over N 384-dim vectors plus \`rank()\`, for both kernels in this same run: old =
\`VectorMatrix.topK\`, the scalar float32 scan the local index used before; new = \`Int8Matrix.topK\`, int8
codes scanned by the WebAssembly SIMD kernel, then the best 40 re-scored against their float vectors
(from a Map here, from SQLite in the Durable Object). recall@20 is the new kernel's top 20 against the
old one's, without a threshold (the first ${rank?.[rows[0]?.n]?.recall.queries.unthresholded ?? "—"} queries).

${t.md}

## Targets

${targetsVerdict(rows)}
${speedVerdict(rows, rank, cold)}

## Details

What each request does: \`POST /v1/agents/:id/retrieve\` goes Worker (API-key check and agent lookup in
D1) → AgentMemory Durable Object (embed the query with the deployment's default \`semantic\` embedder,
100-d, scan the int8 index, re-score its best 40 against their float vectors read from SQLite, count
the query words' matches in FTS5 and run BM25 over the discriminative ones, read the hits' rows,
rank, record the retrieval). Retrieval queries vary and rotate through the phases.
\`POST …/rewards\` alternates between a \`retrievalId\` of an earlier retrieval (outcome success / failure /
partial) and 3 random \`memoryIds\` with a numeric reward; each updates Q, counters and Q history in one
transaction. The baseline is \`GET /v1/agents/:id\` (API-key lookup + agent lookup in D1, no Durable Object),
i.e. the fixed HTTP + Worker overhead that every retrieve and reward above includes; \`/healthz\` is
one D1 query without auth. "Retrieve cases-only" is the same retrieval with
\`kinds: ["case"]\` (10 cases): the full path minus the scan of the N experience vectors, so
retrieve p50 − cases-only p50 approximates the in-Durable-Object scan cost at that size.

Each size uses a fresh agent loaded through \`POST …/library/batch\` (${probe.batch} creates per call, each call one
library version) with generated ~25-word experiences from a seeded RNG (bench/corpus.mjs), plus 10 cases.

${d.load}

Ranking step breakdown (in-process). Typed memory is the matrix's own buffer (float32 rows, or the
WebAssembly memory with int8 rows, scales and scores); "held" is that plus the growth of the Node heap
(after a full GC) across building the index: its ids and maps.

${d.rank}

Cold start: wrangler dev was restarted on the same state after the last size, which evicts every
Durable Object; after a \`/healthz\` and a \`GET\` of the agent (the Worker warm, the Durable Object not
started)${cold.warmedOn ? ` and ${CFG.warmup} retrievals from the ${fi(cold.warmedOn)}-memory agent (the Durable Object's code compiled; the first of them, the isolate's own cold start, took ${f(cold.isolateFirstMs, 1)} ms)` : ""},
the first \`POST …/retrieve\` to the ${fi(cold.n)}-memory agent took ${f(cold.firstMs, 1)} ms against a warm
p50 of ${f(cold.warm.p50)} ms (p99 ${f(cold.warm.p99)} ms) over the next ${cold.warm.n}: about ${f(cold.startMs, 0)} ms to start the agent
(schema check, configuration, the library's labels, reading ${fi(cold.n)} int8 codes from SQLite into the index, a page
of about 16 KB per row).
${probe.note ? `\nNote: ${probe.note}\n` : ""}
wrangler dev reloads during the run: ${reloads}. Error lines in the wrangler dev log: ${workerErrors.length}${
    workerErrors.length
      ? ` (first ones below)\n\n${workerErrors
          .slice(0, 5)
          .map((l) => "    " + l)
          .join("\n")}`
      : "."
  }
${d.errs ? `\nErrors / truncated phases:\n\n${d.errs}\n` : ""}`;

  if (WRITE) {
    writeResults(md, [PRACTICE_HEADING, QUALITY_HEADING, EDGE_HEADING, EDGE_READS_HEADING]);
    log(`wrote ${path.relative(root, RESULTS_FILE)}`);
  } else {
    log("not writing bench/RESULTS.md for a quick/custom run (pass --write to force)");
  }
}

main().catch(async (err) => {
  if (!server.stopping) console.error(`bench failed: ${err?.stack ?? err}`);
  await server.cleanup();
  process.exit(server.stopping ? 130 : 1);
});
