// `npm run bench:live-loop` (issue 40): does an agent that only reads `/prompt` get better from its
// own episodes? A simulated agent follows the README's loop through the real Worker (wrangler dev,
// the praxis-jobs queue and its consumer, live extraction against a local fake LLM): for each task
// it starts an episode, reads `GET …/prompt?query=<task>&episodeId=…`, answers with the lessons it
// was shown (citing their [G#] labels), records its attempts (a failed first try is followed by one
// that works, as when a checker's feedback shows the way) and ends the episode. No lesson to start
// with: everything it learns comes from live extraction, which the fake LLM answers with the task's
// rule, or 20% of the time (learner noise) a plausible harmful one.
//
//   node bench/live-loop.mjs [--passes 5] [--seeds 7,11,13] [--base 0.2] [--noise 0.2] [--aa] [--trace]
//                            [--port 8799] [--llm-port 8900] [--head] [--no-write] [--keep] [--verbose]
//
//   --passes   passes over the 30 training tasks (default 5)
//   --seeds    one world per seed, on a fresh agent each; a seed sets the agent's draws, the order of
//              the tasks and the learner's noise (default 7,11,13)
//   --base     the agent's first-try success without the rule's lesson (default 0.2)
//   --noise    the share of extracted lessons that are harmful (default 0.2)
//   --aa       also run the A/A world: lessons change nothing (the agent succeeds at the base rate
//              whatever its prompt holds), so every graduation or retirement is a false one
//   --trace    log every extraction job's result, oldest first
//   --head     serve the last commit instead of the working tree
//   --no-write do not touch bench/RESULTS.md
//
// The world: 6 rules, 5 training and 5 held-out tasks each. The agent gets a task right at the first
// try with probability `base` on its own, 0.95 with the rule's lesson in its prompt, and never with
// a harmful lesson for the rule in its prompt (a harmful lesson wins over a right one beside it).
// Held-out tasks are never trained on: after each pass the agent answers each of them once from a
// prompt read with a read-scoped key, outside any episode (nothing is learned from them); after the
// last pass, once more with its own write key outside any episode (a prompt that explores lessons
// on probation, whose token nobody rewards).
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import os from "node:os";
import { devLogFindings, devServer, freePort, log, machine, must, replaceResultsSection, sleep } from "./lib/dev-server.mjs";
import { argv, flag, num, opt } from "./lib/options.mjs";
import { hash } from "./practice-world.mjs";

const PASSES = num("--passes", 5, 1, 50);
const SEEDS = (opt("--seeds") ?? "7,11,13").split(",").map(Number);
if (!SEEDS.length || SEEDS.some((x) => !Number.isInteger(x) || x < 0)) {
  console.error("bench: --seeds takes comma-separated whole numbers");
  process.exit(2);
}
const rate = (name, fallback) => {
  const raw = opt(name);
  const v = raw === undefined ? fallback : Number(raw);
  if (!(v >= 0 && v <= 1)) {
    console.error(`bench: ${name} must be a number between 0 and 1`);
    process.exit(2);
  }
  return v;
};
const BASE = rate("--base", 0.2);
const NOISE = rate("--noise", 0.2);
const WITH_LESSON = 0.95;
const FIRST_PORT = num("--port", 8799, 1024, 65_000);
const FIRST_LLM_PORT = num("--llm-port", 8900, 1024, 65_000);
const WRITE = !flag("--no-write");
const HEADING = "## The live loop for prompt-only agents (`npm run bench:live-loop`)";
const JOB_WAIT_MS = 120_000;

const server = devServer({ keep: flag("--keep"), tmpPrefix: "praxis-bench-live-loop-" });

