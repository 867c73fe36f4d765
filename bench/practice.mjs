// `npm run bench:practice`: one Training-Free GRPO step (20 tasks × G=5) through the local Worker
// (wrangler dev: routes, the PracticeRun Durable Object, the praxis-practice queue and its
// consumer) against a local OpenAI-compatible fake LLM with a fixed latency per call.
//
//   node bench/practice.mjs [--latency 300] [--tasks 20] [--group 5] [--concurrency 16] [--seed 7]
//                           [--port 8799] [--llm-port 8900] [--timeout 180] [--head] [--no-write] [--keep]
//
//   --latency      ms the fake LLM waits before answering each call (default 300)
//   --tasks        train tasks, all in one step (batchSize = tasks; default 20)
//   --group        rollouts per task, G (default 5)
//   --concurrency  the run's `concurrency` and the Worker's LLM_MAX_CONCURRENCY (default 16)
//   --seed         the run's seed (default 7)
//   --port         first port to try for wrangler dev; --llm-port likewise for the fake LLM
//   --timeout      seconds one run may take before the bench gives up (default 180)
//   --repeat       runs, each on a fresh agent and dataset; the median by wall time is reported (default 3)
//   --head         serve the last commit instead of the working tree
//   --no-write     do not touch bench/RESULTS.md
//   --verbose      wrangler dev and the Worker log at info level (queue batches with their durations)
//   --calls-out F  also write the fake's call log (stage, start and end in ms from the create) to F as JSON
//   --keep         keep the temporary directory (project snapshot, state, wrangler log; path printed)
//   --only W       run only the throughput step (`throughput`), only the learning world (`world`) or
//                  only the budget runs (`budget`: runs with budget.maxTokens, tokens used vs the budget)
//   --budgets      comma-separated budget.maxTokens of the budget runs (default 2000,5000,20000)
//   --world-seeds  comma-separated seeds of the learning world's runs (default 7,11)
//   --world-latency ms the fake LLM waits per call in the learning world (default 20)
//   --trace-world  log each world run's final library (with lineage) and its steps' hindsight records
//
// Then the learning world (bench/practice-world.mjs): task families the simulated agent never
// solves on its own, practised for 3 epochs with and without hindsight (issue 23), its held-out
// accuracy per epoch, calls and tokens per task, and what became of the hindsight lessons.
//
// Everything runs on 127.0.0.1. The fake answers rollouts from the task and the request's `seed`
// (a quarter of the tasks always right, a quarter always wrong, half right or wrong by seed, so
// about half the groups have contrast) and the structured calls in the shapes the learner parses
// (attempt_summaries, group_advantage, batch_plan). It logs every call with its stage, start, end
// and the usage it reported: prompt tokens ≈ prompt characters / 4, completion tokens ≈ reply / 4.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import http from "node:http";
import os from "node:os";
import {
  devLogFindings,
  devServer,
  freePort,
  log,
  machine,
  must,
  PRACTICE_HEADING,
  replaceResultsSection,
  request,
  sleep,
} from "./lib/dev-server.mjs";
import { WORLD_HEADING, worldReply, worldSection } from "./practice-world.mjs";
import { argv, flag, num, opt } from "./lib/options.mjs";

// ---------------------------------------------------------------- options
const LATENCY_MS = num("--latency", 300, 0, 60_000);
const TASKS = num("--tasks", 20, 1, 200);
const G = num("--group", 5, 2, 16);
const CONCURRENCY = num("--concurrency", 16, 1, 64);
const SEED = num("--seed", 7, 0, 2 ** 31 - 1);
const FIRST_PORT = num("--port", 8799, 1024, 65_000);
const FIRST_LLM_PORT = num("--llm-port", 8900, 1024, 65_000);
const TIMEOUT_MS = num("--timeout", 180, 10, 3600) * 1000;
const REPEAT = num("--repeat", 3, 1, 20);
// Every poll costs the Worker D1 reads (key, agent, run) and a call on the run's Durable Object,
// which compete with the units on this small machine; so poll slowly and take the end time from
// the run's own endedAt (the same machine's clock) rather than from when a poll noticed it.
const POLL_MS = 500;
const WRITE = !flag("--no-write");
const CALLS_OUT = opt("--calls-out") ?? null;
const STAGES = ["rollout", "summary", "advantage", "hindsight", "batch", "review"];
const ONLY = opt("--only") ?? null;
if (ONLY !== null && ONLY !== "throughput" && ONLY !== "world" && ONLY !== "budget") {
  console.error("bench: --only takes throughput, world or budget");
  process.exit(2);
}
const WORLD_SEEDS = (opt("--world-seeds") ?? "7,11").split(",").map(Number);
if (WORLD_SEEDS.some((x) => !Number.isInteger(x) || x < 0)) {
  console.error("bench: --world-seeds takes comma-separated whole numbers");
  process.exit(2);
}
const WORLD_LATENCY_MS = num("--world-latency", 20, 0, 60_000);

