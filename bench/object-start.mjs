// The agent's object at scale (issue 43): the cold start of a large agent to its first answer, and
// reward writes under 16 clients against the same sequentially.
//
//   node bench/object-start.mjs [--quick] [--write] [--cold-size 50000] [--reward-size 10000]
//                               [--starts 3] [--profile] [--port 8799] [--keep]
//
// One wrangler dev (project snapshot, fresh state). Cold start, as `npm run bench` measures it:
// wrangler dev restarted on the same state (every object evicted), the Worker warmed (/healthz, an
// agent GET) and the objects' code compiled (retrievals from a 1,000-lesson agent), then the first
// `POST …/retrieve` of the large agent, against its warm p50 after; `--starts` restarts, the median
// reported. Rewards on the reward-size agent alternate by `retrievalId` and by 3 random `memoryIds`
// (as `npm run bench`), sequential and from 16 clients. `--profile` adds a CPU profile (the
// inspector's sampling profiler) of one cold start and of the 16-client rewards, by function.
import { randomBytes } from "node:crypto";
import os from "node:os";
import { corpus, queries, rng } from "./corpus.mjs";
import { cpuProfile } from "./lib/cpu-profile.mjs";
import { devServer, log, machine, must, replaceResultsSection, request } from "./lib/dev-server.mjs";
import { flag, num } from "./lib/options.mjs";

export const OBJECT_HEADING = "## The agent's object at scale (`node bench/object-start.mjs`)";
const QUICK = flag("--quick");
const WRITE = flag("--write") || !QUICK;
const PROFILE = flag("--profile");
const COLD_SIZE = num("--cold-size", QUICK ? 10_000 : 50_000, 1000, 200_000);
const REWARD_SIZE = num("--reward-size", 10_000, 1000, 200_000);
const STARTS = num("--starts", QUICK ? 1 : 3, 1, 10);
const WARMUP = 50;
const SEQ = QUICK ? 100 : 300;
const CONC_TOTAL = QUICK ? 320 : 800;
const CLIENTS = 16;
const AIMS = { coldStartMs: 100, rewardRatio: 5 };

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), max: s.at(-1) };
};
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "—");

async function load(base, token, agentId, n, seed) {
  const A = `${base}/v1/agents/${agentId}`;
  await must("PUT", A, token, { displayName: `${n} lessons` });
  // The default capacity (5,000) would let the upkeep sweep archive most of a large library.
  await must("PATCH", `${A}/config`, token, { capacity: Math.max(5000, n * 2) });
  const items = corpus(n, seed);
  const ids = [];
  for (let i = 0; i < n; i += 500) {
    const operations = items.slice(i, i + 500).map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags } }));
    const r = await must("POST", `${A}/library/batch`, token, { reason: `bench load ${i}`, operations }, [200]);
    for (const x of r.body.experiences) ids.push(x.id);
  }
  log(`loaded ${n} lessons into ${agentId}`);
  return ids;
}

async function sequential(count, make) {
  const lat = [];
  for (let i = 0; i < count; i++) {
    const { method, url, token, body } = make(i);
    lat.push((await must(method, url, token, body, [200])).ms);
  }
  return stats(lat);
}

async function concurrent(total, make) {
  let next = 0;
  const lat = [];
  let errors = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const { method, url, token, body } = make(i);
      const r = await request(method, url, token, body).catch(() => ({ status: 0 }));
      if (r.status === 200) lat.push(r.ms);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  return { ...stats(lat), errors, rps: lat.length / ((performance.now() - t0) / 1000) };
}

const top = (functions, n = 12) =>
  functions
    .slice(0, n)
    .map((x) => `  ${f(x.selfMs)} ms self, ${f(x.totalMs)} total  ${x.fn}`)
    .join("\n");