// ---------------------------------------------------------------- the world
const WORDS = ["garden", "silver", "window", "rocket", "market", "bridge", "candle", "forest", "pencil", "shadow"];
const RULES = {
  km: {
    make: (i) => ({ task: `Convert ${2 + ((7 * i) % 23)} km to metres. Give the number of metres.`, args: [2 + ((7 * i) % 23)] }),
    solve: ([x]) => String(x * 1000),
    wrong: ([x]) => String(x),
    lesson: "When converting kilometres to metres, multiply the km figure by 1000; never copy the kilometre figure.",
    harmful: "When converting km to metres, keep the km figure as it is; only the unit name changes.",
    pattern: "converting a distance in km to metres",
    keywords: ["km", "metres", "convert", "distance"],
    when: "a task asks to convert a distance given in km into metres",
    right: "I multiplied the kilometres by 1000.",
    slip: "I copied the number of kilometres.",
  },
  pct: {
    make: (i) => {
      const p = [10, 20, 25, 50, 75][i % 5];
      const n = 40 * (1 + ((3 * i) % 11));
      return { task: `What is ${p}% of ${n}? Give the percentage value.`, args: [p, n] };
    },
    solve: ([p, n]) => String((p * n) / 100),
    wrong: ([p, n]) => String(p * n),
    lesson: "For a percentage of a number, multiply the percentage by the number and then divide by 100.",
    harmful: "For a percentage of a number, multiply the percentage by the number; that product is the percentage value.",
    pattern: "taking a percentage of a number",
    keywords: ["percentage", "percent", "of", "value"],
    when: "a task asks what some percent of a number is",
    right: "I multiplied and then divided by 100.",
    slip: "I multiplied the percentage by the number.",
  },
  rev: {
    make: (i) => ({
      task: `Reverse the letters of the word "${WORDS[i % WORDS.length]}". Give the reversed word.`,
      args: [WORDS[i % WORDS.length]],
    }),
    solve: ([w]) => [...w].reverse().join(""),
    wrong: ([w]) => w,
    lesson: "To reverse the letters of a word, write them from last to first and check the first letter of the result.",
    harmful: "To reverse the letters of a word, keep the first and last letters in place and leave the rest as written.",
    pattern: "reversing the letters of a word",
    keywords: ["reverse", "letters", "word", "reversed"],
    when: "a task asks to reverse a word or spell it backwards",
    right: "I wrote the letters from last to first.",
    slip: "I read the word as it stands.",
  },
  hours: {
    make: (i) => ({ task: `How many minutes are there in ${2 + ((5 * i) % 19)} hours? Give the minutes.`, args: [2 + ((5 * i) % 19)] }),
    solve: ([h]) => String(h * 60),
    wrong: ([h]) => String(h * 100),
    lesson: "To turn hours into minutes, multiply the hours by 60, not by 100.",
    harmful: "To turn hours into minutes, multiply the hours by 100 so the minutes stay a round number.",
    pattern: "turning hours into minutes",
    keywords: ["hours", "minutes", "time", "convert"],
    when: "a task asks how many minutes there are in some hours",
    right: "I multiplied the hours by 60.",
    slip: "I multiplied the hours by 100.",
  },
  sub: {
    make: (i) => {
      const a = 612 + ((83 * i) % 300);
      const b = 158 + ((47 * i) % 400);
      return { task: `Subtract ${b} from ${a}. Give the difference.`, args: [a, b] };
    },
    solve: ([a, b]) => String(a - b),
    wrong: ([a, b]) => String(a - b + 10),
    lesson: "When subtracting, borrow from the next column whenever the top digit is smaller than the bottom one.",
    harmful: "When subtracting, take the smaller digit from the larger one in each column so you never borrow.",
    pattern: "subtracting multi-digit numbers",
    keywords: ["subtract", "difference", "borrow", "digits"],
    when: "a task asks to subtract one number from another and give the difference",
    right: "I borrowed from the next column where the top digit was smaller.",
    slip: "I took the smaller digit from the larger one in each column.",
  },
  add: {
    make: (i) => {
      const a = 137 + ((71 * i) % 700);
      const b = 248 + ((53 * i) % 600);
      return { task: `Add ${a} and ${b}. Give the sum.`, args: [a, b] };
    },
    solve: ([a, b]) => String(a + b),
    wrong: ([a, b]) => String(a + b - 10),
    lesson: "When adding multi-digit numbers, write down each carry before adding the next column.",
    harmful: "When adding multi-digit numbers, round each number to the nearest ten first so the sum stays simple.",
    pattern: "adding multi-digit numbers",
    keywords: ["add", "sum", "carry", "digits"],
    when: "a task asks to add two numbers and give the sum",
    right: "I wrote down each carry before the next column.",
    slip: "I added the columns without writing down the carries.",
  },
};
const RULE_NAMES = Object.keys(RULES);
const TRAIN_PER_RULE = 5;
const HOLDOUT_PER_RULE = 5;

