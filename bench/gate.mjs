// `npm run bench:gate`: the promotion gate as a statistical test (issue 41), measured through the
// local Worker (wrangler dev: routes, the PracticeRun and Evaluation Durable Objects, the practice
// queue and its consumer) on the practice world of bench/practice-world.mjs, answered by a local
// fake LLM (bench/lib/practice-llm.mjs). Three series of gated runs, each on a fresh agent:
//
//   aa     a learner whose lessons change nothing (plausible habits that name no family's method):
//          every promotion is a false one. The policy's draws follow its whole prompt, so an inert
//          lesson still changes which answers come out right: identical libraries score apart.
//   power  an honest learner (the world's learners without harmful proposals) that lifts true
//          held-out accuracy from 0.18 to about 0.9: how often it is promoted, and the held-out
//          gain reported beside the true one (judged on data that chose nothing).
//   noisy  the world's learner as bench:practice has it, 30% of contrast lessons harmful, under
//          `best` (chosen on validation, judged on holdout): how far the library the agent ends
//          with falls below the best library the run produced, by true accuracy.
//
// "True accuracy" is the world's exact expectation for a library (trueAccuracy): what a fresh
// evaluation with unlimited samples measures. Proportions carry Wilson 95% intervals, means a
// percentile bootstrap over runs.
//
//   node bench/gate.mjs [--runs 20] [--series aa,power,noisy] [--seed 100] [--latency 2]
//                       [--port 8830] [--llm-port 8930] [--timeout 900] [--head] [--no-write] [--keep]
import { randomBytes } from "node:crypto";
import { devServer, freePort, log, machine, must, replaceResultsSection, sleep } from "./lib/dev-server.mjs";
import { startPracticeLlm } from "./lib/practice-llm.mjs";
import { argv, flag, num, opt } from "./lib/options.mjs";
import { FAMILIES, finishedRun, hash, trueAccuracy, worldModel, worldTasks } from "./practice-world.mjs";

const RUNS = num("--runs", 20, 1, 200);
const SEED = num("--seed", 100, 0, 2 ** 31 - 1000);
const LATENCY_MS = num("--latency", 2, 0, 10_000);
const TIMEOUT_MS = num("--timeout", 900, 30, 7200) * 1000;
const SERIES = (opt("--series") ?? "aa,power,noisy").split(",");
if (SERIES.some((s) => !["aa", "power", "noisy"].includes(s))) {
  console.error("bench: --series takes aa, power and noisy, comma-separated");
  process.exit(2);
}
const WRITE = !flag("--no-write");
const HEADING = "## Promotion gate as a statistical test (`npm run bench:gate`)";

/** Per family: train, validation (labelled; `best` only) and held-out tasks. */
const SHAPE = { train: 4, validation: 4, holdout: 4 };
const SAMPLES = 4;
const FAMILY_COUNT = Object.keys(FAMILIES).length;

const WORLDS = {
  aa: {
    model: worldModel({ inert: true, promptDraws: true }),
    run: { epochs: 2, batchSize: 10, groupSize: 4, evaluate: { samples: SAMPLES } },
  },
  power: {
    model: worldModel({ harmfulRate: 0, promptDraws: true }),
    run: { epochs: 2, batchSize: 10, groupSize: 4, evaluate: { samples: SAMPLES } },
  },
  noisy: {
    model: worldModel({ harmfulRate: 0.3, promptDraws: true }),
    run: { epochs: 3, batchSize: 10, groupSize: 4, promote: "best", patience: 2, evaluate: { samples: SAMPLES } },
  },
};

