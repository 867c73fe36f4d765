// `node bench/practice-crash.mjs`: kills the runtime (kill -9 of wrangler dev's process group)
// in the middle of a practice run, starts it again on the same state and measures how long the
// run takes to resume, whether it completes, and whether the token ledger matches what the fake
// LLM itself received, call for call (a call cut off by the kill was received: it counts). Writes its section of bench/RESULTS.md unless --no-write.
//
//   node bench/practice-crash.mjs [--tasks 12] [--group 4] [--latency 400] [--kill-at 0.4] [--no-write]
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { devServer, freePort, log, machine, must, replaceResultsSection, request, sleep } from "./lib/dev-server.mjs";
import { practiceTasks, startPracticeLlm } from "./lib/practice-llm.mjs";

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const TASKS = opt("--tasks", 12);
const G = opt("--group", 4);
const LATENCY_MS = opt("--latency", 400);
const KILL_AT = opt("--kill-at", 0.4);
const TIMEOUT_MS = 300_000;
const HEADING = "## Practice crash resume (`node bench/practice-crash.mjs`)";

async function main() {
  const server = devServer({ tmpPrefix: "praxis-bench-crash-" });
  const llmPort = await freePort(8950);
  const fake = await startPracticeLlm({ port: llmPort, latencyMs: LATENCY_MS });
  server.onCleanup(() => fake.close());
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const vars = {
    PRAXIS_ADMIN_KEY: adminKey,
    LOG_LEVEL: "warn",
    LLM_BASE_URL: `http://127.0.0.1:${llmPort}/v1`,
    LLM_MODEL: "fake",
    LLM_API_KEY: "x",
    LLM_MAX_RETRIES: "0",
  };
  let { base } = await server.start({ firstPort: 8960, vars });
  const token = (await must("POST", `${base}/v1/tenants`, adminKey, { name: `crash bench ${new Date().toISOString()}` }, [201])).body
    .apiKey;
  const tasks = practiceTasks(TASKS);
  const total = TASKS * G;
  const ledger = async () => {
    const t = (await request("GET", `${base}/v1/usage`, token)).body.totals;
    return { calls: t.calls, open: t.openCalls, tokens: t.tokensIn + t.tokensOut };
  };

  /** One run on a fresh agent; with `kill`, the runtime is killed once KILL_AT of its rollouts are recorded. */
  async function oneRun(n, kill) {
    const A = () => `${base}/v1/agents/crash-bench-${n}`;
    await must("PUT", A(), token, { displayName: "crash bench" });
    const ds = await must("POST", `${base}/v1/datasets`, token, { name: `crash ${n}`, holdoutFraction: 0, tasks }, [201]);
    const fake0 = { received: fake.received.length, ...fake.answered };
    const ledger0 = await ledger();
    const runId = (
      await must(
        "POST",
        `${A()}/practice-runs`,
        token,
        { datasetId: ds.body.datasetId, epochs: 1, batchSize: TASKS, groupSize: G, concurrency: 8, seed: 7, policy: { kind: "llm" } },
        [202],
      )
    ).body.runId;
    const view = async () => (await request("GET", `${A()}/practice-runs/${runId}`, token)).body;
    let before = null;
    let back = null;
    let resumedAt = null;
    const t0 = performance.now();
    for (;;) {
      if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`run ${runId} did not end in time`);
      const v = await view();
      if (kill && before === null && v.progress.rollouts.done >= total * KILL_AT) {
        before = v.progress.rollouts.done;
        log(`kill -9 at ${before}/${total} rollouts`);
        ({ base } = await server.restart({ signal: "SIGKILL" }));
        back = performance.now();
        continue;
      }
      if (back !== null && resumedAt === null && v.progress.rollouts.done > before) resumedAt = performance.now();
      if (["completed", "failed", "cancelled", "budget-exhausted"].includes(v.status)) {
        await sleep(LATENCY_MS + 500);
        const l = await ledger();
        return {
          status: v.status,
          before,
          resumeS: resumedAt === null ? null : (resumedAt - back) / 1000,
          fake: {
            received: fake.received.length - fake0.received,
            answered: fake.answered.calls - fake0.calls,
            tokens: fake.answered.tokens - fake0.tokens,
          },
          ledger: { calls: l.calls - ledger0.calls, open: l.open - ledger0.open, tokens: l.tokens - ledger0.tokens },
        };
      }
      await sleep(200);
    }
  }
  const reference = await oneRun(0, false);
  const crashed = await oneRun(1, true);
  await server.cleanup();
  const m = machine();
  const pct = (a, b) => `${((a / b - 1) * 100).toFixed(1)}%`;
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${m.cpu}, ${m.cores} cores (shared), wrangler ${m.wrangler}; ${TASKS} tasks × G=${G}, LLM latency ${LATENCY_MS} ms, seed 7. The crashed run: kill -9 of wrangler dev's process group at ${crashed.before}/${total} rollouts, restarted at once on the same state; the reference: the same run uninterrupted.`,
    "",
    "| measure | reference | crashed |",
    "|---|---|---|",
    `| status | ${reference.status} | ${crashed.status} |`,
    `| resume delay (runtime back → next rollout recorded) | – | ${crashed.resumeS === null ? "none" : `${crashed.resumeS.toFixed(1)} s`} |`,
    `| LLM calls: received by the fake / in the ledger | ${reference.fake.received} / ${reference.ledger.calls} | ${crashed.fake.received} / ${crashed.ledger.calls} |`,
    `| of which answered by the fake / cut off by the kill (open in the ledger) | ${reference.fake.answered} / ${reference.ledger.open} | ${crashed.fake.answered} / ${crashed.ledger.open} |`,
    `| tokens: answered by the fake / in the ledger | ${reference.fake.tokens} / ${reference.ledger.tokens} | ${crashed.fake.tokens} / ${crashed.ledger.tokens} |`,
    `| token overhead of the crash: answered by the fake / in the ledger | – | ${pct(crashed.fake.tokens, reference.fake.tokens)} / ${pct(crashed.ledger.tokens, reference.ledger.tokens)} |`,
    "",
    "Resume is lease-based: a unit's lease (45 s, renewed by heartbeat) lapses and the run's alarm sends it again; units whose message was lost are re-sent after 60 s unclaimed.",
    "The ledger is two-phase: a call's row is written (open, at an estimate: the prompt's size plus the output cap, 1024 tokens when unset) before its request goes out and settled with the provider's count after. A call cut off by the kill stays in the ledger, open, at its estimate: the crashed run's ledger tokens exceed the fake's answered tokens by those estimates (rollouts set no output cap, so each counts 1024 output tokens).",
  ];
  console.log(lines.join("\n"));
  if (!argv.includes("--no-write")) replaceResultsSection(HEADING, lines.join("\n"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
