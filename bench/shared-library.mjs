// `npm run bench:shared-library` (issue 32): shared libraries on the practice world of
// bench/practice-world.mjs, through the local Worker (wrangler dev) and its REST API only.
//
//   node bench/shared-library.mjs [--seed 11] [--samples 3] [--uses 8] [--latency 20] [--port 8799]
//                                 [--timeout 600] [--head] [--no-write] [--keep]
//
//   --seed      the practice run's seed (default 11)
//   --samples   samples per held-out task in each agent's evaluation, each with its own fixed seed (default 3)
//   --uses      tasks each subscriber serves and rewards once the harmful lesson is in the library (default 8)
//   --latency   ms the fake LLM waits per call (default 20)
//   --port      first port to try for wrangler dev
//   --timeout   seconds the practice run may take (default 600)
//   --head      serve the last commit instead of the working tree
//   --no-write  do not touch bench/RESULTS.md
//   --keep      keep the temporary directory (project snapshot, state, wrangler log; path printed)
//
// 1. Agent A practises the world's train tasks in a run whose libraryId is a fresh shared library:
//    the run starts from the library and the holdout gate promotes the result into it.
// 2. A, B (fresh, never practised) and D (fresh) subscribe; C (fresh) does not. Each answers the
//    held-out tasks as a deployed agent would: GET …/prompt for the task (its own lessons and its
//    subscriptions' merged), the prompt and the task to the simulated model, its final answer
//    against the reference. No rewards are sent here, so nothing learns from the held-out tasks.
// 3. The `add` family's harmful lesson goes into the shared library. B then serves `add` tasks, A
//    tasks of every family and D tasks of the families the lesson does not touch; each answer is
//    rewarded (success or failure) on the prompt's retrievalId, citing the labels the model named.
//    GET /v1/libraries/:libraryId/subscribers gives each subscriber's own Q for the lesson before
//    and after.
import { randomBytes } from "node:crypto";
import os from "node:os";
import { devLogFindings, devServer, log, machine, must, replaceResultsSection, sleep } from "./lib/dev-server.mjs";
import { startPracticeLlm } from "./lib/practice-llm.mjs";
import { FAMILIES, hash, worldReply, worldRun, worldTasks } from "./practice-world.mjs";
import { argv, flag, num } from "./lib/options.mjs";

// ---------------------------------------------------------------- options
const SEED = num("--seed", 11, 0, 2 ** 31 - 1);
const SAMPLES = num("--samples", 3, 1, 20);
const USES = num("--uses", 8, 1, 100);
const LATENCY_MS = num("--latency", 20, 0, 60_000);
const FIRST_PORT = num("--port", 8799, 1024, 65_000);
const TIMEOUT_MS = num("--timeout", 600, 30, 3600) * 1000;
const WRITE = !flag("--no-write");
// The world of `npm run bench:practice`: 6 train and 4 held-out tasks per family, 3 epochs with hindsight.
const WORLD = {
  perFamily: 6,
  holdout: 4,
  epochs: 3,
  batchSize: 10,
  groupSize: 5,
  concurrency: 16,
};
/** How long a library write may take to reach a subscriber's reads (issue 32 aims at ≤ 3 s). */
const PROPAGATION_TIMEOUT_MS = 30_000;
const SHARED_HEADING = "## Shared libraries (`npm run bench:shared-library`)";

const server = devServer({
  keep: flag("--keep"),
  tmpPrefix: "praxis-bench-shared-",
});

// ---------------------------------------------------------------- the simulated model
/** The fake's stages by the response schema the Worker asks for (a rollout asks for none). */
const STAGES = {
  attempt_summaries: "summary",
  group_advantage: "advantage",
  hindsight_lesson: "hindsight",
  batch_plan: "batch",
  safety_review: "review",
};
const tokens = (chars) => Math.max(1, Math.ceil(chars / 4));

/** The world's simulated LLM, logging each call as worldRun reads the log (stage, tokens). */
async function startWorldLlm() {
  const calls = [];
  const llm = await startPracticeLlm({
    latencyMs: LATENCY_MS,
    reply: (schema, body) => {
      const stage = STAGES[schema] ?? schema;
      const content = worldReply(stage, body);
      const promptChars = (body.messages ?? []).reduce((n, m) => n + String(m.content ?? "").length, 0);
      calls.push({
        stage,
        prompt_tokens: tokens(promptChars),
        completion_tokens: tokens(content.length),
      });
      return content;
    },
  });
  return { llm, fake: { calls } };
}

