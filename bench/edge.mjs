// The edge hot path, measured: `npm run bench -- --profile far-edge`.
//
//   node bench/edge.mjs [--quick] [--write] [--port 8799] [--keep]
//
// One wrangler dev (project snapshot, fresh state), restarted under four configurations on the
// same data: profile `local` (bindings as wrangler dev has them) and `far-edge` (BENCH_LATENCY:
// D1 +80 ms per query, Durable Object call +40 ms, KV read and location-cache operation +5 ms, injected at the bindings), each
// with the key caches off (BENCH_KEY_CACHE=off: every request reads its key from D1, the path before
// the edge caches) and on. Both knobs belong to the bench's own entry module, bench/edge-worker.ts,
// which wraps the production Worker; src has none. Sequential client wall time per request;
// RESULTS.md gets its own section.
import { randomBytes } from "node:crypto";
import os from "node:os";
import { corpus, queries } from "./corpus.mjs";
import { devServer, log, machine, must, replaceResultsSection, request } from "./lib/dev-server.mjs";

export const EDGE_HEADING = "## Edge hot path (`npm run bench -- --profile far-edge`)";
export const FAR_EDGE = "d1=80,do=40,kv=5,cache=5";
const MEMORIES = 1000;
/** Requests before measuring, after each restart: the object's load, the isolate's JIT and key cache. */
const WARMUP = { local: 100, "far-edge": 30 };

function pct(sorted, p) {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99) };
};
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "—");

