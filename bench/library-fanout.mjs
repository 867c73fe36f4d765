// What a shared library's write costs as its subscribers grow (issue 32 item 5): `npm run bench:library-fanout`.
//
//   node bench/library-fanout.mjs [--quick] [--write] [--sizes 1,100,10000] [--port 8797] [--keep]
//
// One wrangler dev (project snapshot, fresh state, the default staleness bound of reads at the
// edge). A library of a few lessons; subscribers are added up to each size (agents created and
// subscribed through the REST API, a bounded number at a time). At each size: the wall time of
// lesson writes to the library (sequential), the Durable Objects' storage work while they run
// (pread64/pwrite64 on their SQLite files, and how many objects' files that touches, by strace),
// whether the read model of any of ten subscribers moved (GET …/retriever), and how long after a write
// answered three sampled subscribers' reads at the edge show the new lesson (each polled every
// POLL_MS; the first answer that holds it).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { devServer, log, machine, must, replaceResultsSection, request, sleep } from "./lib/dev-server.mjs";
import { storageTrace } from "./lib/storage-trace.mjs";
import { argv, flag, opt } from "./lib/options.mjs";

export const LIBRARY_FANOUT_HEADING = "## Shared-library fan-out (`npm run bench:library-fanout`)";

const QUICK = flag("--quick");
const WRITE = flag("--write") || !QUICK;
const SIZES = (opt("--sizes") ?? (QUICK ? "1,100" : "1,100,10000"))
  .split(",")
  .map((s) => Number(s.trim().replace(/k$/i, "000")))
  .sort((a, b) => a - b);
/** Writes timed (and traced) per size, and writes whose arrival at the subscribers' edge reads is timed. */
const WRITES = QUICK ? 10 : 20;
const PROPAGATIONS = QUICK ? 3 : 5;
/** Requests in flight while subscribers are added. */
const CONCURRENCY = 8;
/** Subscribers added between two restarts of the local runtime (see addSubscribers). */
const RESTART_EVERY = 500;
const POLL_MS = 50;
/** A subscriber that has not seen a write after this long is reported as such (the bound is 2 s). */
const PROPAGATION_GIVE_UP_MS = 15_000;
const STALENESS_MS = 2000;
/** Quiet time before the writes are traced: the reads before them have sent their use counters (a 2 s window) by then. */
const SETTLE_MS = 4000;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), max: s[s.length - 1] };
};
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "—");
/** A word of letters only, unique to one write: the lexical channel finds exactly that lesson. */
const word = () => `zq${[...randomBytes(8)].map((b) => String.fromCharCode(97 + (b % 26))).join("")}`;