// ---------------------------------------------------------------- an agent at work
const familyOfTask = (task) => task.id.split("-")[0];
const TASK_FAMILIES = Object.keys(FAMILIES);

/**
 * One task served as a deployed agent serves it: its prompt block for the task from Praxis, then
 * the model with that block in its system prompt. Returns whether the final answer is the
 * reference, the labels the model named, and the retrieval to reward.
 */
async function serve(ctx, agentId, task, seed) {
  const p = await must(
    "GET",
    `${ctx.base}/v1/agents/${agentId}/prompt?query=${encodeURIComponent(task.task)}&budgetTokens=2000`,
    ctx.token,
  );
  const system = `You are a careful problem solver.\n\n${p.body.prompt}\n\nEnd with one line of the form \`Final answer: <answer>\`.`;
  const r = await must("POST", `${ctx.llm.baseUrl}/chat/completions`, undefined, {
    model: "bench-agent",
    seed,
    messages: [
      { role: "system", content: system },
      { role: "user", content: task.task },
    ],
  });
  const text = String(r.body.choices[0].message.content);
  const answer = /Final answer:\s*(.*)$/m.exec(text)?.[1]?.trim() ?? "";
  const cited = [...new Set([...text.matchAll(/\[([GS]\d+)\]/g)].map((m) => m[1]))];
  return {
    ok: answer === task.groundTruth,
    cited,
    retrievalId: p.body.retrievalId,
  };
}

/** The seed of sample `s` of a task: the same for every agent, so agents with the same prompt get the same draws. */
const sampleSeed = (task, s) => hash(`shared-library:${task.id}:${s}`) % 2 ** 31;

/** Held-out accuracy, overall and per family, over SAMPLES samples of each held-out task; nothing is rewarded. */
async function heldOut(ctx, agentId, holdout) {
  const per = Object.fromEntries(TASK_FAMILIES.map((f) => [f, { ok: 0, n: 0 }]));
  for (const task of holdout) {
    for (let s = 0; s < SAMPLES; s++) {
      const { ok } = await serve(ctx, agentId, task, sampleSeed(task, s));
      per[familyOfTask(task)].ok += ok ? 1 : 0;
      per[familyOfTask(task)].n++;
    }
  }
  const all = Object.values(per).reduce((a, b) => ({ ok: a.ok + b.ok, n: a.n + b.n }), { ok: 0, n: 0 });
  return {
    accuracy: all.ok / all.n,
    n: all.n,
    families: Object.fromEntries(Object.entries(per).map(([f, x]) => [f, x.ok / x.n])),
  };
}

/** Tasks of the given families that are in neither split of the dataset: fresh work after deployment. */
function workload(families, n) {
  const tasks = [];
  for (let i = 0; tasks.length < n; i++) {
    const name = families[i % families.length];
    const t = FAMILIES[name].make(100 + Math.floor(i / families.length));
    tasks.push({ id: `${name}-w${i}`, task: t.task, groundTruth: t.answer });
  }
  return tasks;
}

/** Serves each task once and rewards it on its retrievalId, citing the labels the model named. */
async function work(ctx, agentId, tasks) {
  let ok = 0;
  let citedHarm = 0;
  for (const [i, task] of tasks.entries()) {
    const r = await serve(ctx, agentId, task, hash(`work:${agentId}:${i}`) % 2 ** 31);
    ok += r.ok ? 1 : 0;
    const reward = await must("POST", `${ctx.base}/v1/agents/${agentId}/rewards`, ctx.token, {
      retrievalId: r.retrievalId,
      outcome: r.ok ? "success" : "failure",
      citedIds: r.cited,
    });
    if (reward.body.updated.some((u) => u.id === ctx.harmId && u.cited)) citedHarm++;
  }
  return { served: tasks.length, ok, citedHarm };
}

/** Polls an agent's prompt until it shows every text (a library write reaching a subscriber's reads); the wait in ms. */
async function untilShown(ctx, agentId, texts) {
  const t0 = Date.now();
  for (;;) {
    const p = await must("GET", `${ctx.base}/v1/agents/${agentId}/prompt?budgetTokens=2000`, ctx.token);
    if (texts.every((t) => p.body.prompt.includes(t))) return Date.now() - t0;
    if (Date.now() - t0 > PROPAGATION_TIMEOUT_MS)
      throw new Error(
        `${agentId}'s prompt did not show the library's lessons within ${PROPAGATION_TIMEOUT_MS / 1000} s:\n${p.body.prompt}`,
      );
    await sleep(200);
  }
}