export async function runEdgeBench(argv) {
  const flag = (n) => argv.includes(n);
  const opt = (n) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
  const quick = flag("--quick");
  const write = flag("--write") || !quick;
  const perRoute = { local: quick ? 60 : 300, "far-edge": quick ? 30 : 150 };
  const server = devServer({ keep: flag("--keep"), tmpPrefix: "praxis-bench-edge-" });
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const baseVars = { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn" };
  const configs = [
    { profile: "local", cache: "off", vars: { ...baseVars, BENCH_KEY_CACHE: "off" } },
    { profile: "local", cache: "on", vars: baseVars },
    { profile: "far-edge", cache: "off", vars: { ...baseVars, BENCH_KEY_CACHE: "off", BENCH_LATENCY: FAR_EDGE } },
    { profile: "far-edge", cache: "on", vars: { ...baseVars, BENCH_LATENCY: FAR_EDGE } },
  ];
  const started = Date.now();
  const rows = [];
  try {
    let { base } = await server.start({ firstPort: Number(opt("--port") ?? 8799), vars: baseVars, main: "bench/edge-worker.ts" });
    const tenant = await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-edge-${new Date().toISOString()}` }, [201]);
    const token = tenant.body.apiKey;
    const agentId = `edge-${randomBytes(3).toString("hex")}`;
    const A = () => `${base}/v1/agents/${agentId}`;
    await must("PUT", A(), token, { displayName: "edge bench" });
    const items = corpus(MEMORIES);
    for (let i = 0; i < items.length; i += 90) {
      const operations = items.slice(i, i + 90).map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags } }));
      await must("POST", `${A()}/library/batch`, token, { reason: `edge bench load ${i}`, operations }, [200]);
    }
    log(`loaded ${MEMORIES} memories into ${agentId}`);

    for (const [i, cfg] of configs.entries()) {
      // Every configuration starts from a restart (objects evicted, isolates fresh), so none inherits the load's warm-up.
      ({ base } = await server.restartWith(cfg.vars));
      const n = perRoute[cfg.profile];
      const qs = queries(3 * n + WARMUP[cfg.profile] + 10, 17 + i);
      let q = 0;
      const seq = async (count, make) => {
        const lat = [];
        for (let k = 0; k < count && !server.stopping; k++) {
          const { method, url, body, ok } = make(k);
          const r = await request(method, url, token, body);
          if (r.status !== 200) throw new Error(`${method} ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
          ok?.(r.body);
          lat.push(r.ms);
        }
        return stats(lat);
      };
      // Warm: the object loaded, the key in this isolate's cache (and in KV).
      await seq(WARMUP[cfg.profile], () => ({ method: "POST", url: `${A()}/retrieve`, body: { query: qs[q++] } }));
      const retrievalIds = [];
      const retrieve = await seq(n, () => ({
        method: "POST",
        url: `${A()}/retrieve`,
        body: { query: qs[q++] },
        ok: (b) => retrievalIds.push(b.retrievalId),
      }));
      const reward = await seq(Math.min(n, retrievalIds.length), (k) => ({
        method: "POST",
        url: `${A()}/rewards`,
        body: { retrievalId: retrievalIds[k], outcome: k % 3 === 0 ? "failure" : "success" },
      }));
      const prompt = await seq(n, () => ({ method: "GET", url: `${A()}/prompt?query=${encodeURIComponent(qs[q++])}&budgetTokens=400` }));
      const baseline = await seq(n, () => ({ method: "GET", url: A() }));
      rows.push({ ...cfg, n, retrieve, reward, prompt, baseline });
      log(
        `${cfg.profile}, caches ${cfg.cache}: retrieve p50 ${f(retrieve.p50)} ms, reward p50 ${f(reward.p50)} ms, prompt p50 ${f(prompt.p50)} ms`,
      );
    }
  } finally {
    await server.cleanup();
  }

  const m = machine();
  const table = [
    "| profile | key caches | requests / route | retrieve p50 / p99 | reward p50 / p99 | prompt p50 / p99 | GET agent (D1 read) p50 / p99 |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.profile} | ${r.cache === "off" ? "off (before: key from D1)" : "on (after)"} | ${r.n} | ${f(r.retrieve.p50)} / ${f(r.retrieve.p99)} | ${f(r.reward.p50)} / ${f(r.reward.p99)} | ${f(r.prompt.p50)} / ${f(r.prompt.p99)} | ${f(r.baseline.p50)} / ${f(r.baseline.p99)} |`,
    ),
  ].join("\n");
  const far = (cache) => rows.find((r) => r.profile === "far-edge" && r.cache === cache);
  const [before, after] = [far("off"), far("on")];
  const verdict =
    before && after
      ? `Far-edge warm retrieve p50: ${f(after.retrieve.p50)} ms with the caches, ${f(before.retrieve.p50)} ms through D1 (${f(before.retrieve.p50 / after.retrieve.p50, 2)}×; aim ≥ 2×: ${before.retrieve.p50 / after.retrieve.p50 >= 2 ? "met" : "NOT met"}). Aim p50 ≤ DO RTT + 10 ms = 50 ms: ${after.retrieve.p50 <= 50 ? "met" : "NOT met"}.`
      : "Far-edge rows missing (run stopped).";
  const body = `Run ${new Date().toISOString().slice(0, 16)}Z, ${((Date.now() - started) / 1000).toFixed(0)} s, on ${m.cpu} (${m.cores} cores shared), node ${m.node}, wrangler ${m.wrangler}; load average at end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}.
One agent with ${MEMORIES} memories; client wall time in ms, sequential requests over keep-alive HTTP to wrangler dev on 127.0.0.1.
\`far-edge\` injects ${FAR_EDGE} (ms per D1 query, Durable Object call, KV read, location-cache operation) at the bindings; \`key caches off\` makes
every request read its key from D1 (one query, the round trip every request made before), \`on\` is the isolate LRU then KV.
Round trips per warm hot-path request (counted in test/edge/round-trips.test.ts): before 1 D1 query + 1 DO call, after 0 D1 + 1 DO
(a cold key: 1 D1 query). \`GET agent\` still reads D1 (a control-plane read, through a D1 session).

${table}

${verdict}`;
  console.log(`\n${EDGE_HEADING}\n\n${body}\n`);
  if (write) {
    replaceResultsSection(EDGE_HEADING, body);
    log("wrote the edge section of bench/RESULTS.md");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runEdgeBench(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