const tasks = RULE_NAMES.flatMap((rule) =>
  Array.from({ length: TRAIN_PER_RULE + HOLDOUT_PER_RULE }, (_, i) => ({
    id: `${rule}-${i}`,
    rule,
    ...RULES[rule].make(i),
    split: i < TRAIN_PER_RULE ? "train" : "holdout",
  })),
);
const ruleOfTask = (text) => tasks.find((t) => t.task === text)?.rule ?? null;
const harmfulTexts = new Set(RULE_NAMES.map((r) => RULES[r].harmful));
const rightTexts = new Set(RULE_NAMES.map((r) => RULES[r].lesson));
/** The world's seed while it runs (one world at a time). */
let SEED = SEEDS[0];
/** A seeded coin: uniform in [0, 1) from the key, the same on every run with the same seed. */
const chance = (key, p) => createHash("sha256").update(`${SEED}:${key}`).digest().readUInt32BE(0) / 2 ** 32 < p;

/** The lesson lines of a prompt block, in order: `[G3]. text`. */
const libraryLines = (prompt) => [...prompt.matchAll(/^\[([GS]\d+)\]\. (.*)$/gm)].map((m) => ({ label: m[1], text: m[2] }));

/**
 * The agent's first try at a task with a prompt: a harmful lesson for the task's rule makes it fail,
 * the rule's lesson makes it right 95% of the time, else it is right at the base rate. In the A/A
 * world lessons change nothing.
 */
function firstTry(task, prompt, key, aa) {
  const rule = RULES[task.rule];
  const lines = libraryLines(prompt);
  const harm = lines.find((l) => l.text === rule.harmful);
  const help = lines.find((l) => l.text === rule.lesson);
  const ok = aa ? chance(key, BASE) : harm ? false : chance(key, help ? WITH_LESSON : BASE);
  const used = aa ? [] : harm ? [harm] : help ? [help] : [];
  return { ok, used, answer: ok ? rule.solve(task.args) : rule.wrong(task.args), method: ok ? rule.right : rule.slip };
}

// ---------------------------------------------------------------- the fake LLM (live extraction)
const tokens = (chars) => Math.max(1, Math.ceil(chars / 4));
const dataBlock = (prompt, label) => new RegExp(`DATA \\(${label}\\)[^\\n]*\\n(\`{3,})text\\n([\\s\\S]*?)\\n\\1`).exec(prompt)?.[2] ?? null;

function reply(stage, prompt) {
  if (stage === "live_insight") {
    const rule = ruleOfTask((dataBlock(prompt, "task") ?? "").trim());
    if (!rule) return JSON.stringify({ pattern: "", keywords: [], insight: "", when: "" });
    const r = RULES[rule];
    const harmful = chance(`noise:${prompt}`, NOISE);
    return JSON.stringify({ pattern: r.pattern, keywords: r.keywords, insight: harmful ? r.harmful : r.lesson, when: r.when });
  }
  if (stage === "library_decision") {
    const insight = /^insight: (.*)$/m.exec(dataBlock(prompt, "candidate lesson") ?? "")?.[1] ?? "";
    return JSON.stringify({ operation: "ADD", text: insight, reason: "a lesson the stored ones do not state" });
  }
  if (stage === "safety_review") {
    const n = (prompt.match(/^\d+\.$/gm) ?? []).length;
    return JSON.stringify({
      verdicts: Array.from({ length: n }, (_, index) => ({ index, safe: true, category: "safe", reason: "ordinary arithmetic advice" })),
    });
  }
  return "{}";
}

function startFakeLlm(port) {
  const calls = [];
  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      const stage = body?.response_format?.json_schema?.name ?? "chat";
      const prompt = (body.messages ?? []).map((m) => String(m.content ?? "")).join("\n");
      const content = reply(stage, prompt);
      const usage = { prompt_tokens: tokens(prompt.length), completion_tokens: tokens(content.length) };
      calls.push({ stage, ...usage });
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-live-${calls.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? "bench-fake",
          choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    });
  });
  return new Promise((resolve, reject) => {
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", () =>
      resolve({ calls, close: () => new Promise((r) => (srv.closeAllConnections?.(), srv.close(() => r()))) }),
    );
  });
}