/** A request the local runtime may drop on a busy machine: sent again (at most 3 times) when it answers 5xx or not at all. */
async function send(method, url, token, body, ok = [200, 201]) {
  for (let attempt = 1; ; attempt++) {
    const r = await request(method, url, token, body).catch((err) => ({ status: 0, body: String(err), ms: 0 }));
    if (ok.includes(r.status)) return r;
    if (attempt === 3 || (r.status >= 400 && r.status < 500))
      throw new Error(`${method} ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    await sleep(500 * attempt);
  }
}

/**
 * Creates and subscribes agents `from`..`to`-1, CONCURRENCY at a time; both calls are PUTs, so a
 * retry repeats nothing. The local runtime keeps every object it started in one process until it
 * stops (past about 1,100 live agent objects it dies), so it is restarted on the same state every
 * RESTART_EVERY subscribers, as a deployment spreads and evicts objects; `at()` is the Worker's base
 * URL, which a restart may change.
 */
async function addSubscribers(at, restart, token, libraryId, from, to) {
  const t0 = performance.now();
  for (let start = from; start < to; start += RESTART_EVERY) {
    const end = Math.min(to, start + RESTART_EVERY);
    let next = start;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= end) return;
        const agentId = `sub-${i}`;
        await send("PUT", `${at()}/v1/agents/${agentId}`, token, { displayName: agentId }, [200, 201]);
        await send("PUT", `${at()}/v1/agents/${agentId}/subscriptions/${libraryId}`, token, {}, [200]);
        if ((i + 1) % 1000 === 0) log(`  ${i + 1} subscribers (${f((performance.now() - t0) / 1000, 0)} s)`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (end - start === RESTART_EVERY) await restart();
  }
  return performance.now() - t0;
}

const readModelOf = async (base, token, agentId) =>
  (await send("GET", `${base}/v1/agents/${agentId}/retriever`, token, undefined, [200])).body.snapshot;

/** Polls the subscriber's edge reads until one holds `lessonId`; ms after `since`, or null past the give-up time. */
async function seen(base, token, agentId, query, lessonId, since) {
  for (;;) {
    const r = await send("POST", `${base}/v1/agents/${agentId}/retrieve`, token, { query, k2: 20 }, [200]);
    if (r.body.servedFrom !== "edge") throw new Error(`${agentId}: read served from ${r.body.servedFrom} (${r.body.fallbackReason})`);
    if (r.body.items.some((i) => i.id === lessonId && i.libraryId)) return performance.now() - since;
    if (performance.now() - since > PROPAGATION_GIVE_UP_MS) return null;
    await sleep(POLL_MS);
  }
}

async function main() {
  const server = devServer({ keep: flag("--keep"), tmpPrefix: "praxis-bench-library-fanout-" });
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("hex")}`;
  const vars = { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn", PRAXIS_ENV: "development", READ_STALENESS_MS: String(STALENESS_MS) };
  const rows = [];
  try {
    let { base, logFile } = await server.start({ firstPort: Number(opt("--port") ?? 8797), vars });
    const stateDir = path.join(path.dirname(logFile), "state");
    const tenant = await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-library-fanout-${new Date().toISOString()}` }, [201]);
    const token = tenant.body.apiKey;
    const library = await must("POST", `${base}/v1/libraries`, token, { name: "fan-out" }, [201]);
    const libraryId = library.body.libraryId;
    const lib = () => `${base}/v1/libraries/${libraryId}`;
    for (let i = 0; i < 20; i++)
      await must(
        "POST",
        `${lib()}/experiences`,
        token,
        { text: `Check the ${["quota", "region", "schema", "token"][i % 4]} before step ${i} of a release` },
        [201],
      );
    let have = 0;
    for (const size of SIZES) {
      log(`growing to ${size} subscribers`);
      const addMs = await addSubscribers(
        () => base,
        async () => {
          ({ base } = await server.restart());
        },
        token,
        libraryId,
        have,
        size,
      );
      have = size;
      const sampled = [...new Set([0, Math.floor(size / 2), size - 1])].map((i) => `sub-${i}`);
      for (const agentId of sampled)
        await send("POST", `${base}/v1/agents/${agentId}/retrieve`, token, { query: "check the quota" }, [200]);
      const watched = [...new Set(Array.from({ length: 10 }, (_, i) => `sub-${Math.floor((i * size) / 10)}`))];
      const before = await Promise.all(watched.map((a) => readModelOf(base, token, a)));

      const writes = [];
      const traced = await storageTrace(
        stateDir,
        async () => {
          const t0 = performance.now();
          for (let i = 0; i < WRITES; i++) {
            const r = await send("POST", `${lib()}/experiences`, token, {
              text: `Rotate the ${word()} credential before the deploy (${size}/${i})`,
            });
            writes.push(r.ms);
          }
          return performance.now() - t0;
        },
        { settleMs: SETTLE_MS },
      );
      // The same time with no request at all: what the objects' own timers (upkeep alarms) do meanwhile.
      const idle = await storageTrace(stateDir, () => sleep(traced.result), { settleMs: 0 });
      const after = await Promise.all(watched.map((a) => readModelOf(base, token, a)));
      const moved = watched.filter((_, i) => after[i].contentVersion !== before[i].contentVersion);

      const arrivals = [];
      let missed = 0;
      for (let k = 0; k < PROPAGATIONS; k++) {
        // Subscribers are read steadily before the write, as a served agent is.
        for (const agentId of sampled)
          await send("POST", `${base}/v1/agents/${agentId}/retrieve`, token, { query: "check the region" }, [200]);
        // Words no other lesson has, so the lesson is the best match for its query whatever the library holds.
        const [w1, w2] = [word(), word()];
        const written = await send("POST", `${lib()}/experiences`, token, { text: `Before ${w1}, check ${w2}` });
        const at = performance.now();
        for (const ms of await Promise.all(sampled.map((a) => seen(base, token, a, `${w1} ${w2}`, written.body.id, at)))) {
          if (ms === null) missed++;
          else arrivals.push(ms);
        }
      }
      const row = {
        size,
        addMs,
        write: stats(writes),
        accessesPerWrite: traced.accesses / WRITES,
        libraryPerWrite: (traced.byFile[0] ?? 0) / WRITES,
        files: traced.files,
        idleFiles: idle.files,
        moved: moved.length,
        watched: watched.length,
        arrival: stats(arrivals),
        missed,
      };
      log(JSON.stringify(row));
      rows.push(row);
      // Each size's figures are kept as soon as they are measured: the largest takes long to set up.
      report(rows);
    }
  } finally {
    await server.cleanup();
  }
  return rows;
}

function report(rows) {
  const table = [
    "| subscribers | lesson write p50 / p95 ms | storage accesses per write (the library's object) | objects touched while writing (idle alike) | subscribers' read models moved (of those watched) | write → subscriber's edge read p50 / p95 / max ms |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.size.toLocaleString("en")} | ${f(r.write.p50)} / ${f(r.write.p95)} | ${f(r.accessesPerWrite, 0)} (${f(r.libraryPerWrite, 0)}) | ${r.files} (${r.idleFiles}) | ${r.moved} of ${r.watched} | ${f(r.arrival.p50, 0)} / ${f(r.arrival.p95, 0)} / ${f(r.arrival.max, 0)}${r.missed ? ` (${r.missed} not seen in ${PROPAGATION_GIVE_UP_MS / 1000} s)` : ""} |`,
    ),
  ].join("\n");
  const m = machine();
  const body = `Latest run of \`npm run bench:library-fanout\` (\`node bench/library-fanout.mjs${argv.length ? ` ${argv.join(" ")}` : ""}\`), ${new Date().toISOString().slice(0, 16)}Z, ${m.cpu} (${m.cores} cores), Node ${m.node}, wrangler ${m.wrangler}.

${table}

A library of 20 lessons, then ${WRITES} lesson writes per size (POST …/libraries/:id/experiences, sequential, client wall time) while strace counts pread64/pwrite64 on every Durable Object's SQLite file, after ${SETTLE_MS / 1000} s without requests; "objects touched" counts the distinct objects' files those calls went to (the library's own is 1), and in brackets those touched in as long a trace without any request (the objects' own upkeep timers). "Read models moved": GET …/retriever of up to ten subscribers spread over them, before and after the writes — their read model's content version. Arrival: ${PROPAGATIONS} more writes, each followed by three subscribers' (first, middle, last) reads at the edge every ${POLL_MS} ms (READ_STALENESS_MS ${STALENESS_MS}), from the write's answer to the first read holding the lesson. Adding subscribers (agent + subscription, ${CONCURRENCY} at a time): ${rows.map((r) => `${f(r.addMs / 1000, 0)} s to ${r.size.toLocaleString("en")}`).join(", ")}.

A write touches the library's object only: subscribers keep their subscriptions and their own Q in their own objects and read the library's versioned snapshot beside their own, so its cost does not grow with subscribers. What grows with them is read-side and per isolate, not per subscriber: each Worker isolate holds one snapshot of the library for all the subscribers it serves and revalidates it once per staleness bound while it is read.`;
  console.log(body);
  if (WRITE) replaceResultsSection(LIBRARY_FANOUT_HEADING, body);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
