// `npm run bench:soak`: a mixed workload against wrangler dev with an LLM configured (a fake that
// answers in a few ms) for several minutes, with a kill -9 of the runtime (wrangler dev's process
// group) every so often and a restart on the same state. Reports requests, answers by status,
// p50/p99 latency of the answered requests, acknowledged writes missing at the end (lost), and how
// long the service took to answer again after each kill. Writes its section of bench/RESULTS.md
// unless --no-write.
//
//   node bench/soak.mjs [--seconds 180] [--kill-every 45] [--workers 16] [--agents 4] [--no-write]
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { devServer, freePort, log, machine, must, replaceResultsSection, request, sleep } from "./lib/dev-server.mjs";
import { startPracticeLlm } from "./lib/practice-llm.mjs";

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const SECONDS = opt("--seconds", 180);
const KILL_EVERY_S = opt("--kill-every", 45);
const WORKERS = opt("--workers", 16);
const AGENTS = opt("--agents", 4);
const REQUEST_BOUND_MS = 30_000;
const HEADING = "## Soak with kill -9 (`npm run bench:soak`)";

const pick = (weights) => {
  let r = Math.random() * weights.reduce((s, [, w]) => s + w, 0);
  for (const [what, w] of weights) if ((r -= w) < 0) return what;
  return weights[0][0];
};
const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