const server = devServer({ keep: flag("--keep"), tmpPrefix: "praxis-bench-practice-" });

// ---------------------------------------------------------------- the fake LLM
const tokens = (chars) => Math.max(1, Math.ceil(chars / 4));

function stageOf(body) {
  const name = body?.response_format?.json_schema?.name ?? null;
  if (name === null) return "rollout";
  return (
    {
      attempt_summaries: "summary",
      group_advantage: "advantage",
      hindsight_lesson: "hindsight",
      batch_plan: "batch",
      safety_review: "review",
    }[name] ?? `other:${name}`
  );
}

/** Task i: "Task i. What is a + b?"; its class (i % 4) says how the policy does on it. */
const taskText = (i) => `Task ${i}. What is ${137 + 71 * i} + ${248 + 53 * i}? Answer with the number only at the end.`;
const sumOf = (i) => 137 + 71 * i + 248 + 53 * i;
function policyRight(i, seed) {
  if (i % 4 === 1) return true;
  if (i % 4 === 3) return false;
  return (seed >>> 3) % 2 === 0;
}

function reply(stage, body) {
  const prompt = (body.messages ?? []).map((m) => String(m.content ?? "")).join("\n");
  if (stage === "rollout") {
    const user = String(body.messages?.at(-1)?.content ?? "");
    const m = /Task (\d+)\. What is (\d+) \+ (\d+)\?/.exec(user);
    if (!m) return "I cannot read this task.\nFinal answer: unknown";
    const i = Number(m[1]);
    const right = policyRight(i, Number(body.seed ?? 0));
    const answer = right ? sumOf(i) : sumOf(i) + 10;
    return [
      `I need ${m[2]} + ${m[3]}.`,
      `Units first: ${Number(m[2]) % 10} + ${Number(m[3]) % 10}, carrying into the tens where needed.`,
      right ? "Then the tens and hundreds, keeping each carry." : "Then the tens and hundreds; the carry looks settled, so I move on.",
      `Final answer: ${answer}`,
    ].join("\n");
  }
  if (stage === "summary") {
    const n = (prompt.match(/^### Attempt \d+/gm) ?? []).length;
    return JSON.stringify({
      summaries: Array.from(
        { length: n },
        (_, k) =>
          `Attempt ${k} added the units, then the tens and hundreds; it ${k % 2 ? "dropped" : "kept"} the carry into the tens and compared its total with the reference.`,
      ),
    });
  }
  if (stage === "advantage") {
    const task = /Task (\d+)\. What is/.exec(prompt)?.[1] ?? "?";
    return JSON.stringify({
      analysis: `On task ${task} the correct attempts carried from the units into the tens; the wrong ones dropped that carry.`,
      operations: [
        {
          op: "add",
          target: "",
          text: `When adding multi-digit numbers, write down each carry before adding the next column (learned on task ${task}).`,
          reason: "the wrong attempts lost a carry",
        },
      ],
    });
  }
  if (stage === "hindsight") {
    return JSON.stringify({
      diagnosis: "Every attempt answered ten more than the reference: the carry into the tens was counted twice.",
      operation: {
        op: "add",
        target: "",
        text: "When adding multi-digit numbers, add each carry exactly once before the next column.",
        reason: "every attempt double-counted a carry",
      },
    });
  }
  if (stage === "batch") {
    const ids = [...prompt.matchAll(/^### Task (\S+)/gm)].map((m) => m[1]);
    return JSON.stringify({
      reasoning: `The ${ids.length} groups proposed the same lesson about carries; merged into one.`,
      operations: ids.length
        ? [
            {
              op: "add",
              targets: [],
              text: "When adding multi-digit numbers, write down each carry before adding the next column.",
              reason: `proposed by ${ids.length} groups`,
            },
          ]
        : [],
    });
  }
  if (stage === "review") {
    const n = (prompt.match(/^\d+\.$/gm) ?? []).length;
    return JSON.stringify({
      verdicts: Array.from({ length: n }, (_, index) => ({ index, safe: true, category: "safe", reason: "ordinary arithmetic advice" })),
    });
  }
  return "{}";
}

/** What the fake answers and how slowly: the throughput step's script, or the learning world. */
const fakeMode = { reply, latency: LATENCY_MS };

function startFakeLlm(port) {
  const calls = [];
  let inflight = 0;
  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "bad json" } }));
        return;
      }
      const start = performance.now();
      inflight++;
      const stage = stageOf(body);
      const promptChars = (body.messages ?? []).reduce((n, m) => n + String(m.content ?? "").length, 0);
      setTimeout(() => {
        const content = fakeMode.reply(stage, body);
        const usage = { prompt_tokens: tokens(promptChars), completion_tokens: tokens(content.length) };
        inflight--;
        calls.push({ stage, start, end: performance.now(), inflightAtStart: inflight + 1, ...usage });
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: `chatcmpl-bench-${calls.length}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model ?? "bench-fake",
            choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          }),
        );
      }, fakeMode.latency);
    });
  });
  srv.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", () =>
      resolve({
        calls,
        close: () => new Promise((r) => (srv.closeAllConnections?.(), srv.close(() => r()))),
      }),
    );
  });
}

// ---------------------------------------------------------------- the run
async function pollUntilTerminal(url, token, t0) {
  const TERMINAL = new Set(["completed", "failed", "cancelled", "budget-exhausted"]);
  let lastLog = 0;
  let view = null;
  for (let i = 0; i < Math.ceil(TIMEOUT_MS / POLL_MS) + 1; i++) {
    if (server.stopping) throw new Error("stopped");
    const r = await request("GET", url, token, undefined, 10_000);
    if (r.status === 200) {
      view = r.body;
      if (TERMINAL.has(view.status)) return { view, seenAt: performance.now() };
    } else if (r.status !== 503) {
      throw new Error(`GET ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
    }
    const elapsed = performance.now() - t0;
    if (elapsed - lastLog > 5000) {
      lastLog = elapsed;
      const p = view?.progress;
      log(
        `${(elapsed / 1000).toFixed(1)} s: ${view?.status ?? "…"} ${p ? `stage ${p.stage}, rollouts ${p.rollouts.done}/${p.rollouts.total}, groups kept ${p.groups.kept} filtered ${p.groups.filtered}` : ""}`,
      );
    }
    if (elapsed > TIMEOUT_MS) break;
    await sleep(POLL_MS);
  }
  throw new Error(
    `the run did not finish within ${TIMEOUT_MS / 1000} s (last view: ${JSON.stringify(view?.progress ?? view?.status ?? null)})`,
  );
}

