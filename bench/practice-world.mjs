// The learning world of `npm run bench:practice` (issue 23): task families the simulated agent
// sometimes solves, and families it never solves without the right lesson. The simulated models
// behave like real ones: the policy follows the lessons its prompt holds (and names the ones it
// used), the learners see only what their prompts show (a contrast learner the better attempts'
// method, the hindsight learner the failed answers beside the reference), and nobody sees an
// answer they were not given.

/** FNV-1a: a stable hash that turns prompt text and seeds into reproducible "sampling". */
export function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
const chance = (key, p) => hash(key) / 2 ** 32 < p;

const WORDS = [
  "planet",
  "garden",
  "silver",
  "window",
  "rocket",
  "market",
  "bridge",
  "candle",
  "forest",
  "pencil",
  "shadow",
  "mirror",
  "harbor",
  "lantern",
  "meadow",
  "thunder",
];

/**
 * Each family: how its tasks read and are answered, the policy's base success, the mistake it
 * makes without help, the lesson that fixes it (what a learner would write from the evidence), and
 * for two families a plausible-sounding harmful lesson a learner proposes now and then.
 */
export const FAMILIES = {
  add: {
    base: 0.5,
    make: (i) => {
      const a = 137 + ((71 * i) % 700);
      const b = 248 + ((53 * i) % 600);
      return { task: `Add ${a} and ${b}. Give the sum.`, answer: String(a + b), args: [a, b] };
    },
    parse: (t) => (/Add (\d+) and (\d+)\. Give the sum\./.exec(t) ?? []).slice(1).map(Number),
    solve: ([a, b]) => String(a + b),
    wrong: ([a, b]) => String(a + b - 10),
    skill: /carry/i,
    lesson: "When adding multi-digit numbers, write down each carry before adding the next column.",
    right: "I write down each carry before adding the next column.",
    slip: "I add the columns without writing down the carries.",
    harmful: "Round each number to the nearest ten before adding so the sum stays simple.",
    harm: /round each number/i,
    harmed: ([a, b]) => String(Math.round(a / 10) * 10 + Math.round(b / 10) * 10),
    diagnose: (ref, ans) => Number(ref) - Number(ans) === 10,
  },
  sub: {
    base: 0.4,
    make: (i) => {
      const a = 612 + ((83 * i) % 300);
      const b = 158 + ((47 * i) % 400);
      return { task: `Subtract ${b} from ${a}. Give the difference.`, answer: String(a - b), args: [a, b] };
    },
    parse: (t) => (/Subtract (\d+) from (\d+)\. Give the difference\./.exec(t) ?? []).slice(1).map(Number).reverse(),
    solve: ([a, b]) => String(a - b),
    wrong: ([a, b]) => String(a - b + 10),
    skill: /borrow from/i,
    lesson: "When subtracting, borrow from the next column whenever the top digit is smaller than the bottom one.",
    right: "I borrow from the next column when the top digit is smaller.",
    slip: "I take the smaller digit from the larger one in each column.",
    harmful: "In each column, subtract the smaller digit from the larger one to avoid borrowing.",
    harm: /smaller digit from the larger/i,
    harmed: ([a, b]) => String(a - b + 10),
    diagnose: (ref, ans) => Number(ans) - Number(ref) === 10,
  },
  km: {
    base: 0,
    make: (i) => {
      const x = 2 + ((7 * i) % 23);
      return { task: `Convert ${x} km to metres. Give the number of metres.`, answer: String(x * 1000), args: [x] };
    },
    parse: (t) => (/Convert (\d+) km to metres\./.exec(t) ?? []).slice(1).map(Number),
    solve: ([x]) => String(x * 1000),
    wrong: ([x]) => String(x),
    skill: /kilomet[^.]*(1000|thousand)|(1000|thousand)[^.]*kilomet/i,
    lesson: "When converting kilometres to metres, multiply by 1000; never copy the kilometre figure.",
    right: "I multiply the kilometres by 1000.",
    slip: "I copy the number of kilometres.",
    diagnose: (ref, ans) => Number(ref) === Number(ans) * 1000,
  },
  pct: {
    base: 0,
    make: (i) => {
      const p = [10, 20, 25, 50, 75][i % 5];
      const n = 40 * (1 + ((3 * i) % 11));
      return { task: `What is ${p}% of ${n}? Give the number.`, answer: String((p * n) / 100), args: [p, n] };
    },
    parse: (t) => (/What is (\d+)% of (\d+)\?/.exec(t) ?? []).slice(1).map(Number),
    solve: ([p, n]) => String((p * n) / 100),
    wrong: ([p, n]) => String(p * n),
    skill: /divide[^.]*(by 100|by one hundred)/i,
    lesson: "For a percentage of a number, multiply the two and then divide by 100.",
    right: "I multiply and then divide by 100.",
    slip: "I multiply the percentage by the number.",
    diagnose: (ref, ans) => Number(ans) === Number(ref) * 100,
  },
  rev: {
    base: 0,
    make: (i) => {
      const w = WORDS[i % WORDS.length];
      return { task: `Reverse the letters of the word "${w}". Give the reversed word.`, answer: [...w].reverse().join(""), args: [w] };
    },
    parse: (t) => (/Reverse the letters of the word "([a-z]+)"/.exec(t) ?? []).slice(1),
    solve: ([w]) => [...w].reverse().join(""),
    wrong: ([w]) => w,
    skill: /last (letter|character) first|from last to first/i,
    lesson: "To reverse a word, write its letters from last to first and check the first letter of the result.",
    right: "I write the letters from last to first.",
    slip: "I read the word as it stands.",
    diagnose: (ref, ans) => ref === [...ans].reverse().join("") && ref !== ans,
  },
};

