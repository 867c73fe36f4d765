// Reads at the edge by library size (issue 43), the part of `npm run bench:edge-reads` that loads
// agents of 1,000 / 10,000 / 100,000 memories (lessons and cases) through the API and measures, per
// size: write → read-your-write (the read carries the write's `minVersion`), the next warm read,
// far-edge warm reads, the snapshot's bytes and what the isolate holds for the agent, the workerd
// process's CPU per write, one writer's throughput while 16 clients read the agent, and where the
// reads were served.
import { performance } from "node:perf_hooks";
import { corpus, queries, rng } from "./corpus.mjs";
import { log, must, request, sleep } from "./lib/dev-server.mjs";
import { cpuProfile } from "./lib/cpu-profile.mjs";

/** The bench entry's own route (bench/edge-worker.ts): the isolate's snapshot bytes, DELETE forgets them first. */
const READ_MODELS = "/__bench/read-models";
/** Lessons per /library/batch call: the route's maximum, one library version each. */
const LESSON_BATCH = 500;
/** Of every ten memories one is a case, added by POST …/cases from this many clients at once (cases have no batch route). */
export const CASE_SHARE = 0.1;
const CASE_CLIENTS = 16;
const READERS = 16;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
export const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s.at(-1) };
};

/** Sizes from `--sizes 1k,10k` or EDGE_READS_SIZES, else the defaults. */
export function sizesFrom(spec, fallback) {
  return (spec ?? fallback)
    .split(",")
    .map((s) => Number(s.trim().replace(/k$/i, "000")))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** A request that must answer one of `ok`; a dropped connection or a 5xx is sent again (up to 3 times), counted in `counts.lost`. */
export async function sendOk(counts, method, url, token, body, ok = [200]) {
  for (let attempt = 1; ; attempt++) {
    const r = await request(method, url, token, body).catch((err) => ({ status: 0, body: String(err), ms: NaN }));
    if (ok.includes(r.status)) return r;
    if (attempt === 3 || (r.status >= 400 && r.status < 500))
      throw new Error(`${method} ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    counts.lost++;
    await sleep(500);
  }
}

/**
 * Loads `size` memories: lessons in batches of LESSON_BATCH (a batch whose answer is lost is sent
 * again only if the library's last version is not it), then cases from CASE_CLIENTS clients.
 */
/**
 * One /library/batch of lessons, sent again after a lost answer only if the library's last version
 * is not this batch's (its `reason` names it), so no batch is stored twice.
 */
export async function postBatch(A, token, reason, operations) {
  for (let attempt = 1; ; attempt++) {
    const r = await request("POST", `${A}/library/batch`, token, { reason, operations }).catch((err) => ({
      status: 0,
      body: String(err),
    }));
    if (r.status === 200) break;
    await sleep(1000);
    const last = await must("GET", `${A}/library/versions?limit=1`, token, undefined, [200]);
    if (last.body.items[0]?.reason === reason) break;
    if (attempt === 3) throw new Error(`POST ${A}/library/batch → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
  }
}

export async function loadMemories(base, token, agentId, size, seed) {
  const A = `${base}/v1/agents/${agentId}`;
  const cases = Math.round(size * CASE_SHARE);
  const lessons = size - cases;
  const items = corpus(lessons + cases, seed);
  // The default capacity (5,000) would let the upkeep sweep archive most of a large library.
  await must("PATCH", `${A}/config`, token, { capacity: Math.max(5000, size * 2) });
  const t0 = performance.now();
  for (let i = 0; i < lessons; i += LESSON_BATCH) {
    const reason = `bench load ${i}`;
    const operations = items
      .slice(i, Math.min(lessons, i + LESSON_BATCH))
      .map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags } }));
    await postBatch(A, token, reason, operations);
    if (i % 20_000 === 0 && i) log(`  ${agentId}: ${i} lessons`);
  }
  const lessonsS = (performance.now() - t0) / 1000;
  const r = rng(seed + 1);
  let next = 0;
  const counts = { lost: 0 };
  const client = async () => {
    for (;;) {
      const k = next++;
      if (k >= cases) return;
      const e = items[lessons + k];
      const body = {
        task: e.text,
        answer: `Done: ${e.tags.join(", ")} (${k})`,
        reward: r() < 0.7 ? 1 : -0.5,
        tags: e.tags,
        episodeId: `bench-case-${k}`,
      };
      // Idempotent per episodeId: a case sent again after a lost answer is stored once.
      await sendOk(counts, "POST", `${A}/cases`, token, body, [200, 201]);
    }
  };
  await Promise.all(Array.from({ length: CASE_CLIENTS }, client));
  const seconds = (performance.now() - t0) / 1000;
  return { lessons, cases, seconds, lessonsS, casesS: seconds - lessonsS };
}

/**
 * One size, on a warm local server: the first read (snapshot built, fetched, decoded), warm
 * reads, `cycles` writes each followed by its read-your-write and the next read, the CPU of
 * writes alone and of write + read-your-write, the isolate's weight for this agent, and one
 * writer's throughput while READERS clients read.
 */