// ---------------------------------------------------------------- statistics of the series
const z = 1.959964;
/** Wilson score interval of k successes in n. */
function wilson(k, n) {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
/** Percentile bootstrap interval of the mean over runs (seeded, 2000 resamples). */
function meanInterval(xs) {
  if (xs.length < 2) return [Number.NaN, Number.NaN];
  let s = 12345;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const draws = Array.from({ length: 2000 }, () => mean(xs.map(() => xs[Math.floor(rand() * xs.length)])));
  draws.sort((a, b) => a - b);
  return [draws[49], draws[1950]];
}
const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "—");
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : "—");
const rate = (k, n) => {
  const [lo, hi] = wilson(k, n);
  return `${k} of ${n} (${pct(k / n)}, 95% interval ${pct(lo)}–${pct(hi)})`;
};
const meanWith = (xs) => {
  const [lo, hi] = meanInterval(xs);
  return `${f3(mean(xs))} [${f3(lo)}, ${f3(hi)}]`;
};

// ---------------------------------------------------------------- one run
async function oneRun({ base, token }, datasetId, series, i) {
  const agentId = `bench-gate-${series}-${i}-${randomBytes(3).toString("hex")}`;
  const A = `${base}/v1/agents/${agentId}`;
  await must("PUT", A, token, { displayName: `gate bench ${series}` });
  const body = { datasetId, seed: SEED + i, policy: { kind: "llm" }, concurrency: 16, ...WORLDS[series].run };
  const runId = (await must("POST", `${A}/practice-runs`, token, body, [202])).body.runId;
  const t0 = Date.now();
  const view = await finishedRun({ must, sleep }, A, token, runId, TIMEOUT_MS);
  // Each epoch's library: the snapshot its next epoch started from, and the run's final library.
  const perEpoch = view.progress.stepsPerEpoch;
  const trained = new Set(view.trainReward.map((s) => s.epoch)).size;
  const libraries = [[]];
  for (let e = 1; e < trained; e++)
    libraries.push((await must("GET", `${A}/practice-runs/${runId}/steps/${e * perEpoch}`, token)).body.library.map((l) => l.text));
  libraries.push((await must("GET", `${A}/practice-runs/${runId}/library`, token)).body.items.map((l) => l.text));
  const agentTexts = (await must("GET", `${A}/experiences?limit=100`, token)).body.items
    .filter((e) => e.status === "active")
    .map((e) => e.text);
  const holdout = view.evaluations.filter((e) => e.split === "holdout" && e.round === 0);
  const start = holdout.find((e) => e.epoch === 0);
  const final = holdout.find((e) => e.epoch === Math.max(...holdout.map((x) => x.epoch)));
  const evalRollouts = view.evaluations
    .filter((e) => e.status === "completed")
    .reduce((n, e) => n + SAMPLES * SHAPE[e.split === "validation" ? "validation" : "holdout"] * FAMILY_COUNT, 0);
  const r = {
    series,
    seed: SEED + i,
    promoted: view.promotion?.promoted === true,
    decision: view.promotion?.decision ?? null,
    // The rule before issue 41: final held-out accuracy ≥ the start's, ties promoting.
    oldRule: !!start && !!final && final.epoch > 0 && final.holdoutAccuracy + 1e-9 >= start.holdoutAccuracy,
    trueByEpoch: libraries.map(trueAccuracy),
    trueAgent: trueAccuracy(agentTexts),
    trainRollouts: view.progress.rollouts.done,
    evalRollouts,
    seconds: (Date.now() - t0) / 1000,
  };
  const d = r.decision;
  log(
    `${series} ${i + 1}/${RUNS} (${runId}): ${r.promoted ? "promoted" : "kept"}${d ? `, ${d.difference === null ? "—" : d.difference.toFixed(3)} [${d.interval?.map((x) => x.toFixed(3)).join(", ") ?? "—"}] over ${d.tasks}×${d.samples} in ${d.rounds} round(s)` : ""}; true ${r.trueByEpoch.map(f3).join(" → ")}, agent ${f3(r.trueAgent)}; ${r.seconds.toFixed(0)} s`,
  );
  return r;
}

