import type { Schemas } from "../../../../client/src/index.js";
import { api, call, errorText, praxisClient } from "../api.js";
import { chart, color, COUNT_INCRS, line, type Series } from "../charts.js";
import { agentId, agentPath, body, canWrite, runId } from "../context.js";
import { $, empty, fill, fmtInt, fmtPct, fmtQ, fmtUsd, h, setStatus, stat } from "../dom.js";
import { dataTable } from "../table.js";
import { promotedIds, stepPart } from "../practice-view.js";

const runPath = () => ({ path: { ...agentPath().path, runId } });
const getRun = () => call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: runPath() }));
const getCurve = () => call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/curve", { params: runPath() }));
type RunView = Awaited<ReturnType<typeof getRun>>;
type Curve = Awaited<ReturnType<typeof getCurve>>;

const TERMINAL = new Set<Schemas["PracticeRun"]["status"]>(["completed", "failed", "cancelled", "budget-exhausted"]);

/** The run's dataset by name; its id when this key may not read it. */
let datasetName: string | null = null;

export async function renderRun(): Promise<void> {
  const first = await getRun();
  datasetName = await call(api().GET("/v1/datasets/{datasetId}", { params: { path: { datasetId: first.datasetId } } })).then(
    (d) => d.name,
    () => null,
  );
  await refreshRun();
  // A finished run changes no more: replaying its event stream would only redraw the page under the
  // reader (collapsing an opened step, replacing the chart being hovered).
  if (!TERMINAL.has(first.status)) void followEvents();
}

let refreshing: Promise<void> | null = null;
let again = false;

/** Refreshes the run's view; events arriving meanwhile coalesce into one more refresh. */
function refreshRun(): Promise<void> {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      const view = await getRun();
      // Promotion gives the run's lessons their ids in the agent's library: looked up again after each change.
      promoted = null;
      renderProgress(view);
      await renderCurve(view);
      await renderSteps();
    } while (again);
  })().finally(() => (refreshing = null));
  return refreshing;
}

function renderProgress(v: RunView) {
  const p = v.progress;
  const epochs = v.config.epochs ?? 1;
  const totalSteps = epochs * p.stepsPerEpoch;
  const finished = v.trainReward.filter((t) => t.meanReward !== null).length;
  const running = !TERMINAL.has(v.status);
  const cancel =
    canWrite() &&
    running &&
    h(
      "button",
      {
        type: "button",
        class: "danger",
        "data-write": "",
        onclick: async () => {
          if (!confirm("Cancel this run? Nothing is promoted.")) return;
          await call(api().POST("/v1/agents/{agentId}/practice-runs/{runId}/cancel", { params: runPath() })).catch((err) =>
            setStatus(`Cancel failed: ${errorText(err)}`),
          );
          await refreshRun();
        },
      },
      "Cancel run",
    );
  fill(
    "progress",
    h("p", {}, "Status: ", h("span", { class: `badge ${v.status}`, id: "run-status" }, v.status), v.error ? ` — ${v.error}` : ""),
    h(
      "dl",
      { class: "stats" },
      stat("Dataset", datasetName ?? v.datasetId),
      stat("Steps finished", totalSteps ? `${finished} of ${totalSteps}` : "—"),
      stat("Epochs", fmtInt(epochs)),
      // Epochs and steps numbered from 0, as the API and the CLI number them.
      stat("Now at", running ? `epoch ${p.epoch}, step ${p.step}` : "—"),
      stat("Stage", (running && p.stage) || "—"),
      stat("Rollouts", `${fmtInt(p.rollouts.done)} of ${fmtInt(p.rollouts.total)}`),
      stat("Groups kept / filtered", `${fmtInt(p.groups.kept)} / ${fmtInt(p.groups.filtered)}`),
      stat("Library size", fmtInt(v.librarySize)),
      stat(
        "Hindsight calls / applied / leaks refused",
        `${fmtInt(v.hindsight.calls)} / ${fmtInt(v.hindsight.applied)} / ${fmtInt(v.hindsight.refusedLeaks)}`,
      ),
      stat("Tokens in / out", `${fmtInt(v.usage.tokensIn)} / ${fmtInt(v.usage.tokensOut)}`),
      stat("LLM calls", fmtInt(v.usage.calls)),
      stat("Cost", fmtUsd(v.usage.costUsd)),
    ),
    // The bar follows the step in progress; a finished run has none.
    running && h("label", { for: "rollout-progress" }, "Rollouts of this step"),
    running &&
      h(
        "progress",
        { id: "rollout-progress", max: Math.max(1, p.rollouts.total), value: p.rollouts.done },
        `${p.rollouts.done} of ${p.rollouts.total}`,
      ),
    v.promotion
      ? h(
          "p",
          {},
          `Promotion: ${v.promotion.promoted ? `promoted as library v${v.promotion.version}` : "not promoted"} — ${v.promotion.reason}`,
        )
      : null,
    v.promotion?.decision ? decisionView(v.promotion.decision) : null,
    cancel,
  );
}

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;