/** Which family a text's task belongs to, with its parsed arguments. */
function familyOf(text) {
  for (const [name, f] of Object.entries(FAMILIES)) {
    const args = f.parse(text);
    if (args.length) return { name, f, args };
  }
  return null;
}

/**
 * The world's dataset: `perFamily` train, `validation` validation and `holdout` held-out tasks per
 * family (validation and held-out tasks are never trained on).
 */
export function worldTasks(perFamily, holdout, validation = 0) {
  const tasks = [];
  for (const [name, f] of Object.entries(FAMILIES)) {
    for (let i = 0; i < perFamily + validation + holdout; i++) {
      const t = f.make(i);
      const split = i < perFamily ? "train" : i < perFamily + validation ? "validation" : "holdout";
      tasks.push({ id: `${name}-${i}`, task: t.task, groundTruth: t.answer, split });
    }
  }
  return tasks;
}

/** Right with the family's lesson (and no harmful one for it). */
const HELPED = 0.9;

/**
 * A library's true accuracy on the world's tasks, equal numbers per family: what a fresh
 * evaluation with unlimited samples would measure. A harmful lesson for a family makes its tasks
 * wrong, its lesson makes them right 90% of the time, else the policy's own base rate.
 */
export function trueAccuracy(texts) {
  const per = Object.values(FAMILIES).map((f) =>
    f.harm && texts.some((t) => f.harm.test(t)) ? 0 : texts.some((t) => f.skill.test(t)) ? HELPED : f.base,
  );
  return per.reduce((a, b) => a + b, 0) / per.length;
}

/** Plausible lessons that change no answer: none names a family's method or mistake. */
const INERT = [
  "Read the whole task once before starting to answer it.",
  "State the final answer on its own line at the end.",
  "Keep the working short and write each step on its own line.",
  "Restate what the task asks for in a few words first.",
  "Answer in the form the task asks for, nothing more.",
  "Take a moment to plan the steps before writing them down.",
];
const inertLesson = (prompt) => INERT[hash(prompt) % INERT.length];

// `[G#]` lines are the agent's own lessons, `[S#]` lines a subscribed shared library's (GET …/prompt).
const libraryLines = (text) => [...text.matchAll(/^\[([GS]\d+)\]\. (.*)$/gm)].map((m) => ({ label: m[1], text: m[2] }));
const dataBlocks = (prompt, label) =>
  [...prompt.matchAll(new RegExp(`DATA \\(${label}\\)[^\\n]*\\n(\`{3,})text\\n([\\s\\S]*?)\\n\\1`, "g"))].map((m) => m[2]);

/**
 * The policy: follows a harmful lesson if its prompt holds one, else a helpful one, else its own
 * habits. Its draw is the sampling seed's; with `promptDraws` the whole prompt also moves it, as
 * a real model's sampling does, so that even a lesson that changes nothing changes which answers
 * come out right (the hardest case for telling two libraries apart).
 */