// ---------------------------------------------------------------- the report
function section(rows, m) {
  const of = (s) => rows.filter((r) => r.series === s);
  const lines = [];
  const aa = of("aa");
  if (aa.length) {
    const false_ = aa.filter((r) => r.promoted).length;
    const old = aa.filter((r) => r.oldRule).length;
    const extra = aa.filter((r) => (r.decision?.rounds ?? 1) > 1).length;
    lines.push(
      "### (a) A/A: a learner whose lessons change nothing",
      "",
      `- False promotions: **${rate(false_, aa.length)}** — aim at most 1 in 20 (≤ 5%): **${false_ <= Math.floor(aa.length / 20) ? "met" : "NOT met"}**.`,
      `- The rule before issue 41 (final held-out accuracy ≥ the start's, ties promoting) on the same runs' first-round evaluations: ${rate(old, aa.length)}. The paired bootstrap alone, before the sign-flip test joined it, promoted 2 of the 20 (the same seeds): their differences were mostly ties with the rest leaning one way.`,
      `- Runs that drew extra paired rounds while undecided: ${extra} of ${aa.length}; paired difference reported: mean ${meanWith(aa.map((r) => r.decision?.difference ?? 0))}.`,
      "",
    );
  }
  const power = of("power");
  if (power.length) {
    const promoted = power.filter((r) => r.promoted);
    const trueGain = promoted.map((r) => r.trueAgent - r.trueByEpoch[0]);
    const reported = promoted.map((r) => r.decision.difference);
    const points = promoted.reduce((n, r) => n + 100 * (r.trueAgent - r.trueByEpoch[0]), 0);
    lines.push(
      "### (b) Power: an honest learner (true held-out accuracy 0.18 → about 0.9)",
      "",
      `- Promoted: **${rate(promoted.length, power.length)}** — aim at least 19 of 20 (≥ 95%): **${promoted.length >= Math.ceil((19 / 20) * power.length) ? "met" : "NOT met"}**.`,
      `- Held-out gain of what was promoted, as the gate reported it (paired difference): ${meanWith(reported)}; true gain of the same libraries: ${meanWith(trueGain)}. The reported gain is judged on held-out tasks that chose nothing, so it is not inflated by selection: mean reported − true ${f3(mean(reported) - mean(trueGain))}.`,
      `- Rollouts per promoted point of true gain: ${f3(promoted.reduce((n, r) => n + r.decision.rollouts, 0) / points)} for the decision itself (its paired held-out rollouts), ${f3(promoted.reduce((n, r) => n + r.evalRollouts, 0) / points)} for all evaluation rollouts, ${f3(promoted.reduce((n, r) => n + r.evalRollouts + r.trainRollouts, 0) / points)} with training; extra paired rounds drawn in ${power.filter((r) => (r.decision?.rounds ?? 1) > 1).length} of ${power.length} runs.`,
      "",
    );
  }
  const noisy = of("noisy");
  if (noisy.length) {
    const gaps = noisy.map((r) => Math.max(...r.trueByEpoch) - r.trueAgent);
    const over = gaps.filter((g) => g > 0.02 + 1e-9).length;
    lines.push(
      "### (c) A 30%-noisy learner under `best` (chosen on validation, judged once on holdout)",
      "",
      `- The agent's library after the run (promoted, or the start kept) below the best library the run produced, by true accuracy: largest gap **${f3(Math.max(...gaps))}**, mean ${meanWith(gaps)}; runs more than 0.02 below: **${over} of ${noisy.length}** — aim none: **${over === 0 ? "met" : "NOT met"}**.`,
      `- Promoted: ${rate(noisy.filter((r) => r.promoted).length, noisy.length)}; true accuracy of the best library produced ${meanWith(noisy.map((r) => Math.max(...r.trueByEpoch)))}, of the agent's library ${meanWith(noisy.map((r) => r.trueAgent))}.`,
      "",
    );
  }
  const table = [
    "| series | seed | promoted | old rule | paired difference [interval] | tasks × samples | rounds | true accuracy by epoch | agent's library (true) |",
    "|---|---:|---|---|---|---|---:|---|---:|",
    ...rows.map((r) => {
      const d = r.decision;
      const diff = d?.difference == null ? "—" : `${f3(d.difference)} [${f3(d.interval[0])}, ${f3(d.interval[1])}]`;
      return `| ${r.series} | ${r.seed} | ${r.promoted ? "yes" : "no"} | ${r.oldRule ? "yes" : "no"} | ${diff} | ${d ? `${d.tasks} × ${d.samples}` : "—"} | ${d?.rounds ?? "—"} | ${r.trueByEpoch.map(f3).join(" → ")} | ${f3(r.trueAgent)} |`;
    }),
  ];
  return [
    `Latest run (\`node bench/gate.mjs${argv.length ? ` ${argv.join(" ")}` : ""}\`), ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}, on ${m.cpu}, ${m.cores} cores.`,
    "",
    `World: bench/practice-world.mjs, ${FAMILY_COUNT} task families, ${SHAPE.train} train, ${SHAPE.validation} validation (used by \`best\` only) and ${SHAPE.holdout} held-out tasks each`,
    `(${SHAPE.holdout * FAMILY_COUNT} held-out tasks); every evaluation scores ${SAMPLES} samples per task, and the gate may draw up to 4 × that per task while`,
    "undecided (`evaluate.maxSamples` default). The policy's sampling follows its seed and its whole prompt. Series (a) and (b): the default",
    "`gate`, 2 epochs; (c): `best`, 3 epochs, patience 2. groupSize 4, batchSize 10, one run per seed on a fresh agent.",
    `Rule: ${rows.find((r) => r.decision)?.decision.rule ?? "—"}.`,
    "",
    ...lines,
    "For scale, the field's figures (as issue 41 cites them): an unpaired test needs about 3,700 binary tasks per arm to",
    "see +3 points at accuracy 0.7; Training-Free GRPO's reported AIME gain (+3 points) is the size of its run-to-run spread;",
    "GEPA reports up to 35× fewer rollouts than GRPO's 24,000.",
    "",
    "<details><summary>Every run</summary>",
    "",
    ...table,
    "",
    "</details>",
  ].join("\n");
}