async function main() {
  const server = devServer({ tmpPrefix: "praxis-bench-soak-" });
  const llmPort = await freePort(8970);
  const fake = await startPracticeLlm({ port: llmPort, latencyMs: 5 });
  server.onCleanup(() => fake.close());
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const vars = {
    PRAXIS_ADMIN_KEY: adminKey,
    LOG_LEVEL: "error",
    LLM_BASE_URL: `http://127.0.0.1:${llmPort}/v1`,
    LLM_MODEL: "fake",
    LLM_API_KEY: "x",
    LLM_MAX_RETRIES: "0",
  };
  let { base } = await server.start({ firstPort: 8980, vars });
  const token = (await must("POST", `${base}/v1/tenants`, adminKey, { name: `soak bench ${new Date().toISOString()}` }, [201])).body.apiKey;
  const agents = Array.from({ length: AGENTS }, (_, i) => `soak-${i}`);
  for (const a of agents) await must("PUT", `${base}/v1/agents/${a}`, token, { displayName: a });

  const statuses = new Map(); // status (or "no answer") → count
  const latencies = [];
  const acknowledged = new Map(); // experience id → agent
  const known = new Map(agents.map((a) => [a, []])); // agent → ids to patch or reward
  let down = false;
  let requests = 0;
  const count = (k) => statuses.set(k, (statuses.get(k) ?? 0) + 1);

  async function one(worker, n) {
    const agent = agents[(worker + n) % agents.length];
    const ids = known.get(agent);
    const op = ids.length
      ? pick([
          ["create", 50],
          ["patch", 10],
          ["reward", 10],
          ["retrieve", 20],
          ["list", 10],
        ])
      : "create";
    const A = `${base}/v1/agents/${agent}`;
    const id = ids[Math.floor(Math.random() * ids.length)];
    const [method, url, body] =
      op === "create"
        ? [
            "POST",
            `${A}/experiences`,
            { text: `Soak lesson ${worker}.${n}: when service ${n % 97} deploys, check its health endpoint first.` },
          ]
        : op === "patch"
          ? ["PATCH", `${A}/experiences/${id}`, { tags: [`t${n % 7}`] }]
          : op === "reward"
            ? ["POST", `${A}/rewards`, { memoryIds: [id], reward: Math.random() < 0.7 ? 1 : -1 }]
            : op === "retrieve"
              ? ["POST", `${A}/retrieve`, { query: `deploy service ${n % 97} health` }]
              : ["GET", `${A}/experiences?limit=20`, undefined];
    requests++;
    const t0 = performance.now();
    try {
      const r = await request(method, url, token, body, REQUEST_BOUND_MS);
      latencies.push(performance.now() - t0);
      count(r.status);
      if (op === "create" && r.status === 201) {
        acknowledged.set(r.body.id, agent);
        ids.push(r.body.id);
      }
    } catch {
      count(down ? "no answer (runtime down)" : "no answer");
    }
  }

  const started = performance.now();
  const endAt = started + SECONDS * 1000;
  const workers = Array.from({ length: WORKERS }, async (_, w) => {
    for (let n = 0; performance.now() < endAt && !server.stopping; n++) {
      if (down) await sleep(100);
      else await one(w, n);
    }
  });

  const kills = [];
  const killer = (async () => {
    for (let k = 1; performance.now() + KILL_EVERY_S * 1000 < endAt; k++) {
      await sleep(KILL_EVERY_S * 1000);
      if (server.stopping) return;
      log(`kill -9 #${k}`);
      down = true;
      const t0 = performance.now();
      ({ base } = await server.restart({ signal: "SIGKILL" }));
      const healthy = performance.now();
      // Answering again means a write answered 2xx, not just /healthz.
      let firstWrite = null;
      for (let i = 0; i < 600 && firstWrite === null; i++) {
        const r = await request(
          "POST",
          `${base}/v1/agents/${agents[0]}/experiences`,
          token,
          { text: `After kill ${k}: a lesson lands.` },
          REQUEST_BOUND_MS,
        ).catch(() => null);
        if (r?.status === 201) {
          firstWrite = performance.now();
          acknowledged.set(r.body.id, agents[0]);
        } else await sleep(100);
      }
      down = false;
      kills.push({ k, healthyS: (healthy - t0) / 1000, writeS: firstWrite === null ? null : (firstWrite - t0) / 1000 });
    }
  })();
  await Promise.all([...workers, killer]);
  const elapsedS = (performance.now() - started) / 1000;

  // Every acknowledged write must still be there (any status: a pending one is stored too).
  let lost = 0;
  for (const agent of agents) {
    const present = new Set();
    let cursor = null;
    for (let page = 0; page < 1000; page++) {
      const r = await must(
        "GET",
        `${base}/v1/agents/${agent}/experiences?status=all&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        token,
      );
      for (const e of r.body.items) present.add(e.id);
      cursor = r.body.nextCursor;
      if (!cursor) break;
    }
    for (const [id, a] of acknowledged) if (a === agent && !present.has(id)) lost++;
  }
  await server.cleanup();

  const sorted = latencies.sort((a, b) => a - b);
  const m = machine();
  const byStatus = [...statuses].sort(([a], [b]) => String(a).localeCompare(String(b)));
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${m.cpu}, ${m.cores} cores (shared with other work), wrangler ${m.wrangler}, workerd ${m.workerd}. ${WORKERS} concurrent clients for ${elapsedS.toFixed(0)} s over ${AGENTS} agents: lesson creates 50 %, PATCHes 10 %, rewards 10 %, retrievals 20 %, lists 10 %, each bounded at ${REQUEST_BOUND_MS / 1000} s; an LLM fake answering in 5 ms reviews each write; kill -9 of wrangler dev's process group every ${KILL_EVERY_S} s, restarted at once on the same state.`,
    "",
    "| measure | value |",
    "|---|---|",
    `| requests | ${requests} |`,
    ...byStatus.map(([s, n]) => `| ${typeof s === "number" ? `answered ${s}` : s} | ${n} |`),
    `| latency of answered requests, p50 / p99 | ${quantile(sorted, 0.5).toFixed(0)} ms / ${quantile(sorted, 0.99).toFixed(0)} ms |`,
    `| acknowledged lesson writes (201) | ${acknowledged.size} |`,
    `| acknowledged writes missing at the end (lost) | ${lost} |`,
    ...kills.map(
      (k) =>
        `| kill ${k.k}: runtime healthy again / first write answered 201 | ${k.healthyS.toFixed(1)} s / ${k.writeS === null ? "never" : `${k.writeS.toFixed(1)} s`} |`,
    ),
    "",
    "Requests in flight at a kill get no answer (counted above, never acknowledged); recovery is dominated by wrangler dev's own start (bundling, workerd launch), not by Praxis.",
  ];
  console.log(lines.join("\n"));
  if (!argv.includes("--no-write")) replaceResultsSection(HEADING, lines.join("\n"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