function rollout(body, { promptDraws }) {
  const system = String(body.messages?.[0]?.content ?? "");
  const task = String(body.messages?.at(-1)?.content ?? "");
  const fam = familyOf(task);
  if (!fam) return "I cannot read this task.\nFinal answer: unknown";
  const { f, args } = fam;
  const lib = libraryLines(system);
  const harm = f.harm ? lib.find((l) => f.harm.test(l.text)) : undefined;
  const help = lib.find((l) => f.skill.test(l.text));
  const draw = `${body.seed ?? hash(task)}:${task}${promptDraws ? `:${hash(system)}` : ""}`;
  if (harm) return `Following [${harm.label}], as that lesson says.\nFinal answer: ${f.harmed(args)}`;
  const ok = chance(draw, help ? HELPED : f.base);
  const cite = help ? `Following [${help.label}]: ` : "";
  return `${cite}${ok ? f.right : f.slip}\nFinal answer: ${ok ? f.solve(args) : f.wrong(args)}`;
}

/** Summaries restate each attempt's method, which its trajectory states. */
function summary(prompt) {
  const trajectories = dataBlocks(prompt, "attempt \\d+ trajectory");
  return { summaries: trajectories.map((t, i) => `Attempt ${i}: ${t.split("\n")[0].slice(0, 200)}`) };
}

/**
 * The contrast learner: turns what the better attempts did into the family's lesson; `harmfulRate`
 * of the time a harmful one. An inert learner writes a plausible lesson that changes nothing.
 */
function advantage(prompt, { harmfulRate, inert }) {
  const fam = familyOf(dataBlocks(prompt, "task")[0] ?? "");
  const better = dataBlocks(prompt, "attempt \\d+ summary").filter((_, i) => new RegExp(`### Attempt ${i} — reward 1`).test(prompt));
  if (!fam || !better.some((s) => s.includes(fam.f.right)))
    return { analysis: "No clear difference.", operations: [{ op: "none", target: "", text: "", reason: "" }] };
  const harmful = fam.f.harmful && chance(`harm:${prompt}`, harmfulRate);
  const text = inert ? inertLesson(prompt) : harmful ? fam.f.harmful : fam.f.lesson;
  return {
    analysis: `The better attempts: ${fam.f.right}`,
    operations: [{ op: "add", target: "", text, reason: "what the better attempts did" }],
  };
}

/**
 * The hindsight learner: compares the failed answers with the reference. A lesson the attempts
 * cited that the evidence contradicts is rewritten; otherwise the relation between the failed
 * answers and the reference names the mistake. Now and then it writes the example it saw into the
 * lesson (the leak the check refuses) or finds nothing to say.
 */
function hindsight(prompt, { inert }) {
  const none = (diagnosis) => ({ diagnosis, operation: { op: "none", target: "", text: "", reason: "" } });
  const reference = dataBlocks(prompt, "reference answer")[0];
  const fam = familyOf(dataBlocks(prompt, "task")[0] ?? "");
  if (reference === undefined || !fam) return none("Without a reference there is nothing to compare the attempts with.");
  if (chance(`quiet:${prompt}`, 0.1)) return none("The failures do not show one clear mistake.");
  if (inert)
    return {
      diagnosis: "The attempts may have rushed.",
      operation: { op: "add", target: "", text: inertLesson(prompt), reason: "a habit that might help" },
    };
  const answers = dataBlocks(prompt, "attempt \\d+ final answer");
  const cited = new Set(dataBlocks(prompt, "attempt \\d+ trajectory").flatMap((t) => [...t.matchAll(/\[(G\d+)\]/g)].map((m) => m[1])));
  const lib = libraryLines(prompt);
  const suspect = lib.find((l) => cited.has(l.label) && !fam.f.skill.test(l.text));
  if (suspect) {
    // The library may already hold the right lesson, which the misleading one overrides: then delete it.
    const held = lib.some((l) => fam.f.skill.test(l.text));
    return {
      diagnosis: `Every attempt followed ${suspect.label} and missed the reference; the exact method gives it.`,
      operation: held
        ? { op: "delete", target: suspect.label, text: "", reason: `${suspect.label} misled every attempt` }
        : { op: "modify", target: suspect.label, text: fam.f.lesson, reason: `${suspect.label} misled every attempt` },
    };
  }
  if (!answers.some((a) => fam.f.diagnose(reference.trim(), a.trim())))
    return none("The failed answers bear no clear relation to the reference.");
  const leak = chance(`leak:${prompt}`, 0.15);
  const text = leak ? `${fam.f.lesson.replace(/\.$/, "")}, as in ${reference.trim()}.` : fam.f.lesson;
  return {
    diagnosis: `The attempts: ${fam.f.slip} The reference shows: ${fam.f.right}`,
    operation: { op: "add", target: "", text, reason: "every attempt made the same mistake" },
  };
}