// ---------------------------------------------------------------- main
async function main() {
  const m = machine();
  let world = WORLDS.aa.model;
  // The practice-llm fake names stages by their response schema; the world by its own names.
  const STAGE = {
    attempt_summaries: "summary",
    group_advantage: "advantage",
    hindsight_lesson: "hindsight",
    batch_plan: "batch",
    safety_review: "review",
  };
  const fake = await startPracticeLlm({
    port: await freePort(num("--llm-port", 8930, 1024, 65_000)),
    latencyMs: LATENCY_MS,
    reply: (stage, body) => world(STAGE[stage] ?? stage, body),
  });
  const server = devServer({ keep: flag("--keep"), tmpPrefix: "praxis-bench-gate-" });
  server.onCleanup(() => fake.close());
  const adminKey = `pxadmin_bench_${randomBytes(18).toString("base64url")}`;
  const { base } = await server.start({
    firstPort: num("--port", 8830, 1024, 65_000),
    fromHead: flag("--head"),
    vars: {
      PRAXIS_ADMIN_KEY: adminKey,
      LOG_LEVEL: "warn",
      LLM_BASE_URL: fake.baseUrl,
      LLM_MODEL: "bench-fake",
      LLM_API_KEY: "not-needed",
      LLM_MAX_CONCURRENCY: "16",
    },
  });
  const token = (await must("POST", `${base}/v1/tenants`, adminKey, { name: `bench-gate-${hash(String(Date.now()))}` }, [201])).body.apiKey;
  const rows = [];
  try {
    for (const series of SERIES) {
      world = WORLDS[series].model;
      const tasks = worldTasks(SHAPE.train, SHAPE.holdout, series === "noisy" ? SHAPE.validation : 0);
      const ds = await must("POST", `${base}/v1/datasets`, token, { name: `gate ${series}`, tasks }, [201]);
      for (let i = 0; i < RUNS; i++) rows.push(await oneRun({ base, token }, ds.body.datasetId, series, i));
    }
  } finally {
    await server.cleanup();
  }
  const md = section(rows, m);
  console.log(`\n${md}`);
  if (WRITE) {
    replaceResultsSection(HEADING, md);
    log("wrote the gate section of bench/RESULTS.md");
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