export async function measureSize(ctx, { agentId, size, cycles, warmReads, busyS }) {
  const { base, token, cpuSeconds, counts } = ctx;
  const A = `${base}/v1/agents/${agentId}`;
  const qs = queries(4 * warmReads + 4 * cycles + 2000, size + 5);
  let q = 0;
  const read = (extra = {}) => sendOk(counts, "POST", `${A}/retrieve`, token, { query: qs[q++ % qs.length], ...extra });
  const write = (i, tag) =>
    sendOk(
      counts,
      "POST",
      `${A}/experiences`,
      token,
      { text: `A ${tag} lesson ${i} written to the ${size}-memory library to change its content` },
      [201],
    );

  // The agent's object started and its index loaded, so the first edge read measures the snapshot alone.
  await sendOk(counts, "POST", `${A}/retrieve`, token, { query: qs[q++], consistency: "strong" });
  await must("DELETE", `${base}${READ_MODELS}`, undefined, undefined, [200]);
  const first = await read();
  const held = (await must("GET", `${base}${READ_MODELS}`, undefined, undefined, [200])).body;
  // Asked now, while the snapshot the first read was served is the current one.
  const retriever = await must("GET", `${A}/retriever`, token, undefined, [200]);
  const warm = [];
  const warmServed = [];
  for (let i = 0; i < warmReads; i++) {
    const r = await read();
    warm.push(r.ms);
    warmServed.push(r.body.servedFrom);
  }

  const writeMs = [];
  const ryw = [];
  const nextRead = [];
  const rywServed = [];
  const cpu0 = cpuSeconds();
  const run = async () => {
    for (let i = 0; i < cycles; i++) {
      const w = await write(i, "cycle");
      writeMs.push(w.ms);
      const r = await read({ minVersion: w.body.libraryVersion });
      ryw.push(r.ms);
      rywServed.push(r.body.servedFrom);
      const n = await read();
      nextRead.push(n.ms);
      rywServed.push(n.body.servedFrom);
    }
  };
  if (ctx.profileOn) {
    const { functions } = await cpuProfile(ctx.profileOn, run);
    const total = functions.reduce((n, fn) => n + fn.selfMs, 0);
    log(`${size}: ${cycles} write → read-your-write cycles, ${total.toFixed(0)} ms sampled; self time per cycle:`);
    for (const fn of functions.slice(0, 25)) log(`  ${(fn.selfMs / cycles).toFixed(2).padStart(8)} ms  ${fn.fn}`);
  } else await run();
  const cycleCpuMs = ((cpuSeconds() - cpu0) * 1000) / cycles;
  const cpu1 = cpuSeconds();
  for (let i = 0; i < cycles; i++) await write(i, "plain");
  const writeCpuMs = ((cpuSeconds() - cpu1) * 1000) / cycles;

  const busy = await underReaders(ctx, A, qs, busyS);
  return {
    size,
    firstMs: first.ms,
    firstServed: first.body.servedFrom,
    fallbackReason: first.body.fallbackReason ?? null,
    snapshotBytes: retriever.body.snapshot?.bytes ?? null,
    heldBytes: held.bytes,
    warm: stats(warm),
    write: stats(writeMs),
    ryw: stats(ryw),
    next: stats(nextRead),
    edgeShare: {
      warm: share(warmServed),
      ryw: share(rywServed),
      busy: busy.edgeShare,
    },
    writeCpuMs,
    cycleCpuMs,
    busy,
  };
}

const share = (served) => served.filter((s) => s === "edge").length / Math.max(1, served.length);

/** Writes a second by one sequential writer for `seconds`, alone and while READERS clients read the agent without pause. */
async function underReaders(ctx, A, qs, seconds) {
  const { token, counts } = ctx;
  let q = 0;
  const writer = async (label) => {
    const lat = [];
    const t0 = performance.now();
    for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
      const w = await sendOk(
        counts,
        "POST",
        `${A}/experiences`,
        token,
        { text: `A ${label} lesson ${i} written while measuring throughput` },
        [201],
      );
      lat.push(w.ms);
    }
    return { perS: lat.length / ((performance.now() - t0) / 1000), ...stats(lat) };
  };
  const alone = await writer("lone");
  let stop = false;
  const reads = [];
  const served = [];
  const reader = async () => {
    while (!stop) {
      const r = await sendOk(counts, "POST", `${A}/retrieve`, token, { query: qs[q++ % qs.length] });
      reads.push(r.ms);
      served.push(r.body.servedFrom);
    }
  };
  const readers = Array.from({ length: READERS }, reader);
  const withReaders = await writer("busy");
  stop = true;
  await Promise.all(readers);
  return { alone, withReaders, reads: stats(reads), edgeShare: share(served) };
}

/** Far-edge warm reads of one agent (after `warmup` reads), with where they were served. */
export async function farEdgeWarm(ctx, agentId, size, { warmup, n }) {
  const { base, token, counts } = ctx;
  const A = `${base}/v1/agents/${agentId}`;
  const qs = queries(warmup + n, size + 11);
  const lat = [];
  const served = [];
  for (let i = 0; i < warmup + n; i++) {
    const r = await sendOk(counts, "POST", `${A}/retrieve`, token, { query: qs[i] });
    if (i < warmup) continue;
    lat.push(r.ms);
    served.push(r.body.servedFrom);
  }
  return { ...stats(lat), edgeShare: share(served) };
}