/** The batch update: deletes and rewrites as proposed, one new lesson per skill the library lacks. */
function batch(prompt) {
  const proposals = [...prompt.matchAll(/DATA \(proposals for task [^)]*\)[^\n]*\n(`{3,})text\n([\s\S]*?)\n\1/g)].flatMap((m) =>
    JSON.parse(m[2]),
  );
  const libText = prompt.split("## Current library")[1]?.split("## What to produce")[0] ?? "";
  const lib = libraryLines(libText);
  const touched = new Set();
  const ops = [];
  const covered = (text) =>
    Object.values(FAMILIES).some(
      (f) =>
        (f.skill.test(text) && lib.some((l) => f.skill.test(l.text) && !touched.has(l.label))) ||
        (f.harm?.test(text) && lib.some((l) => f.harm.test(l.text))),
    );
  for (const p of proposals.filter((x) => x.op === "modify" || x.op === "delete")) {
    if (touched.has(p.target)) continue;
    touched.add(p.target);
    ops.push({ op: p.op, targets: [p.target], text: p.op === "delete" ? "" : p.text, reason: p.reason || "proposed" });
  }
  const added = [];
  for (const p of proposals.filter((x) => x.op === "add")) {
    if (
      covered(p.text) ||
      added.some((t) =>
        Object.values(FAMILIES).some((f) => (f.skill.test(t) && f.skill.test(p.text)) || (f.harm?.test(t) && f.harm.test(p.text))),
      )
    )
      continue;
    if (ops.some((o) => o.op === "modify" && o.text === p.text)) continue;
    added.push(p.text);
    ops.push({ op: "add", targets: [], text: p.text, reason: "new" });
  }
  return { reasoning: `Reconciled ${proposals.length} proposals into ${ops.length} operations.`, operations: ops };
}

function review(prompt) {
  const n = (prompt.match(/^\d+\.$/gm) ?? []).length;
  return { verdicts: Array.from({ length: n }, (_, index) => ({ index, safe: true, category: "safe", reason: "ordinary advice" })) };
}

/**
 * The simulated LLM of a world: `harmfulRate` of contrast lessons harmful (0.3 by default), an
 * `inert` learner whose every lesson changes nothing, `promptDraws` (see rollout). Returns its
 * answer to one chat completion, as text.
 */
export function worldModel({ harmfulRate = 0.3, inert = false, promptDraws = false } = {}) {
  const opts = { harmfulRate, inert, promptDraws };
  return (stage, body) => {
    const prompt = (body.messages ?? []).map((m) => String(m.content ?? "")).join("\n");
    if (stage === "rollout") return rollout(body, opts);
    const data = { summary, advantage, hindsight, batch, review }[stage]?.(prompt, opts) ?? {};
    return JSON.stringify(data);
  };
}

/** The world of `npm run bench:practice`. */
export const worldReply = worldModel();

// ---------------------------------------------------------------- the learning runs

export const WORLD_HEADING = "## Practice on unsolvable task families: hindsight (`npm run bench:practice`)";

const TERMINAL = new Set(["completed", "failed", "cancelled", "budget-exhausted"]);

/** Polls a practice run each second until it ends; its view, or an error when it did not complete. */
export async function finishedRun({ must, sleep }, A, token, runId, timeoutMs) {
  const t0 = Date.now();
  for (;;) {
    const view = (await must("GET", `${A}/practice-runs/${runId}`, token)).body;
    if (TERMINAL.has(view.status)) {
      if (view.status !== "completed") throw new Error(`run ${runId} ended ${view.status}: ${view.error}`);
      return view;
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`run ${runId} did not finish in ${timeoutMs / 1000} s`);
    await sleep(1000);
  }
}

/**
 * One practice run on a fresh agent (or `opts.agentId`; with `opts.libraryId`, on that shared
 * library), with or without hindsight, polled until it ends: its holdout
 * curve, ledger and hindsight totals, and the simulated LLM's calls during it by stage.
 */
export async function worldRun({ base, token, fake, must, sleep, log }, tasks, opts) {
  const agentId = opts.agentId ?? `bench-world-${opts.hindsight ? "hs" : "ref"}-${opts.seed}-${hash(String(Date.now())).toString(36)}`;
  const A = `${base}/v1/agents/${agentId}`;
  await must("PUT", A, token, { displayName: "practice world" });
  const ds = await must("POST", `${base}/v1/datasets`, token, { name: `world ${agentId}`, tasks }, [201]);
  fake.calls.splice(0);
  const body = {
    datasetId: ds.body.datasetId,
    epochs: opts.epochs,
    batchSize: opts.batchSize,
    groupSize: opts.groupSize,
    concurrency: opts.concurrency,
    seed: opts.seed,
    policy: { kind: "llm" },
    hindsight: opts.hindsight,
    ...(opts.libraryId ? { libraryId: opts.libraryId } : {}),
  };
  const runId = (await must("POST", `${A}/practice-runs`, token, body, [202])).body.runId;
  const view = await finishedRun({ must, sleep }, A, token, runId, opts.timeoutMs);
  const curve = (await must("GET", `${A}/practice-runs/${runId}/curve`, token)).body;
  const library = (await must("GET", `${A}/practice-runs/${runId}/library`, token)).body.items;
  if (opts.trace) {
    for (const e of library)
      log(
        `  ${e.label} [${e.lineage.map((l) => `${l.op}${l.epoch === undefined ? "" : `@${l.epoch}.${l.step}`}${l.provenance ? `/${l.provenance}` : ""}`).join(" ")}] ${e.text}`,
      );
    const steps = (await must("GET", `${A}/practice-runs/${runId}/steps`, token)).body.items;
    for (const s of steps) {
      const d = (await must("GET", `${A}/practice-runs/${runId}/steps/${s.n}`, token)).body;
      log(
        `  step ${s.n}: hindsight ${JSON.stringify(d.hindsight)}; plan ${d.plan.operations.map((o) => `${o.op}:${o.provenance}:${(o.text ?? "").slice(0, 40)}`).join(" | ")}; dropped ${d.dropped.map((x) => x.reason).join(" | ")}`,
      );
    }
  }
  const calls = fake.calls.splice(0);
  const stage = (s) => calls.filter((c) => c.stage === s);
  const sum = (cs) => cs.reduce((n, c) => n + c.prompt_tokens + c.completion_tokens, 0);
  log(
    `world ${opts.hindsight ? "with" : "without"} hindsight, seed ${opts.seed}: holdout ${curve.epochs.map((e) => e.holdoutAccuracy?.toFixed(2)).join(" → ")}, ${view.promotion?.promoted ? "promoted" : "not promoted"}`,
  );
  return {
    view,
    accuracy: curve.epochs.map((e) => e.holdoutAccuracy),
    evalTokens: curve.epochs.reduce((n, e) => n + e.tokens, 0),
    hindsightCalls: stage("hindsight").length,
    hindsightTokens: sum(stage("hindsight")),
    harmfulInLibrary: library.filter((e) => Object.values(FAMILIES).some((f) => f.harm?.test(e.text))).length,
    families: Object.entries(FAMILIES)
      .filter(([, f]) => library.some((e) => f.skill.test(e.text)))
      .map(([n]) => n),
  };
}

const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "—");
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : "—");
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs the world with and without hindsight on each seed; returns the markdown section and a console summary. */
export async function worldSection(ctx, opts) {
  const tasks = worldTasks(opts.perFamily, opts.holdout);
  const train = tasks.filter((t) => t.split === "train").length;
  const rows = [];
  for (const seed of opts.seeds) {
    for (const hindsight of [false, true]) rows.push({ seed, hindsight, ...(await worldRun(ctx, tasks, { ...opts, seed, hindsight })) });
  }
  const visits = train * opts.epochs;
  const per = (r) => ({
    calls: r.view.usage.calls / visits,
    tokens: (r.view.usage.tokensIn + r.view.usage.tokensOut) / visits,
    hsCalls: r.hindsightCalls / visits,
    hsTokens: r.hindsightTokens / visits,
  });
  const epochs = Array.from({ length: opts.epochs + 1 }, (_, e) => e);
  const line = (r) => {
    const p = per(r);
    const h = r.view.hindsight;
    return `| ${r.seed} | ${r.hindsight ? "on" : "off (reference)"} | ${epochs.map((e) => f3(r.accuracy[e])).join(" | ")} | ${r.view.promotion?.promoted ? "yes" : "no"} | ${f2(p.calls)} | ${Math.round(p.tokens).toLocaleString("en-US")} | ${f2(p.hsCalls)} | ${Math.round(p.hsTokens).toLocaleString("en-US")} | ${h.calls} / ${h.proposals} / ${h.refusedLeaks} / ${h.applied} / ${h.inLibrary} | ${r.view.promotion?.promoted ? h.inLibrary : 0} | ${r.families.join(", ") || "—"} | ${r.harmfulInLibrary} |`;
  };
  const avg = (hs) => {
    const rs = rows.filter((r) => r.hindsight === hs);
    return `| mean | ${hs ? "on" : "off (reference)"} | ${epochs.map((e) => `**${f3(mean(rs.map((r) => r.accuracy[e])))}**`).join(" | ")} | ${rs.filter((r) => r.view.promotion?.promoted).length} of ${rs.length} | ${f2(mean(rs.map((r) => per(r).calls)))} | ${Math.round(mean(rs.map((r) => per(r).tokens))).toLocaleString("en-US")} | **${f2(mean(rs.map((r) => per(r).hsCalls)))}** | ${Math.round(mean(rs.map((r) => per(r).hsTokens))).toLocaleString("en-US")} | | | | |`;
  };
  const head = `| seed | hindsight | ${epochs.map((e) => `holdout acc. epoch ${e}`).join(" | ")} | promoted (gate) | LLM calls / task | tokens / task | hindsight calls / task | hindsight tokens / task | hindsight calls / proposals / refused leaks / applied / in final library | hindsight lessons promoted | families with their lesson | harmful lessons left |`;
  const table = [
    head,
    `|${head
      .split("|")
      .slice(1, -1)
      .map((_, i) => (i < 2 ? "---" : "---:"))
      .join("|")}|`,
    ...rows.map(line),
    avg(false),
    avg(true),
  ].join("\n");
  const on = rows.filter((r) => r.hindsight);
  const off = rows.filter((r) => !r.hindsight);
  const last = opts.epochs;
  const summary = `Held-out accuracy after ${opts.epochs} epochs, mean over seeds ${opts.seeds.join(", ")}: ${f3(mean(off.map((r) => r.accuracy[last])))} without hindsight, ${f3(mean(on.map((r) => r.accuracy[last])))} with it (start ${f3(mean(on.map((r) => r.accuracy[0])))}); hindsight adds ${f2(mean(on.map((r) => per(r).hsCalls)))} LLM calls and ${Math.round(mean(on.map((r) => per(r).hsTokens)))} tokens per task per epoch.`;
  const md = `World: ${Object.keys(FAMILIES).length} task families (${Object.keys(FAMILIES).join(", ")}), ${opts.perFamily} train and ${opts.holdout} held-out tasks each
(${train} train, ${tasks.length - train} held-out). The simulated policy solves \`add\` about ${FAMILIES.add.base * 100}% and \`sub\` about ${FAMILIES.sub.base * 100}% of the time on its own and
\`km\`, \`pct\` and \`rev\` never (base success 0: it makes the same mistake every time); with the family's lesson in its
prompt it is right 90% of the time, and with a harmful lesson for the family never. It names the lessons it follows.
The contrast learner turns what the better attempts of a group did into a lesson, but 30% of the time proposes a
plausible harmful one (rounding before adding, subtracting the smaller digit); the hindsight learner sees the failed
answers beside the reference and names the mistake from their relation (×1000, ×100, reversed, off by a carry), or
rewrites a lesson the attempts cited (deletes it when the library already holds the right one); 15% of the time it writes the example's answer into the lesson (refused by the
leak check) and 10% of the time it finds nothing. Nobody sees an answer that is not in its prompt; held-out tasks are
never trained on. Each run: \`epochs ${opts.epochs}, batchSize ${opts.batchSize}, groupSize ${opts.groupSize}\`, exact verifier, the default
gate on the holdout split (evaluated every epoch, 1 sample), default hindsight cap (one call per four tasks of a step,
so ${Math.ceil(opts.batchSize / 4)} per step); the reference rows set \`hindsight: false\`. Calls and tokens per task are the run's own ledger (without
the held-out evaluations) divided by train tasks × epochs; hindsight calls and tokens come from the fake's log.
Fake LLM latency ${opts.latency} ms, through the same local Worker as above.

${table}

- ${summary}
- Hindsight columns: calls made / proposals that reached the batch update / lessons refused for stating their task's
  reference answer / batch-plan operations traced to hindsight / lessons of the final run library last written by
  hindsight; "hindsight lessons promoted" counts those that passed the gate into the agent's library.
- Tokens per task are higher with hindsight mostly for what it unlocks, not for its own calls (the hindsight
  columns): families that become solvable then give groups whose rewards differ, which get summary and advantage
  calls, and every prompt carries a longer library.`;
  return { md, summary };
}