const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const fi = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "—");

function analyse(calls, view, wallMs, t0) {
  const by = Object.fromEntries(STAGES.map((s) => [s, { calls: 0, tokensIn: 0, tokensOut: 0, first: Infinity, last: -Infinity }]));
  const others = calls.filter((c) => !STAGES.includes(c.stage));
  for (const c of calls) {
    const b = by[c.stage];
    if (!b) continue;
    b.calls++;
    b.tokensIn += c.prompt_tokens;
    b.tokensOut += c.completion_tokens;
    b.first = Math.min(b.first, c.start - t0);
    b.last = Math.max(b.last, c.end - t0);
  }
  const total = {
    calls: calls.length,
    tokensIn: calls.reduce((n, c) => n + c.prompt_tokens, 0),
    tokensOut: calls.reduce((n, c) => n + c.completion_tokens, 0),
  };
  const latencySum = calls.reduce((n, c) => n + (c.end - c.start), 0);
  const sequentialMs = calls.length * LATENCY_MS;
  const kept = view.progress.groups.kept;
  const filtered = view.progress.groups.filtered;
  const batchCalls = by.batch.calls;
  // The reference pipeline: G rollouts per task, then per kept group a summary of each rollout,
  // one group advantage and one group update, and one batch update per step.
  const reference = { rollouts: TASKS * G, learning: kept * (G + 1 + 1) + 1 };
  const ours = { rollouts: by.rollout.calls, learning: calls.length - by.rollout.calls };
  const perTask = (x) => x / TASKS;
  // The best the pipeline can do at this concurrency: the rollout waves, then one summary, one
  // advantage and the batch update, each a single latency on the critical path.
  const idealMs =
    (Math.ceil((TASKS * G) / CONCURRENCY) + (by.summary.calls ? 1 : 0) + (by.advantage.calls ? 1 : 0) + (batchCalls ? 1 : 0)) * LATENCY_MS;
  // Calls that start within 100 ms of a wave's first call belong to that wave; the idle gap is from
  // a wave's last answer to the next wave's first request (time the pipeline spent outside the LLM).
  const waves = [];
  for (const c of [...calls].sort((x, y) => x.start - y.start)) {
    const w = waves.at(-1);
    if (w && c.start - w.start < 100) {
      w.calls++;
      w.end = Math.max(w.end, c.end);
    } else waves.push({ start: c.start, end: c.end, calls: 1 });
  }
  const gaps = waves.slice(1).map((w, i) => w.start - waves[i].end);
  return {
    by,
    others,
    waves: {
      count: waves.length,
      sizes: waves.map((w) => w.calls),
      meanGap: gaps.reduce((x, y) => x + y, 0) / (gaps.length || 1),
      maxGap: Math.max(0, ...gaps),
      firstCall: waves[0] ? waves[0].start - t0 : NaN,
    },
    total,
    latencySum,
    sequentialMs,
    speedup: sequentialMs / wallMs,
    idealMs,
    kept,
    filtered,
    reference,
    ours,
    callsPerTask: { ours: perTask(ours.rollouts + ours.learning), reference: perTask(reference.rollouts + reference.learning) },
    learningPerTask: { ours: perTask(ours.learning), reference: perTask(reference.learning) },
  };
}

