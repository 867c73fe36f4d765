// `node bench/practice-crash.mjs`: kills the runtime (kill -9 of wrangler dev's process group)
// in the middle of a practice run, starts it again on the same state and measures how long the
// run takes to resume, whether it completes, and whether the token ledger matches what the fake
// LLM itself answered, call for call. Writes its section of bench/RESULTS.md unless --no-write.
//
//   node bench/practice-crash.mjs [--tasks 12] [--group 4] [--latency 400] [--kill-at 0.4] [--no-write]
import { randomBytes } from "node:crypto";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { devServer, freePort, log, machine, must, replaceResultsSection, request, sleep } from "./lib/dev-server.mjs";

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const TASKS = opt("--tasks", 12);
const G = opt("--group", 4);
const LATENCY_MS = opt("--latency", 400);
const KILL_AT = opt("--kill-at", 0.4);
const TIMEOUT_MS = 300_000;
const HEADING = "## Practice crash resume (`node bench/practice-crash.mjs`)";

const tokens = (chars) => Math.max(1, Math.ceil(chars / 4));
const stageOf = (body) => body?.response_format?.json_schema?.name ?? "rollout";

function reply(stage, body) {
  const prompt = (body.messages ?? []).map((m) => String(m.content ?? "")).join("\n");
  if (stage === "rollout") {
    const i = Number(/Task (\d+)\./.exec(String(body.messages?.at(-1)?.content ?? ""))?.[1] ?? 0);
    const right = i % 3 === 0 || (i % 3 === 1 && (Number(body.seed ?? 0) >>> 3) % 2 === 0);
    return `Working.\nFinal answer: ${right ? 1000 + i : 999 + i}`;
  }
  if (stage === "attempt_summaries") return JSON.stringify({ summaries: Array.from({ length: (prompt.match(/^### Attempt \d+/gm) ?? []).length }, (_, k) => `Attempt ${k} added directly.`) });
  if (stage === "group_advantage") return JSON.stringify({ analysis: "Right ones checked.", operations: [{ op: "add", target: "", text: "Check the sum once more before answering.", reason: "wrong ones skipped it" }] });
  if (stage === "batch_plan") return JSON.stringify({ reasoning: "One lesson.", operations: [{ op: "add", targets: [], text: "Check the sum once more before answering.", reason: "proposed" }] });
  if (stage === "safety_review") return JSON.stringify({ verdicts: Array.from({ length: (prompt.match(/^\d+\.$/gm) ?? []).length }, (_, index) => ({ index, safe: true, category: "safe", reason: "ordinary" })) });
  return "{}";
}

/** The fake LLM counts what it answered; a call cut off by the kill is answered to nobody and not counted. */
function startFakeLlm(port) {
  const answered = { calls: 0, tokens: 0 };
  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      const stage = stageOf(body);
      const promptChars = (body.messages ?? []).reduce((n, m) => n + String(m.content ?? "").length, 0);
      setTimeout(() => {
        if (res.destroyed || req.socket.destroyed) return;
        const content = reply(stage, body);
        const usage = { prompt_tokens: tokens(promptChars), completion_tokens: tokens(content.length) };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ id: "x", object: "chat.completion", created: 0, model: "fake", choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
          () => {
            answered.calls++;
            answered.tokens += usage.prompt_tokens + usage.completion_tokens;
          },
        );
      }, LATENCY_MS);
    });
  });
  return new Promise((resolve) => srv.listen(port, "127.0.0.1", () => resolve({ answered, close: () => new Promise((r) => (srv.closeAllConnections?.(), srv.close(() => r()))) })));
}

async function main() {
  const server = devServer({ tmpPrefix: "praxis-bench-crash-" });
  const llmPort = await freePort(8950);
  const fake = await startFakeLlm(llmPort);
  server.onCleanup(() => fake.close());
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const vars = { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn", LLM_BASE_URL: `http://127.0.0.1:${llmPort}/v1`, LLM_MODEL: "fake", LLM_API_KEY: "x", LLM_MAX_RETRIES: "0" };
  let { base } = await server.start({ firstPort: 8960, vars });
  const token = (await must("POST", `${base}/v1/tenants`, adminKey, { name: "crash bench" }, [201])).body.apiKey;
  const tasks = Array.from({ length: TASKS }, (_, i) => ({ id: `t${i}`, task: `Task ${i}. What is ${i} + 1000?`, groundTruth: String(1000 + i), split: "train" }));
  const total = TASKS * G;
  const ledger = async () => {
    const t = (await request("GET", `${base}/v1/usage`, token)).body.totals;
    return { calls: t.calls, tokens: t.tokensIn + t.tokensOut };
  };

  /** One run on a fresh agent; with `kill`, the runtime is killed once KILL_AT of its rollouts are recorded. */
  async function oneRun(n, kill) {
    const A = () => `${base}/v1/agents/crash-bench-${n}`;
    await must("PUT", A(), token, { displayName: "crash bench" });
    const ds = await must("POST", `${base}/v1/datasets`, token, { name: `crash ${n}`, holdoutFraction: 0, tasks }, [201]);
    const fake0 = { ...fake.answered };
    const ledger0 = await ledger();
    const runId = (await must("POST", `${A()}/practice-runs`, token, { datasetId: ds.body.datasetId, epochs: 1, batchSize: TASKS, groupSize: G, concurrency: 8, seed: 7, policy: { kind: "llm" } }, [202])).body.runId;
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
          fake: { calls: fake.answered.calls - fake0.calls, tokens: fake.answered.tokens - fake0.tokens },
          ledger: { calls: l.calls - ledger0.calls, tokens: l.tokens - ledger0.tokens },
        };
      }
      await sleep(200);
    }
  }
  const reference = await oneRun(0, false);
  const crashed = await oneRun(1, true);
  await server.cleanup();
  const m = machine();
  const overhead = ((crashed.ledger.tokens / reference.ledger.tokens - 1) * 100).toFixed(1);
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${m.cpu}, ${m.cores} cores (shared), wrangler ${m.wrangler}; ${TASKS} tasks × G=${G}, LLM latency ${LATENCY_MS} ms, seed 7. The crashed run: kill -9 of wrangler dev's process group at ${crashed.before}/${total} rollouts, restarted at once on the same state; the reference: the same run uninterrupted.`,
    "",
    "| measure | reference | crashed |",
    "|---|---|---|",
    `| status | ${reference.status} | ${crashed.status} |`,
    `| resume delay (runtime back → next rollout recorded) | – | ${crashed.resumeS === null ? "none" : `${crashed.resumeS.toFixed(1)} s`} |`,
    `| LLM calls: answered by the fake / in the ledger | ${reference.fake.calls} / ${reference.ledger.calls} | ${crashed.fake.calls} / ${crashed.ledger.calls} |`,
    `| tokens: answered by the fake / in the ledger | ${reference.fake.tokens} / ${reference.ledger.tokens} | ${crashed.fake.tokens} / ${crashed.ledger.tokens} |`,
    `| token overhead of the crash | – | ${overhead}% |`,
    "",
    "Resume is lease-based: a unit's lease (45 s, renewed by heartbeat) lapses and the run's alarm sends it again; units whose message was lost are re-sent after 60 s unclaimed.",
  ];
  console.log(lines.join("\n"));
  if (!argv.includes("--no-write")) replaceResultsSection(HEADING, lines.join("\n"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