/** Each subscriber's own Q, counters and the library's aggregate for one lesson (GET …/subscribers). */
async function lessonFigures(ctx, lessonId) {
  const s = (await must("GET", `${ctx.base}/v1/libraries/${ctx.libraryId}/subscribers`, ctx.token)).body;
  const agents = Object.fromEntries(s.items.map((a) => [a.agentId, a.lessons.find((l) => l.id === lessonId) ?? null]));
  return {
    agents,
    aggregate: s.lessons.find((l) => l.id === lessonId) ?? null,
  };
}

// ---------------------------------------------------------------- the bench
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : "—");

async function main() {
  const m = machine();
  const load0 = os.loadavg();
  const started = Date.now();
  const { llm, fake } = await startWorldLlm();
  server.onCleanup(() => llm.close());
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const { base, logFile } = await server.start({
    firstPort: FIRST_PORT,
    fromHead: flag("--head"),
    vars: {
      PRAXIS_ADMIN_KEY: adminKey,
      LOG_LEVEL: "warn",
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: "bench-fake",
      LLM_API_KEY: "not-needed",
      LLM_MAX_CONCURRENCY: String(WORLD.concurrency),
    },
  });
  const token = (
    await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-shared-library-${SEED}-${new Date().toISOString()}` }, [201])
  ).body.apiKey;
  const ctx = { base, token, llm, fake, must, sleep, log };
  const libraryId = (
    await must(
      "POST",
      `${base}/v1/libraries`,
      token,
      {
        name: "arithmetic world",
        description: "what agent A learned in practice",
      },
      [201],
    )
  ).body.libraryId;
  Object.assign(ctx, { libraryId });

  // 1. A practises on the shared library; the gate promotes into it.
  const tasks = worldTasks(WORLD.perFamily, WORLD.holdout);
  const holdout = tasks.filter((t) => t.split === "holdout");
  const run = await worldRun(ctx, tasks, {
    ...WORLD,
    seed: SEED,
    hindsight: true,
    agentId: "agent-a",
    libraryId,
    timeoutMs: TIMEOUT_MS,
  });
  if (!run.view.promotion?.promoted)
    throw new Error(`the run was not promoted (${run.view.promotion?.reason ?? "no promotion"}); try another --seed`);
  const lessons = (await must("GET", `${base}/v1/libraries/${libraryId}/experiences?limit=100`, token)).body.items;
  const ownA = (await must("GET", `${base}/v1/agents/agent-a/experiences?status=all`, token)).body.items.length;
  log(`A's run ${run.view.runId}: promoted; the library holds ${lessons.length} lessons (A's own library ${ownA})`);

  // 2. Subscribers and a baseline answer the held-out tasks through their prompts.
  for (const id of ["agent-b", "agent-c", "agent-d"]) await must("PUT", `${base}/v1/agents/${id}`, token, { displayName: id });
  for (const id of ["agent-a", "agent-b", "agent-d"]) await must("PUT", `${base}/v1/agents/${id}/subscriptions/${libraryId}`, token, {});
  const texts = lessons.map((l) => l.text);
  const reach = {};
  for (const id of ["agent-a", "agent-b", "agent-d"]) reach[id] = await untilShown(ctx, id, texts);
  const evals = {};
  for (const id of ["agent-a", "agent-b", "agent-c", "agent-d"]) {
    evals[id] = await heldOut(ctx, id, holdout);
    log(`${id}: held-out accuracy ${f3(evals[id].accuracy)} (${evals[id].n} answers)`);
  }

  // 3. A harmful lesson enters the shared library; the subscribers go on working and rewarding.
  const harm = await must("POST", `${base}/v1/libraries/${libraryId}/experiences`, token, { text: FAMILIES.add.harmful }, [201]);
  if (harm.body.status !== "active") throw new Error(`the harmful lesson was admitted as '${harm.body.status}'`);
  Object.assign(ctx, { harmId: harm.body.id });
  const harmReach = {};
  for (const id of ["agent-a", "agent-b", "agent-d"]) harmReach[id] = await untilShown(ctx, id, [FAMILIES.add.harmful]);
  const before = await lessonFigures(ctx, ctx.harmId);
  const loads = {
    "agent-b": { families: ["add"], tasks: workload(["add"], USES) },
    "agent-a": {
      families: TASK_FAMILIES,
      tasks: workload(TASK_FAMILIES, Math.max(USES, TASK_FAMILIES.length)),
    },
    "agent-d": {
      families: ["km", "pct", "rev"],
      tasks: workload(["km", "pct", "rev"], USES),
    },
  };
  const worked = {};
  for (const [id, l] of Object.entries(loads)) worked[id] = await work(ctx, id, l.tasks);
  const after = await lessonFigures(ctx, ctx.harmId);
  /** A subscriber's own Q for the lesson; its default Q while it has never rewarded it (no figures yet). */
  const defaultQ = Object.fromEntries(
    await Promise.all(
      Object.keys(loads).map(async (id) => [id, (await must("GET", `${base}/v1/agents/${id}/config`, token)).body.defaultQ]),
    ),
  );
  const qOf = (figs, id) => figs.agents[id]?.q ?? (id in figs.agents ? defaultQ[id] : NaN);
  const libraryQ = (await must("GET", `${base}/v1/libraries/${libraryId}/experiences/${ctx.harmId}`, token)).body.q;
  // Each subscriber's own ranking for an `add` task, after the rewards (a retrieve counts uses, not Q, so it comes last).
  const probe = workload(["add"], 1)[0].task;
  const ranked = {};
  for (const id of Object.keys(loads)) {
    // Reads served from a snapshot may lag the rewards by their staleness bound: wait for the Q the library reports.
    const t0 = Date.now();
    for (;;) {
      const items = (
        await must("POST", `${base}/v1/agents/${id}/retrieve`, token, {
          query: probe,
          kinds: ["experience"],
          k1: 50,
          k2: 20,
        })
      ).body.items;
      const at = items.findIndex((i) => i.id === ctx.harmId);
      ranked[id] = {
        rank: at < 0 ? null : at + 1,
        of: items.length,
        q: at < 0 ? NaN : items[at].q,
      };
      if (Math.abs(ranked[id].q - qOf(after, id)) < 1e-9 || Date.now() - t0 > PROPAGATION_TIMEOUT_MS) break;
      await sleep(200);
    }
  }
  const { reloads, errors } = devLogFindings(logFile);
  await server.cleanup();
  const elapsedS = (Date.now() - started) / 1000;

  // ---------------------------------------------------------------- report
  const runAcc = run.accuracy;
  const accRows = [
    ["A (practised; subscribes to the library it promoted into)", "agent-a", "yes"],
    ["B (fresh, never practised; subscribes)", "agent-b", "yes"],
    ["D (fresh, never practised; subscribes)", "agent-d", "yes"],
    ["C (fresh, never practised; no subscription)", "agent-c", "no"],
  ].map(
    ([who, id, sub]) =>
      `| ${who} | ${sub} | **${f3(evals[id].accuracy)}** | ${TASK_FAMILIES.map((f) => f3(evals[id].families[f])).join(" | ")} |`,
  );
  const qRows = Object.entries(loads).map(([id, l]) => {
    const w = worked[id];
    const a = after.agents[id];
    const rk = ranked[id];
    return `| ${id.replace("agent-", "").toUpperCase()} | ${l.families.join(", ")} | ${w.served} | ${w.ok} | ${w.citedHarm} | ${f3(qOf(before, id))} | **${f3(qOf(after, id))}** | ${a ? `${a.successes} / ${a.failures}` : "0 / 0 (never cited)"} | ${f3(rk.q)} | ${rk.rank ?? "—"} of ${rk.of} |`;
  });
  const bEqualsA = evals["agent-b"].accuracy === evals["agent-a"].accuracy;
  const hurt = ["agent-a", "agent-b"].every((id) => qOf(after, id) < qOf(before, id));
  const untouched = qOf(after, "agent-d") === qOf(before, "agent-d");
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const cmd = `node bench/shared-library.mjs${argv.length ? ` ${argv.join(" ")}` : ""}`;
  const md = `Latest run (\`${cmd}\`), ${date}, on ${m.cpu}, ${m.cores} cores, Node ${m.node}, wrangler ${m.wrangler};
load average ${load0.map((x) => x.toFixed(2)).join(" / ")} at start; ${elapsedS.toFixed(0)} s in all.

How it is measured: \`wrangler dev\` on 127.0.0.1${flag("--head") ? " (the last commit)" : ""} with a fresh state and the simulated LLM of the practice world
(bench/practice-world.mjs: the model solves a family only when its prompt holds the family's lesson, follows a harmful
lesson when its prompt holds one, and names the labels it follows), ${LATENCY_MS} ms per call; every step goes through the REST API.
1. Agent A practises the world's ${tasks.length - holdout.length} train tasks (\`epochs ${WORLD.epochs}, batchSize ${WORLD.batchSize}, groupSize ${WORLD.groupSize}\`, hindsight on, seed ${SEED})
   in a run with \`libraryId\` set to a fresh shared library: it starts from the library's lessons and the holdout gate
   promotes into the library (${run.view.promotion.reason.slice(Math.max(0, run.view.promotion.reason.indexOf("gate passed")))}). A's own library stays empty (${ownA} lessons); the shared one holds ${lessons.length} (lessons for ${run.families.join(", ")}; ${run.harmfulInLibrary} harmful).
   The run's own held-out accuracy per epoch: ${runAcc.map(f3).join(" → ")}.
2. A, B and D subscribe (\`PUT /v1/agents/:agentId/subscriptions/:libraryId {}\`); C does not. B, C and D never practised.
   Each agent answers the ${holdout.length} held-out tasks ${SAMPLES} times (sample s of task t sends the model the seed FNV-1a(\`shared-library:t:s\`) mod 2³¹, the same for every agent) as a deployed
   agent would: \`GET /v1/agents/:agentId/prompt?query=<task>\` (its own lessons and its subscriptions' merged, shared ones
   labelled \`[S#]\`), then the block and the task to the model; right when its final answer is the reference. No rewards here.
   The library's lessons showed in the subscribers' prompts ${Math.max(...Object.values(reach))} ms after subscribing at most.
3. The \`add\` family's harmful lesson ("${FAMILIES.add.harmful}") is added to the shared library
   (\`POST /v1/libraries/:libraryId/experiences\`; admitted active; in every subscriber's prompt within ${Math.max(...Object.values(harmReach))} ms). Then B serves
   ${USES} new \`add\` tasks, A ${loads["agent-a"].tasks.length} new tasks of every family and D ${USES} new \`km\`/\`pct\`/\`rev\` tasks; each answer is rewarded
   (\`POST …/rewards {retrievalId, outcome, citedIds}\`, citing the labels the model named). Q is each subscriber's own Q
   for the harmful lesson from \`GET /v1/libraries/:libraryId/subscribers\` (the agent's default Q, ${[...new Set(Object.values(defaultQ))].join("/")}, while it has not rewarded it).

| agent | subscribed | held-out accuracy | ${TASK_FAMILIES.join(" | ")} |
|---|---|---:|${TASK_FAMILIES.map(() => "---:").join("|")}|
${accRows.join("\n")}

| subscriber | tasks served after the harmful lesson | tasks | right | answers citing it | its Q before | its Q after | its successes / failures | Q in its own retrieve | rank in its retrieve for an \`add\` task |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${qRows.join("\n")}

- B, never practised, starts at **${f3(evals["agent-b"].accuracy)}** held-out accuracy through its subscription, A at ${f3(evals["agent-a"].accuracy)} (the same prompts and draws: ${bEqualsA ? "equal" : "NOT equal"}); the run measured ${f3(runAcc.at(-1))} for the promoted library; without the subscription C stays at ${f3(evals["agent-c"].accuracy)}.
- The harmful lesson's Q fell in the agents it hurt (${["agent-a", "agent-b"].map((id) => `${id.replace("agent-", "").toUpperCase()} ${f3(qOf(before, id))} → ${f3(qOf(after, id))}`).join(", ")}: ${hurt ? "yes" : "NO"}) and stayed at ${f3(qOf(after, "agent-d"))} in D, whose tasks never cite it (${untouched ? "untouched" : "CHANGED"}); the library's own Q for it stays ${f3(libraryQ)} and its mean over subscribers is ${f3(after.aggregate?.meanQ)}.
- wrangler dev: ${reloads} reloads, ${errors.length} error lines in its log${errors.length ? ` (first: \`${errors[0]}\`)` : ""}.`;

  console.log(`\n${md}`);
  if (WRITE) {
    replaceResultsSection(SHARED_HEADING, md);
    log("wrote the shared-libraries section of bench/RESULTS.md");
  }
  if (!bEqualsA || !hurt || !untouched) process.exitCode = 1;
}

main().catch(async (err) => {
  if (!server.stopping) console.error(`bench failed: ${err?.stack ?? err}`);
  await server.cleanup();
  process.exit(server.stopping ? 130 : 1);
});