// ---------------------------------------------------------------- budget runs
const BUDGET_HEADING = "## Practice budget overrun (`node bench/practice.mjs --only budget`)";
const BUDGETS = (opt("--budgets") ?? "2000,5000,20000").split(",").map(Number);

/**
 * Runs with budget.maxTokens (one step of TASKS × G, on a fresh agent each), and what they used as
 * the fake LLM counted it (its usage: prompt ≈ chars / 4, reply ≈ chars / 4), against the budget.
 */
async function budgetRuns({ base, token, tasks, fake, m }) {
  const rows = [];
  for (const [n, maxTokens] of BUDGETS.entries()) {
    const agentId = `bench-budget-${n}-${randomBytes(3).toString("hex")}`;
    const A = `${base}/v1/agents/${agentId}`;
    await must("PUT", A, token, { displayName: "budget bench" });
    const ds = await must("POST", `${base}/v1/datasets`, token, { name: `budget bench ${n}`, holdoutFraction: 0, tasks }, [201]);
    fake.calls.splice(0);
    const t0 = performance.now();
    const created = await must(
      "POST",
      `${A}/practice-runs`,
      token,
      {
        datasetId: ds.body.datasetId,
        epochs: 1,
        batchSize: TASKS,
        groupSize: G,
        concurrency: CONCURRENCY,
        seed: SEED,
        policy: { kind: "llm" },
        budget: { maxTokens },
      },
      [202],
    );
    const { view } = await pollUntilTerminal(`${A}/practice-runs/${created.body.runId}`, token, t0);
    await sleep(LATENCY_MS + 500); // calls still in flight when the run stopped
    const calls = fake.calls.splice(0);
    const used = calls.reduce((x, c) => x + c.prompt_tokens + c.completion_tokens, 0);
    const runUsage = view.usage.tokensIn + view.usage.tokensOut;
    rows.push({ maxTokens, status: view.status, calls: calls.length, used, runUsage });
    log(
      `budget ${maxTokens}: ${view.status}, ${calls.length} calls, ${used} tokens (${((100 * used) / maxTokens).toFixed(1)} % of the budget)`,
    );
  }
  const pct = (x) => `${x.toFixed(1)} %`;
  const worst = Math.max(...rows.map((r) => (100 * (r.used - r.maxTokens)) / r.maxTokens));
  return [
    `Latest run (\`node bench/practice.mjs${argv.length ? " " + argv.join(" ") : ""}\`), ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}, on ${m.cpu}, ${m.cores} cores.`,
    "",
    `How it is measured: the same \`wrangler dev\` and fake LLM as above (${LATENCY_MS} ms per call, usage ≈ characters / 4), one run per budget on a fresh agent:`,
    `one step of ${TASKS} tasks × G=${G}, concurrency ${CONCURRENCY}, \`budget.maxTokens\` as listed. "Used" is what the fake LLM itself counted over every call the run made`,
    "(its usage reports, which is what a provider bills); \"run's count\" is the run's own `usage`. Each call reserves its estimate in the run before it",
    "goes out (the prompt's size and the output cap, then the largest sizes seen for its purpose) and the run stops when the next reservation does not fit.",
    "",
    "| budget.maxTokens | ended | LLM calls | used (fake's count) | run's count | used / budget | overrun |",
    "|---:|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${fi(r.maxTokens)} | ${r.status} | ${r.calls} | ${fi(r.used)} | ${fi(r.runUsage)} | ${pct((100 * r.used) / r.maxTokens)} | ${r.used > r.maxTokens ? `${fi(r.used - r.maxTokens)} (${pct((100 * (r.used - r.maxTokens)) / r.maxTokens)})` : "none"} |`,
    ),
    "",
    `- Largest overrun: **${worst > 0 ? pct(worst) : "none"}** of the budget — aim ≤ 5 %: **${worst <= 5 ? "met" : "NOT met"}**. Before (the budget checked only between stages) a run with \`maxTokens: 2000\` ended at 2,478 tokens (24 % over).`,
  ].join("\n");
}