/** The gate's paired comparison: the difference with its interval, what it rests on, and the rule it applied. */
function decisionView(d: NonNullable<NonNullable<RunView["promotion"]>["decision"]>) {
  const interval = d.interval ? `[${signed(d.interval[0]!)}, ${signed(d.interval[1]!)}]` : "—";
  const verdict = { better: "better", "not-better": "not better", undecided: "not sure" }[d.verdict];
  return h(
    "div",
    { id: "gate-decision" },
    h(
      "dl",
      { class: "stats" },
      stat(`Paired difference on ${d.split} (epoch ${d.candidateEpoch} − start)`, d.difference === null ? "—" : signed(d.difference)),
      stat(`${(d.level * 100).toFixed(d.level === 0.95 ? 0 : 2)}% interval`, interval),
      stat("Verdict", verdict),
      stat("Sign-flip p (one-sided)", d.p === null ? "—" : d.p.toPrecision(2)),
      stat("Paired tasks × samples", `${fmtInt(d.tasks)} × ${fmtInt(d.samples)}`),
      stat("Rounds / evaluation rollouts", `${fmtInt(d.rounds)} / ${fmtInt(d.rollouts)}`),
      d.selection ? stat(`Chosen on ${d.selection.split}`, `epoch ${d.selection.epoch} (${fmtPct(d.selection.accuracy)})`) : null,
    ),
    h("p", { class: "meta" }, `Rule: ${d.rule}.`),
  );
}

/**
 * Where an epoch's holdout evaluation sits on the step axis: evaluation k scored the library after
 * k epochs, so it sits between the last step of epoch k−1 and the first of epoch k (k = 0, the
 * starting library, before step 0; the last, the final library, after the last step).
 */
export const evalX = (epoch: number, perEpoch: number) => epoch * perEpoch - 0.5;