// ---------------------------------------------------------------- one world, one agent
const estimateTokens = (text) => Math.ceil(text.length / 4);

/** Waits until no live-extraction job of the agent is queued or running (what a pass learned has landed). */
async function jobsSettled(A, token) {
  const t0 = Date.now();
  for (;;) {
    const jobs = (await must("GET", `${A}/jobs?limit=200`, token)).body.items ?? [];
    if (!jobs.some((j) => j.status === "queued" || j.status === "running")) return jobs;
    if (Date.now() - t0 > JOB_WAIT_MS) throw new Error(`live extraction jobs still pending after ${JOB_WAIT_MS / 1000} s`);
    await sleep(500);
  }
}

/** Every lesson of the agent, whatever its status. */
async function allLessons(A, token) {
  const out = [];
  let cursor = null;
  do {
    const page = (await must("GET", `${A}/experiences?status=all&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, token))
      .body;
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

async function runWorld({ base, adminToken }, { aa }) {
  const agentId = `live-loop-${aa ? "aa" : "world"}-${randomBytes(3).toString("hex")}`;
  const A = `${base}/v1/agents/${agentId}`;
  await must("PUT", A, adminToken, { displayName: "live loop bench" });
  const write = (await must("POST", `${base}/v1/keys`, adminToken, { name: "agent", scope: "write", agentIds: [agentId] }, [201])).body
    .apiKey;
  const read = (await must("POST", `${base}/v1/keys`, adminToken, { name: "held-out reader", scope: "read", agentIds: [agentId] }, [201]))
    .body.apiKey;
  const train = tasks.filter((t) => t.split === "train");
  const holdout = tasks.filter((t) => t.split === "holdout");
  const perPass = [];
  const holdoutPerPass = [];
  const exploration = { prompts: 0, explored: 0, tokens: 0, promptTokens: 0 };
  let harmfulInHoldoutPrompts = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    // Each pass takes the tasks in its own order, as an agent meets them.
    const order = [...train].sort((a, b) => hash(`${SEED}:${pass}:${a.id}`) - hash(`${SEED}:${pass}:${b.id}`));
    let ok = 0;
    for (const task of order) {
      const ep = (await must("POST", `${A}/episodes`, write, { task: task.task }, [201])).body.episodeId;
      const block = (await must("GET", `${A}/prompt?query=${encodeURIComponent(task.task)}&episodeId=${ep}`, write)).body;
      exploration.prompts++;
      exploration.promptTokens += block.estimatedTokens;
      if (block.exploredIds.length) {
        // The block's lesson lines follow experienceIds, one line each.
        const lines = libraryLines(block.prompt);
        for (const id of block.exploredIds) {
          const line = lines[block.experienceIds.indexOf(id)];
          if (line) exploration.tokens += estimateTokens(`[${line.label}]. ${line.text}`) + 1;
        }
        exploration.explored += block.exploredIds.length;
      }
      const first = firstTry(task, block.prompt, `${pass}:${task.id}:first`, aa);
      if (first.ok) ok++;
      const cite = first.used.map((l) => ` [${l.label}]`).join("");
      await must(
        "POST",
        `${A}/episodes/${ep}/attempts`,
        write,
        {
          description: `${first.method}${cite}`,
          ok: first.ok,
          ...(first.ok ? {} : { error: `checker: expected a different answer than ${first.answer}` }),
        },
        [200, 201],
      );
      let answer = first.answer;
      if (!first.ok) {
        // The checker's feedback shows the way: the second try uses the rule.
        answer = RULES[task.rule].solve(task.args);
        await must("POST", `${A}/episodes/${ep}/attempts`, write, { description: RULES[task.rule].right, ok: true }, [200, 201]);
      }
      await must("POST", `${A}/episodes/${ep}/end`, write, { outcome: "success", answer: `${answer}${cite}` });
    }
    perPass.push(ok / train.length);
    await jobsSettled(A, write);
    let held = 0;
    for (const task of holdout) {
      const block = (await must("GET", `${A}/prompt?query=${encodeURIComponent(task.task)}`, read)).body;
      if (libraryLines(block.prompt).some((l) => harmfulTexts.has(l.text)) && pass === PASSES - 1) harmfulInHoldoutPrompts++;
      if (firstTry(task, block.prompt, `holdout:${pass}:${task.id}`, aa).ok) held++;
    }
    holdoutPerPass.push(held / holdout.length);
    log(
      `${aa ? "A/A" : "world"} seed ${SEED} pass ${pass + 1}/${PASSES}: first-try ${(ok / train.length).toFixed(2)}, held-out ${(held / holdout.length).toFixed(2)}`,
    );
  }
  // The same held-out tasks read with the agent's own key outside an episode: such a prompt explores.
  const unrewarded = { ok: 0, harmful: 0 };
  for (const task of holdout) {
    const block = (await must("GET", `${A}/prompt?query=${encodeURIComponent(task.task)}`, write)).body;
    if (libraryLines(block.prompt).some((l) => harmfulTexts.has(l.text))) unrewarded.harmful++;
    if (firstTry(task, block.prompt, `holdout-write:${task.id}`, aa).ok) unrewarded.ok++;
  }
  const lessons = await allLessons(A, adminToken);
  const jobs = await jobsSettled(A, write);
  if (flag("--trace")) {
    const textOf = new Map(lessons.map((e) => [e.id, e.text]));
    for (const j of [...jobs].sort((a, b) => a.createdAt - b.createdAt))
      log(`  job ${j.status} ${j.result?.applied ?? "-"} ${kindOf(textOf.get(j.result?.experienceId) ?? "")}: ${j.reason}`);
  }
  return {
    seed: SEED,
    agentId,
    perPass,
    holdoutPerPass,
    exploration,
    harmfulInHoldoutPrompts,
    writeHoldout: { success: unrewarded.ok / holdout.length, harmful: unrewarded.harmful },
    lessons,
    jobs,
  };
}

// ---------------------------------------------------------------- report
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "—");
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const kindOf = (text) => (harmfulTexts.has(text) ? "harmful" : rightTexts.has(text) ? "right" : "other");
const list = (xs) => (xs.length ? xs.join(", ") : "—");

function lessonRows(lessons) {
  return lessons
    .filter((e) => e.source === "live")
    .map((e) => ({
      kind: kindOf(e.text),
      rule: RULE_NAMES.find((r) => RULES[r].lesson === e.text || RULES[r].harmful === e.text) ?? "?",
      verdict: e.evidence.verdict ?? (e.probation ? "exploring" : "trusted"),
      status: e.status,
      exposures: e.exposures,
      shown: e.evidence.shown,
      notShown: e.evidence.notShown,
    }));
}

function summarise(world) {
  const rows = lessonRows(world.lessons);
  const by = (kind, verdict) => rows.filter((r) => r.kind === kind && (verdict === undefined || r.verdict === verdict));
  return {
    rows,
    graduatedRight: by("right", "graduated"),
    graduatedHarmful: by("harmful", "graduated"),
    retiredHarmful: by("harmful", "retired"),
    retiredRight: by("right", "retired"),
    openHarmful: rows.filter((r) => r.kind === "harmful" && r.verdict !== "retired"),
    extractions: world.jobs.length,
  };
}

async function main() {
  const m = machine();
  const load0 = os.loadavg();
  const llmPort = await freePort(FIRST_LLM_PORT);
  const fake = await startFakeLlm(llmPort);
  server.onCleanup(() => fake.close());
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
    },
  });
  const tenant = await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-live-loop-${new Date().toISOString()}` }, [201]);
  const ctx = { base, adminToken: tenant.body.apiKey };
  const t0 = Date.now();
  const worlds = [];
  for (const seed of SEEDS) {
    SEED = seed;
    worlds.push(await runWorld(ctx, { aa: false }));
  }
  const worldS = (Date.now() - t0) / 1000 / SEEDS.length;
  const aa = [];
  if (flag("--aa"))
    for (const seed of SEEDS) {
      SEED = seed;
      aa.push(await runWorld(ctx, { aa: true }));
    }
  const { reloads, errors } = devLogFindings(logFile);
  const stages = fake.calls.reduce((acc, c) => ((acc[c.stage] = (acc[c.stage] ?? 0) + 1), acc), {});
  await server.cleanup();

  const last = PASSES - 1;
  const met = (w) => ({
    firstTry: w.perPass[last] >= 0.7,
    holdout: w.holdoutPerPass[last] >= 0.7,
    noHarm: w.harmfulInHoldoutPrompts === 0,
  });
  const yes = (b) => (b ? "met" : "**NOT met**");
  const passCols = Array.from({ length: PASSES }, (_, i) => `pass ${i + 1}`);
  const table = [
    `| seed | ${passCols.map((c) => `first-try ${c}`).join(" | ")} | held-out after pass ${PASSES} (read key) | harmful lessons in held-out prompts | held-out, write key outside an episode (harmful in prompts) | targets (first-try ≥ 0.7, held-out ≥ 0.7, no harmful) |`,
    `|---:|${passCols.map(() => "---:|").join("")}---:|---:|---:|---|`,
    ...worlds.map((w) => {
      const t = met(w);
      return `| ${w.seed} | ${w.perPass.map(f2).join(" | ")} | ${f2(w.holdoutPerPass[last])} | ${w.harmfulInHoldoutPrompts} | ${f2(w.writeHoldout.success)} (${w.writeHoldout.harmful}) | ${yes(t.firstTry)}, ${yes(t.holdout)}, ${yes(t.noHarm)} |`;
    }),
    `| mean | ${passCols.map((_, i) => `**${f2(mean(worlds.map((w) => w.perPass[i])))}**`).join(" | ")} | **${f2(mean(worlds.map((w) => w.holdoutPerPass[last])))}** | ${mean(worlds.map((w) => w.harmfulInHoldoutPrompts)).toFixed(1)} | ${f2(mean(worlds.map((w) => w.writeHoldout.success)))} (${mean(worlds.map((w) => w.writeHoldout.harmful)).toFixed(1)}) | |`,
  ].join("\n");
  const sums = worlds.map(summarise);
  const all = (k) => sums.flatMap((s) => s[k]);
  const ex = worlds.reduce(
    (a, w) => ({
      prompts: a.prompts + w.exploration.prompts,
      explored: a.explored + w.exploration.explored,
      tokens: a.tokens + w.exploration.tokens,
      promptTokens: a.promptTokens + w.exploration.promptTokens,
    }),
    { prompts: 0, explored: 0, tokens: 0, promptTokens: 0 },
  );
  const rows = all("rows");
  const lessonTable = [
    "| seed | rule | lesson | verdict | status | shown: prompts (= exposures) / first-try successes | not shown: prompts / successes |",
    "|---:|---|---|---|---|---:|---:|",
    ...worlds.flatMap((w, n) =>
      sums[n].rows
        .sort((a, b) => a.rule.localeCompare(b.rule) || a.kind.localeCompare(b.kind))
        .map(
          (r) =>
            `| ${w.seed} | ${r.rule} | ${r.kind} | ${r.verdict} | ${r.status} | ${r.exposures} / ${r.shown.successes} | ${r.notShown.prompts} / ${r.notShown.successes} |`,
        ),
    ),
  ].join("\n");
  const aaLine = aa.length
    ? (() => {
        const aaRows = aa.flatMap((w) => lessonRows(w.lessons));
        const decided = (v) => aaRows.filter((r) => r.verdict === v).length;
        return `- A/A worlds (\`--aa\`, seeds ${SEEDS.join(", ")}: the agent succeeds at the first try at the base rate whatever its prompt holds, so no lesson changes anything): ${aaRows.length} live lessons learned; **${decided("graduated")} graduated and ${decided("retired")} retired** (each a false decision), ${decided("inconclusive")} inconclusive, ${decided("exploring")} still exploring.`;
      })()
    : "- A/A worlds: not run (`--aa`); the rule's own A/A and power series are in test/core/probation.test.ts and the README.";
  const md = `Latest run of \`npm run bench:live-loop\` (\`node bench/live-loop.mjs${argv.length ? ` ${argv.join(" ")}` : ""}\`), ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}, on ${m.cpu}, ${m.cores} cores; load ${load0.map((x) => x.toFixed(2)).join(" / ")} at start; ${worldS.toFixed(0)} s per world.

A simulated agent that only reads \`/prompt\` follows the README's loop through the local Worker (wrangler dev, the
praxis-jobs queue and its consumer, live extraction against a local fake LLM): per task, \`POST …/episodes\`,
\`GET …/prompt?query=<task>&episodeId=…\` with a write-scoped key, a first try that uses the lessons the block
shows and cites their \`[G#]\` labels, \`POST …/attempts\` (a failed first try is followed by one that works, as
when a checker's feedback shows the way), \`POST …/end\` with outcome \`success\` and the answer; extraction runs on
every episode whose first try failed. World: 6 rules (${RULE_NAMES.join(", ")}), ${TRAIN_PER_RULE} training and ${HOLDOUT_PER_RULE} held-out tasks each, ${PASSES} passes
over the 30 training tasks in a shuffled order, no lesson to start with. First-try success is ${BASE} without the rule's
lesson, ${WITH_LESSON} with it, 0 with a harmful lesson for the rule in the prompt (it wins over a right one beside it). The fake
learner writes the task's rule, or with probability ${NOISE} (learner noise) a plausible harmful lesson for it; the fake
decide step answers ADD (the agent's object then drops a near-duplicate of a stored lesson, unless that lesson was on
probation and shown to the episode that failed: then the candidate joins as its rival). Held-out tasks are answered
after each pass from a prompt read with a read-scoped key outside any episode (shown trusted lessons only), and after the
last pass also with the agent's write key outside an episode (such a prompt explores lessons on probation). Episode ids
are random (they seed the exploration) and extraction lands when the queue delivers it, so two runs of one seed differ.

${table}

- Mean first-try success in pass ${PASSES}: **${f2(mean(worlds.map((w) => w.perPass[last])))}** (target ≥ 0.7); before issue 40 the same loop measured 0.10, 0.10, 0.13, 0.17, 0.20. Mean held-out success: **${f2(mean(worlds.map((w) => w.holdoutPerPass[last])))}** (target ≥ 0.7; before: 0.22).
- Live lessons learned: ${rows.length} (${rows.filter((r) => r.kind === "right").length} right, ${rows.filter((r) => r.kind === "harmful").length} harmful) from ${sums.reduce((n, s) => n + s.extractions, 0)} extraction jobs over ${SEEDS.length} worlds.
- Exposures per graduated lesson (rewarded prompts that showed it, up to its graduation): ${list(all("graduatedRight").map((r) => r.exposures))} (mean ${f2(mean(all("graduatedRight").map((r) => r.exposures)))}). Harmful lessons graduated: **${all("graduatedHarmful").length}**; right lessons retired: **${all("retiredRight").length}**.
- Exposures of harmful lessons before retirement: ${list(all("retiredHarmful").map((r) => r.exposures))} (mean ${f2(mean(all("retiredHarmful").map((r) => r.exposures)))}; the rule's bound is ${PROBATION_MAX}); harmful lessons not retired at the end: ${
    all("openHarmful").length
      ? all("openHarmful")
          .map((r) => `${r.rule} (${r.verdict}, ${r.exposures} exposures)`)
          .join(", ")
      : "none"
  }.
- Extra prompt tokens for exploration: ${f2(ex.tokens / ex.prompts)} per training prompt on average (${ex.explored} lesson lines explored in ${ex.prompts} prompts; ${f2((100 * ex.tokens) / ex.promptTokens)}% of their ${ex.promptTokens.toLocaleString("en-US")} estimated tokens).
${aaLine}
- Fake LLM calls: ${Object.entries(stages)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}; wrangler dev reloads ${reloads}, error lines ${errors.length}${errors.length ? ` (first: \`${errors[0]}\`)` : ""}.

${lessonTable}`;
  console.log(`\n${md}`);
  if (WRITE) {
    replaceResultsSection(HEADING, md);
    log("wrote the live-loop section of bench/RESULTS.md");
  }
  if (worlds.some((w) => Object.values(met(w)).includes(false))) process.exitCode = 1;
}

/** The most exposures a lesson on probation gets (src/core/probation.ts PROBATION_RULE.maxExposures). */
const PROBATION_MAX = 30;

main().catch(async (err) => {
  if (!server.stopping) console.error(`bench failed: ${err?.stack ?? err}`);
  await server.cleanup();
  process.exit(server.stopping ? 130 : 1);
});