async function main() {
  const started = Date.now();
  const server = devServer({ keep: flag("--keep"), tmpPrefix: "praxis-bench-object-" });
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("hex")}`;
  const vars = { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn" };
  const out = { starts: [], profiles: {} };
  try {
    let { base, inspectorPort } = await server.start({ firstPort: num("--port", 8799, 1024, 65535), vars });
    const token = (await must("POST", `${base}/v1/tenants`, adminKey, { name: "bench-object" }, [201])).body.apiKey;
    await load(base, token, "small", 1000, 3);
    const rewardIds = await load(base, token, "rewards", REWARD_SIZE, 5);
    if (COLD_SIZE !== REWARD_SIZE) await load(base, token, "cold", COLD_SIZE, 7);
    const coldAgent = COLD_SIZE === REWARD_SIZE ? "rewards" : "cold";

    for (let s = 0; s < STARTS; s++) {
      ({ base, inspectorPort } = await server.restart());
      const qs = queries(WARMUP + 101, 4711 + s);
      await must("GET", `${base}/healthz`);
      await must("GET", `${base}/v1/agents/${coldAgent}`, token);
      for (let i = 0; i < WARMUP; i++)
        await must("POST", `${base}/v1/agents/small/retrieve`, token, { query: qs[i], consistency: "strong" }, [200]);
      const A = `${base}/v1/agents/${coldAgent}`;
      const first = () => must("POST", `${A}/retrieve`, token, { query: qs[WARMUP], consistency: "strong" }, [200]);
      let firstMs;
      if (PROFILE && s === 0) {
        const p = await cpuProfile(inspectorPort, first);
        firstMs = p.result.ms;
        out.profiles.coldStart = p.functions;
      } else firstMs = (await first()).ms;
      const warm = await sequential(100, (i) => ({
        method: "POST",
        url: `${A}/retrieve`,
        token,
        body: { query: qs[WARMUP + 1 + i], consistency: "strong" },
      }));
      out.starts.push({ firstMs, warm });
      log(`cold start ${s + 1}: first answer ${f(firstMs)} ms, warm p50 ${f(warm.p50)} ms`);
    }

    const A = `${base}/v1/agents/rewards`;
    // One outcome per retrieval (a second, different one is refused): every reward by retrieval has its own.
    const qs = queries(Math.ceil((WARMUP + SEQ + CONC_TOTAL) / 2) + 20, 99);
    const retrievalIds = [];
    for (const q of qs) {
      const r = await must("POST", `${A}/retrieve`, token, { query: q, consistency: "strong" }, [200]);
      if (r.body.items.length) retrievalIds.push(r.body.retrievalId);
    }
    const r = rng(REWARD_SIZE ^ 0x5eed);
    const OUTCOMES = ["success", "failure", "partial", "success"];
    let nextRetrieval = 0;
    const reward = (i) => ({
      method: "POST",
      url: `${A}/rewards`,
      token,
      body:
        i % 2 === 0 && nextRetrieval < retrievalIds.length
          ? { retrievalId: retrievalIds[nextRetrieval++], outcome: OUTCOMES[i % OUTCOMES.length] }
          : {
              memoryIds: [0, 1, 2].map(() => rewardIds[Math.floor(r() * rewardIds.length)]).filter((x, j, a) => a.indexOf(x) === j),
              reward: Math.round((r() * 2 - 1) * 100) / 100,
            },
    });
    await sequential(WARMUP, reward);
    out.rewardSeq = await sequential(SEQ, reward);
    if (PROFILE) {
      const p = await cpuProfile(inspectorPort, () => concurrent(CONC_TOTAL, reward));
      out.rewardConc = p.result;
      out.profiles.rewards = p.functions;
    } else out.rewardConc = await concurrent(CONC_TOTAL, reward);
    log(
      `rewards at ${REWARD_SIZE}: sequential p99 ${f(out.rewardSeq.p99)} ms, ${CLIENTS} clients p99 ${f(out.rewardConc.p99)} ms (${f(out.rewardConc.p99 / out.rewardSeq.p99, 2)}×)`,
    );
  } finally {
    await server.cleanup();
  }
  return { ...out, seconds: (Date.now() - started) / 1000 };
}

function report(out) {
  const m = machine();
  const firsts = out.starts.map((s) => s.firstMs).sort((a, b) => a - b);
  const median = firsts[Math.floor(firsts.length / 2)];
  const ratio = out.rewardConc.p99 / out.rewardSeq.p99;
  const body = `Run ${new Date().toISOString().slice(0, 16)}Z, ${f(out.seconds, 0)} s, on ${m.cpu} (${m.cores} cores shared with other jobs), node ${m.node}, wrangler ${m.wrangler}; load average at end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}.

Cold start of a ${COLD_SIZE.toLocaleString("en")}-lesson agent to its first answer (\`POST …/retrieve\`, \`consistency: "strong"\`, after a restart of wrangler dev with the Worker and the objects' code warm): ${firsts.map((x) => `${f(x)} ms`).join(", ")} over ${firsts.length} restart(s), median ${f(median)} ms (warm p50 after it ${out.starts.map((s) => f(s.warm.p50)).join(", ")} ms); aim ≤ ${AIMS.coldStartMs} ms: ${median <= AIMS.coldStartMs ? "met" : "NOT met"}.

Rewards on a ${REWARD_SIZE.toLocaleString("en")}-lesson agent (by retrievalId and by 3 memoryIds, alternating), ms:

| | n | p50 | p95 | p99 | max |
|---|---|---|---|---|---|
| sequential | ${out.rewardSeq.n} | ${f(out.rewardSeq.p50)} | ${f(out.rewardSeq.p95)} | ${f(out.rewardSeq.p99)} | ${f(out.rewardSeq.max)} |
| ${CLIENTS} clients (${f(out.rewardConc.rps, 0)} req/s, ${out.rewardConc.errors} errors) | ${out.rewardConc.n} | ${f(out.rewardConc.p50)} | ${f(out.rewardConc.p95)} | ${f(out.rewardConc.p99)} | ${f(out.rewardConc.max)} |

Reward p99 under ${CLIENTS} clients ÷ sequential p99: ${f(ratio, 2)}; aim ≤ ${AIMS.rewardRatio}: ${ratio <= AIMS.rewardRatio ? "met" : "NOT met"}.`;
  console.log(`\n${OBJECT_HEADING}\n\n${body}\n`);
  for (const [name, fns] of Object.entries(out.profiles)) console.log(`CPU profile, ${name} (most self time first):\n${top(fns, 25)}\n`);
  if (WRITE) {
    replaceResultsSection(OBJECT_HEADING, body);
    log("wrote the object section of bench/RESULTS.md");
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