async function renderCurve(view: RunView) {
  const curve = await getCurve();
  const perEpoch = view.progress.stepsPerEpoch || 1;
  if (!curve.steps.length && !curve.epochs.length) return fill("curve", empty("No step has finished yet."));
  // Steps numbered from 0, as the API and the CLI number them.
  const stepX = new Map(curve.steps.map((s) => [s.epoch * perEpoch + s.step, s]));
  // One point per epoch: the first round on the split epochs are scored on (validation under `best`).
  const split = curve.epochs.some((e) => e.split === "validation") ? "validation" : (curve.epochs[0]?.split ?? "holdout");
  const plotted = curve.epochs.filter((e) => e.round === 0 && e.split === split);
  const evals = new Map(plotted.map((e) => [evalX(e.epoch, perEpoch), e]));
  const xs = [...new Set([...stepX.keys(), ...evals.keys()])].sort((a, b) => a - b);
  const atStep = (pick: (s: Curve["steps"][number]) => number | null) => xs.map((x) => (stepX.has(x) ? pick(stepX.get(x)!) : null));
  const atEval = (pick: (e: Curve["epochs"][number]) => number | null | undefined) =>
    xs.map((x) => (evals.has(x) ? (pick(evals.get(x)!) ?? null) : null));
  const data: (number | null)[][] = [xs, atStep((s) => s.trainReward), atStep((s) => s.librarySize)];
  const xLabel = (x: number) => {
    if (Number.isInteger(x)) return `step ${x}`;
    const epoch = (x + 0.5) / perEpoch;
    return epoch === 0 ? "starting library" : `library after epoch ${epoch}`;
  };
  const series: Series[] = [
    { label: "step", value: (_u, v) => (v === null ? "—" : xLabel(v)) },
    line("mean train reward", color(0), { scale: "r" }),
    line("library size", color(2), { scale: "n", dash: [6, 4] }),
  ];
  if (plotted.length) {
    data.push(
      atEval((e) => e.holdoutAccuracy),
      atEval((e) => e.interval?.[0]),
      atEval((e) => e.interval?.[1]),
    );
    series.push(
      line(`${split} accuracy`, color(1), { scale: "r" }),
      line("interval low", "#f87171", { scale: "r", width: 1, dash: [2, 3] }),
      line("interval high", "#f87171", { scale: "r", width: 1, dash: [2, 3] }),
    );
  }
  chart(
    "curve",
    {
      scales: { x: { time: false }, r: { range: [0, 1] }, n: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [
        { label: "step", incrs: COUNT_INCRS },
        { scale: "r", label: "reward / accuracy" },
        { scale: "n", side: 1, label: "library size", grid: { show: false } },
      ],
      series,
    },
    data as [number[], ...(number | null)[][]],
    `Learning curve over ${curve.steps.length} steps and ${plotted.length} ${split} evaluations`,
  );
  const tokens = curve.steps.reduce((n, s) => n + (s.tokens ?? 0), 0);
  $("curve").append(
    h("p", { class: "meta" }, `${fmtInt(tokens)} tokens over ${curve.steps.length} finished step${curve.steps.length === 1 ? "" : "s"}.`),
    // The plotted points as a table: what a screen reader reads, and what a test compares with the API.
    h(
      "details",
      {},
      h("summary", {}, "The plotted points"),
      dataTable(
        "Learning curve points",
        [
          { label: "x", cell: (i: number) => String(xs[i]), num: true },
          { label: "At", cell: (i) => xLabel(xs[i]!) },
          ...series.slice(1).map((s, k) => ({ label: String(s.label), cell: (i: number) => fmtPoint(data[k + 1]![i]), num: true })),
        ],
        xs.map((_, i) => i),
        { id: "curve-points" },
      ),
    ),
  );
}

const fmtPoint = (v: number | null | undefined) => (typeof v === "number" ? String(Math.round(v * 1e6) / 1e6) : "");

const openSteps = new Set<number>();
let promoted: Promise<Map<string, Schemas["Experience"]>> | null = null;

async function renderSteps() {
  const steps = (await call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/steps", { params: runPath() }))).items;
  if (!steps.length) return fill("steps", empty("No step has started yet."));
  // A link to one step (from a lesson's provenance) opens it.
  const linked = /^#step-(\d+)$/.exec(location.hash);
  if (linked) openSteps.add(Number(linked[1]));
  fill(
    "steps",
    steps.map((s) => {
      const n = Number(s.n);
      const usage = s.usage as { tokensIn?: number; tokensOut?: number } | null;
      const tokens = usage ? (usage.tokensIn ?? 0) + (usage.tokensOut ?? 0) : null;
      const num = (x: unknown) => (typeof x === "number" ? x : null);
      const details = h(
        "details",
        { "data-step": n, id: `step-${n}`, open: openSteps.has(n) },
        h(
          "summary",
          {},
          `Step ${n} (epoch ${s.epoch}, step ${s.step}) — ${s.status}, mean reward ${fmtQ(num(s.meanReward))}, library ${fmtInt(num(s.librarySize))}, ${fmtInt(tokens)} tokens`,
        ),
        h("div", { class: "step-body" }),
      );
      details.addEventListener("toggle", () => {
        if (details.open) openSteps.add(n);
        else openSteps.delete(n);
        if (details.open) void loadStep(details, n);
      });
      if (details.open) void loadStep(details, n);
      return details;
    }),
  );
  if (linked) $(`step-${linked[1]}`).scrollIntoView();
}

const STEP_BASE = new Set(["n", "epoch", "step", "status", "tasks", "meanReward", "librarySize", "usage", "startedAt", "endedAt"]);
const STEP_TITLES: Record<string, string> = {
  groups: "Groups",
  proposals: "Proposals (one group advantage call per kept group)",
  plan: "Plan (the batch update)",
  diff: "Library diff",
  library: "Library at the start of the step",
  dropped: "Dropped operations",
  errors: "Errors",
  hindsight: "Hindsight",
};
const STEP_ORDER = ["groups", "proposals", "plan", "diff", "dropped", "errors", "hindsight", "library"];

async function loadStep(details: HTMLDetailsElement, n: number) {
  const target = details.querySelector(".step-body");
  // Promoted ids are looked up once the run is over; while it runs nothing is promoted yet.
  promoted ??= promotedIds(runId);
  const [s, ids] = await Promise.all([
    call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}", { params: { path: { ...runPath().path, n } } })),
    promoted,
  ]);
  const parts = Object.entries(s)
    .filter(([k]) => !STEP_BASE.has(k))
    .sort(([a], [b]) => (STEP_ORDER.indexOf(a) + 1 || 99) - (STEP_ORDER.indexOf(b) + 1 || 99));
  target?.replaceChildren(
    ...parts.map(([k, v]) => h("section", { "data-part": k }, h("h3", { text: STEP_TITLES[k] ?? k }), stepPart(k, v, ids))),
  );
}

/** Follows the run's event stream (the client reads it over fetch and resumes after reconnects). */
async function followEvents() {
  for (let attempt = 0; attempt < 100; attempt++) {
    let ended = false;
    try {
      for await (const e of praxisClient().agent(agentId).practiceEvents(runId)) {
        if (e.type === "end") ended = true;
        body.dataset.lastEvent = e.type;
        refreshRun().catch((err) => setStatus(`Refresh failed: ${errorText(err)}`));
      }
    } catch (err) {
      setStatus(`Event stream interrupted: ${errorText(err)}`);
    }
    const view = await getRun();
    if (ended || TERMINAL.has(view.status)) return refreshRun();
    await new Promise((r) => setTimeout(r, 1000));
  }
}