async function main() {
  const m = machine();
  const load0 = os.loadavg();
  log(
    `${TASKS} tasks × G=${G}, concurrency ${CONCURRENCY}, LLM latency ${LATENCY_MS} ms; ${m.cpu}, ${m.cores} cores, node ${m.node}, wrangler ${m.wrangler}`,
  );

  const llmPort = await freePort(FIRST_LLM_PORT);
  const fake = await startFakeLlm(llmPort);
  server.onCleanup(() => fake.close());
  log(`fake LLM on http://127.0.0.1:${llmPort}/v1`);

  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const { base, logFile } = await server.start({
    firstPort: FIRST_PORT === FIRST_LLM_PORT ? FIRST_PORT + 1 : FIRST_PORT,
    fromHead: flag("--head"),
    logLevel: flag("--verbose") ? "info" : "warn",
    vars: {
      PRAXIS_ADMIN_KEY: adminKey,
      LOG_LEVEL: flag("--verbose") ? "info" : "warn",
      LLM_BASE_URL: `http://127.0.0.1:${llmPort}/v1`,
      LLM_MODEL: "bench-fake",
      LLM_API_KEY: "not-needed",
      LLM_MAX_CONCURRENCY: String(CONCURRENCY),
    },
  });
  const tenant = await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-practice-${new Date().toISOString()}` }, [201]);
  const token = tenant.body.apiKey;
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    id: `t${i}`,
    task: taskText(i),
    groundTruth: String(sumOf(i)),
    split: "train",
  }));

  /** One run on a fresh agent and dataset; the fake's log is taken and emptied for the next. */
  async function oneRun(n) {
    const agentId = `bench-practice-${n}-${randomBytes(3).toString("hex")}`;
    const A = `${base}/v1/agents/${agentId}`;
    await must("PUT", A, token, { displayName: "practice bench" });
    const ds = await must("POST", `${base}/v1/datasets`, token, { name: `practice bench ${n}`, holdoutFraction: 0, tasks }, [201]);
    if (fake.calls.length) throw new Error(`the fake LLM was called ${fake.calls.length} times outside a run`);
    const cpu0 = server.cpuSeconds();
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    const t0Epoch = Date.now();
    const created = await must(
      "POST",
      `${A}/practice-runs`,
      token,
      {
        datasetId: ds.body.datasetId,
        epochs: 1,
        batchSize: TASKS,
        groupSize: G,
        concurrency: CONCURRENCY,
        seed: SEED,
        policy: { kind: "llm" },
      },
      [202],
    );
    const runId = created.body.runId;
    const { view, seenAt } = await pollUntilTerminal(`${A}/practice-runs/${runId}`, token, t0);
    const serverCpuS = cpu0 === null ? NaN : server.cpuSeconds() - cpu0;
    const own = process.cpuUsage(own0);
    const benchCpuS = (own.user + own.system) / 1e6;
    const seenMs = seenAt - t0;
    const wallMs = Number.isFinite(view.endedAt) && view.endedAt >= t0Epoch ? view.endedAt - t0Epoch : seenMs;
    if (view.status !== "completed") throw new Error(`run ${runId} ended ${view.status}: ${view.error ?? "(no error)"}`);
    await sleep(LATENCY_MS + 200); // a straggling call would land in the next run's log
    const calls = fake.calls.splice(0);
    log(`run ${n + 1}/${REPEAT} (${runId}): completed in ${(wallMs / 1000).toFixed(2)} s, ${calls.length} LLM calls`);
    return { n, runId, view, wallMs, seenMs, t0, calls, serverCpuS, benchCpuS };
  }
  if (ONLY === "budget") {
    const md = await budgetRuns({ base, token, tasks, fake, m });
    await server.cleanup();
    console.log(`\n${md}`);
    if (WRITE) {
      replaceResultsSection(BUDGET_HEADING, md);
      log("wrote the budget section of bench/RESULTS.md");
    }
    return;
  }
  const runs = [];
  if (ONLY !== "world") for (let n = 0; n < REPEAT; n++) runs.push(await oneRun(n));
  const load1 = os.loadavg();
  if (ONLY !== "throughput") {
    Object.assign(fakeMode, { reply: worldReply, latency: WORLD_LATENCY_MS });
    const world = await worldSection(
      { base, token, fake, must, sleep, log },
      {
        perFamily: 6,
        holdout: 4,
        epochs: 3,
        batchSize: 10,
        groupSize: G,
        concurrency: CONCURRENCY,
        seeds: WORLD_SEEDS,
        latency: WORLD_LATENCY_MS,
        trace: flag("--trace-world"),
        timeoutMs: Math.max(TIMEOUT_MS, 900_000),
      },
    );
    console.log(`\n${world.summary}`);
    if (WRITE) {
      replaceResultsSection(
        WORLD_HEADING,
        `Latest run of \`npm run bench:practice\` (\`node bench/practice.mjs${argv.length ? " " + argv.join(" ") : ""}\`), ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}, on ${m.cpu}, ${m.cores} cores.\n\n${world.md}`,
      );
      log("wrote the hindsight section of bench/RESULTS.md");
    }
  }
  const { reloads, errors: workerErrors } = devLogFindings(logFile);
  await server.cleanup();
  if (ONLY === "world") return;

  // The median run by wall time is the one reported in detail; every run's wall time is listed.
  const median = [...runs].sort((x, y) => x.wallMs - y.wallMs)[Math.floor((runs.length - 1) / 2)];
  const { view, wallMs, seenMs, t0, serverCpuS, benchCpuS } = median;
  const cpuLine = `CPU during the run: wrangler dev and workerd ${f(serverCpuS)} s, this bench (client and fake LLM) ${f(benchCpuS)} s, over ${f(wallMs / 1000)} s of wall time on ${m.cores} cores (${f(serverCpuS / (wallMs / 1000))} cores busy on average in the server; ${fi((serverCpuS * 1000) / median.calls.length)} ms of server CPU per LLM call).`;
  const walls = runs.map((r) => f(r.wallMs / 1000)).join(", ");
  const maxInflight = Math.max(0, ...median.calls.map((c) => c.inflightAtStart));
  const a = analyse(median.calls, view, wallMs, t0);
  if (CALLS_OUT)
    writeFileSync(
      CALLS_OUT,
      JSON.stringify(
        median.calls.map((c) => ({ ...c, start: c.start - t0, end: c.end - t0 })),
        null,
        1,
      ),
    );
  const serverSpanMs = view.endedAt && view.startedAt ? view.endedAt - view.startedAt : NaN;
  const callSpanMs = median.calls.length
    ? Math.max(...median.calls.map((c) => c.end)) - Math.min(...median.calls.map((c) => c.start))
    : NaN;

  const stageRows = STAGES.map((s) => {
    const b = a.by[s];
    return [
      s,
      fi(b.calls),
      f(b.calls / TASKS),
      fi(b.tokensIn),
      fi(b.tokensOut),
      f((b.tokensIn + b.tokensOut) / TASKS, 0),
      b.calls ? `${f(b.first / 1000)} → ${f(b.last / 1000)}` : "—",
    ];
  });
  stageRows.push([
    "total",
    fi(a.total.calls),
    f(a.total.calls / TASKS),
    fi(a.total.tokensIn),
    fi(a.total.tokensOut),
    f((a.total.tokensIn + a.total.tokensOut) / TASKS, 0),
    "",
  ]);
  const head = ["stage", "LLM calls", "calls / task", "tokens in", "tokens out", "tokens / task", "span (s from create)"];
  const w = head.map((h, i) => Math.max(h.length, ...stageRows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ");
  const stageText = [line(head), w.map((x) => "-".repeat(x)).join("  "), ...stageRows.map(line)].join("\n");
  const stageMd = [
    `| ${head.join(" | ")} |`,
    `|---|${head
      .slice(1)
      .map(() => "---:")
      .join("|")}|`,
    ...stageRows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");

  const ratioAll = a.callsPerTask.ours / a.callsPerTask.reference;
  const ratioLearning = a.learningPerTask.ours / a.learningPerTask.reference;
  const speedMet = a.speedup >= 10;
  const callsMet = ratioAll <= 0.8;
  const summary = [
    `Wall time of each run (s): ${walls}; the median run below.`,
    `Wall time, run created → completed: ${f(wallMs / 1000)} s (seen by a poll after ${f(seenMs / 1000)} s; server startedAt → endedAt ${f(serverSpanMs / 1000)} s; first LLM call → last ${f(callSpanMs / 1000)} s).`,
    `Sequential pipeline: ${a.total.calls} LLM calls × ${LATENCY_MS} ms = ${f(a.sequentialMs / 1000)} s (measured sum of call latencies ${f(a.latencySum / 1000)} s). Speed-up ${f(a.speedup, 1)}× (aim ≥ 10×: ${speedMet ? "met" : "NOT met"}).`,
    `Critical path at concurrency ${CONCURRENCY}: ${Math.ceil((TASKS * G) / CONCURRENCY)} rollout waves + summary + advantage + batch = ${f(a.idealMs / 1000)} s; the run took ${f(wallMs / a.idealMs, 2)}× that. Most LLM calls in flight at once: ${maxInflight}.`,
    `LLM calls went out in ${a.waves.count} waves (${a.waves.sizes.join(", ")} calls); the first call ${fi(a.waves.firstCall)} ms after the create; between a wave's last answer and the next wave's first call the LLM sat idle ${fi(a.waves.meanGap)} ms on average (at most ${fi(a.waves.maxGap)} ms).`,
    cpuLine,
    `Groups: ${a.kept} kept, ${a.filtered} filtered (of ${TASKS}).`,
    `Calls per task: ours ${f(a.callsPerTask.ours)} vs reference ${f(a.callsPerTask.reference)} (${f(ratioAll)}×; aim ≤ 0.8×: ${callsMet ? "met" : "NOT met"}); without rollouts ours ${f(a.learningPerTask.ours)} vs reference ${f(a.learningPerTask.reference)} (${f(ratioLearning)}×).`,
    `Tokens of the step: ${fi(a.total.tokensIn)} in + ${fi(a.total.tokensOut)} out = ${fi(a.total.tokensIn + a.total.tokensOut)} (the run's own ledger: ${view.usage.calls} calls, ${fi(view.usage.tokensIn)} in + ${fi(view.usage.tokensOut)} out).`,
  ];
  if (a.others.length)
    summary.push(`Other LLM calls (repairs or unknown): ${a.others.length} (${[...new Set(a.others.map((c) => c.stage))].join(", ")}).`);
  if (reloads || workerErrors.length)
    summary.push(
      `wrangler dev: ${reloads} reloads, ${workerErrors.length} error lines in its log${workerErrors.length ? ` (first: ${workerErrors[0]})` : ""}.`,
    );

  console.log("");
  console.log(
    `Praxis practice benchmark — one step of ${TASKS} tasks × G=${G}, concurrency ${CONCURRENCY}, fake LLM latency ${LATENCY_MS} ms`,
  );
  console.log(stageText);
  console.log("");
  for (const s of summary) console.log(s);

  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const md = `Latest run of \`npm run bench:practice\` (\`node bench/practice.mjs${argv.length ? " " + argv.join(" ") : ""}\`), ${date}, on
${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, Node ${m.node}, wrangler ${m.wrangler}, workerd ${m.workerd}; load average
${load0.map((x) => x.toFixed(2)).join(" / ")} at start, ${load1.map((x) => x.toFixed(2)).join(" / ")} at end (the fake LLM, wrangler and workerd share these cores).

How it is measured: \`wrangler dev\` on 127.0.0.1 serves a snapshot of the project${flag("--head") ? " at HEAD" : ""} with a fresh
state directory, \`LLM_BASE_URL\` pointing at a local OpenAI-compatible fake (a Node HTTP server, also on
127.0.0.1) that answers every chat completion after ${LATENCY_MS} ms and reports usage of about a token per
4 characters of prompt and of reply, and \`LLM_MAX_CONCURRENCY=${CONCURRENCY}\`. A dataset of ${TASKS} train tasks
(additions with ground truths; the fake's policy is always right on a quarter of them, always wrong on a
quarter and right or wrong by the request's \`seed\` on half) gets one run: \`epochs 1, batchSize ${TASKS},
groupSize ${G}, concurrency ${CONCURRENCY}, seed ${SEED}\`, policy \`llm\`, the default \`exact\` verifier, so exactly one step
through the real route, PracticeRun Durable Object, \`praxis-practice\` queue and consumer. Wall time is
from sending \`POST …/practice-runs\` (client clock) to the run's \`endedAt\` (the Worker's clock on the same
machine), read by polling \`GET …/practice-runs/:runId\` every ${POLL_MS} ms, so it includes the creation, the
admission and the library's promotion. Calls and tokens come from the
fake's own log of the calls it answered. The sequential pipeline is the same calls one after another
(calls × latency). The reference pipeline's plan per task: G rollouts + (per kept group: a summary of
each of its G rollouts, one group advantage, one group update) ÷ tasks + one batch update ÷ tasks; ours
summarises a group's rollouts in one call and proposes the group's operations in its advantage call,
and gives groups whose attempts all failed one hindsight call each (at most one per four tasks of a step).
Under wrangler dev the local queue (miniflare's broker) hands the consumer its next batch only after
the handler of the previous one returned, and the consumer settles every message of a batch before it
returns, so units go out in waves of up to \`concurrency\`; the idle gap between waves is what each unit
spends outside the LLM call (claim, budget check, usage ledger write, report, the queue round trip).

${stageMd}

- Wall time of each of the ${REPEAT} runs (each on a fresh agent and dataset, the same Worker): ${walls} s; the figures here are the median run's.
- Wall time, run created → completed: **${f(wallMs / 1000)} s** (seen by a poll after ${f(seenMs / 1000)} s; server \`startedAt → endedAt\` ${f(serverSpanMs / 1000)} s; first LLM call → last ${f(callSpanMs / 1000)} s).
- Sequential pipeline: ${a.total.calls} calls × ${LATENCY_MS} ms = **${f(a.sequentialMs / 1000)} s** (measured sum of call latencies ${f(a.latencySum / 1000)} s).
- Speed-up over sequential: **${f(a.speedup, 1)}×** — aim ≥ 10× at concurrency ${CONCURRENCY}: **${speedMet ? "met" : "NOT met"}**.
- Critical path at concurrency ${CONCURRENCY} (${Math.ceil((TASKS * G) / CONCURRENCY)} rollout waves + summary + advantage + batch update): ${f(a.idealMs / 1000)} s; measured ${f(wallMs / a.idealMs, 2)}× that. Most LLM calls in flight at once: ${maxInflight}.
- LLM calls went out in ${a.waves.count} waves of ${a.waves.sizes.join(", ")} calls; the first call ${fi(a.waves.firstCall)} ms after the create; between a wave's last answer and the next wave's first call the LLM sat idle **${fi(a.waves.meanGap)} ms** on average (at most ${fi(a.waves.maxGap)} ms).
- ${cpuLine}
- Groups kept / filtered: ${a.kept} / ${a.filtered}.
- LLM calls per task: ours **${f(a.callsPerTask.ours)}** vs the reference's **${f(a.callsPerTask.reference)}** = **${f(ratioAll)}×** — aim ≤ 0.8×: **${callsMet ? "met" : "NOT met"}**. Without the rollouts: ${f(a.learningPerTask.ours)} vs ${f(a.learningPerTask.reference)} = ${f(ratioLearning)}×.
- Tokens of one step (${TASKS} tasks × G=${G}): ${fi(a.total.tokensIn)} in + ${fi(a.total.tokensOut)} out = **${fi(a.total.tokensIn + a.total.tokensOut)}** (${fi((a.total.tokensIn + a.total.tokensOut) / TASKS)} per task); the run's own ledger says ${view.usage.calls} calls, ${fi(view.usage.tokensIn)} in + ${fi(view.usage.tokensOut)} out.
${a.others.length ? `- Other LLM calls (repairs or unknown): ${a.others.length}.\n` : ""}- wrangler dev reloads during the run: ${reloads}; error lines in its log: ${workerErrors.length}${workerErrors.length ? ` (first: \`${workerErrors[0]}\`)` : ""}.`;

  if (WRITE) {
    replaceResultsSection(PRACTICE_HEADING, md);
    log("wrote the practice section of bench/RESULTS.md");
  }
}

main().catch(async (err) => {
  if (!server.stopping) console.error(`bench failed: ${err?.stack ?? err}`);
  await server.cleanup();
  process.exit(server.stopping ? 130 : 1);
});
