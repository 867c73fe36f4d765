import type { Schemas } from "../../../../client/src/index.js";
import { api, call, statusOf } from "../api.js";
import { chart, color, COUNT_INCRS, line } from "../charts.js";
import { agentPath, episodeHref, itemId, retrievalHref, runHref } from "../context.js";
import { empty, fill, fmtInt, fmtQ, fmtTime, h, stat, type Child } from "../dom.js";
import { getRunLibrary, stepOfRunId, stepPart, type RunLibrary } from "../practice-view.js";
import { dataTable } from "../table.js";

type Experience = Schemas["Experience"];

export async function renderLesson(): Promise<void> {
  const e = await call(api().GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { ...agentPath().path, id: itemId } } }));
  renderSummary(e);
  await Promise.all([renderProvenance(e), renderReviews(e)]);
  renderQHistory(e);
}

function renderSummary(e: Experience) {
  fill(
    "lesson",
    h("p", { class: "lesson-text" }, e.text),
    h("p", {}, h("strong", {}, "When: "), e.when ?? h("span", { class: "meta" }, "not written (retrieval matches the text only)")),
    h(
      "dl",
      { class: "stats" },
      stat("Id", e.id),
      stat("Label", e.label ?? "—"),
      stat("Status", e.probation ? `${e.status} (probation)` : (e.status ?? "—")),
      stat("Source", e.source ?? "—"),
      stat("Q", fmtQ(e.q)),
      stat("Retrieved / cited", `${fmtInt(e.counts.retrieved)} / ${fmtInt(e.counts.cited)}`),
      stat("Successes / failures", `${fmtInt(e.counts.successes)} / ${fmtInt(e.counts.failures)}`),
      stat("Exposures on probation", fmtInt(e.exposures)),
      stat("Tags", e.tags?.length ? e.tags.join(", ") : "—"),
      stat("Created", fmtTime(e.createdAt)),
      stat("Last used", fmtTime(e.lastUsedAt)),
    ),
  );
}

async function renderProvenance(e: Experience) {
  const p = e.provenance ?? {};
  const parts: Child[] = [];
  if (p.runId) parts.push(await fromRun(e, p.runId, p.runItemId));
  if (p.episodeId) parts.push(await fromEpisode(p.episodeId));
  if (p.keyId) parts.push(h("p", { "data-provenance": "key" }, "Written through the API by key ", await keyName(p.keyId), "."));
  if (p.importedFrom) parts.push(h("p", {}, "Imported from ", h("code", {}, p.importedFrom), "."));
  if (p.note) parts.push(h("p", {}, h("strong", {}, "Note: "), p.note));
  if (!parts.length)
    parts.push(empty(`No provenance recorded: a ${e.source ?? "manual"} lesson written without naming a run, episode or key.`));
  fill("provenance", parts);
}

/** A key by its name when this key may list keys (admin); its id otherwise. */
async function keyName(id: string): Promise<Child> {
  const keys = await call(api().GET("/v1/keys", { params: { query: { limit: 200 } } })).then(
    (r) => r.items,
    () => [],
  );
  const key = keys.find((k) => k.id === id);
  return key
    ? [h("strong", {}, key.name), ` (${key.scope}, `, h("code", {}, id), key.revokedAt ? `, revoked ${fmtTime(key.revokedAt)}` : "", ")"]
    : h("code", {}, id);
}

/** The run, the step that wrote the lesson, and that step's groups, proposals and plan. */
async function fromRun(e: Experience, runId: string, runItemId: string | undefined): Promise<Child> {
  const [run, library] = await Promise.all([
    call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: { path: { ...agentPath().path, runId } } })).catch(() => null),
    getRunLibrary(runId),
  ]);
  const head = h(
    "p",
    { "data-provenance": "run" },
    `Learned by practice run `,
    h("a", { href: runHref(runId) }, runId),
    e.provenance?.origin
      ? ` (${e.provenance.origin === "hindsight" ? "in hindsight, from a group whose attempts all failed" : "from a group whose rewards differed"})`
      : "",
    ".",
  );
  if (!run) return h("div", {}, head, empty("The run is gone (deleted with its agent or pruned)."));
  const item = library?.items.find((i) => (runItemId ? i.id === runItemId : i.text === e.text));
  const runName = runItemId ?? item?.id;
  const perEpoch = run.progress.stepsPerEpoch || 1;
  const lineage = item?.lineage.filter((l) => l.epoch !== undefined && l.step !== undefined) ?? [];
  const written = lineage[0] ?? (runName ? stepOfRunId(runName) : null);
  const stepN = written ? written.epoch! * perEpoch + written.step! : null;
  const out: Child[] = [
    head,
    runName &&
      h(
        "p",
        {},
        "In the run's library as ",
        h("code", { "data-run-item": runName }, runName),
        item ? ` (${item.label} of the final library)` : "",
        `; promoted to this agent's library as `,
        h("code", {}, e.id),
        ".",
      ),
  ];
  if (lineage.length) {
    out.push(
      h(
        "ol",
        { class: "lineage" },
        lineage.map((l) => {
          const n = l.epoch! * perEpoch + l.step!;
          return h(
            "li",
            {},
            `${l.op} in `,
            h("a", { href: runHref(runId, n), "data-step-link": n }, `step ${n} (epoch ${l.epoch}, step ${l.step})`),
            l.provenance ? ` — ${l.provenance}` : "",
            l.from ? ` — merged ${l.from.join(", ")}` : "",
          );
        }),
      ),
    );
  }
  if (stepN !== null && runName) out.push(await stepEvidence(runId, stepN, runName, item, e));
  return h("div", {}, out);
}

/** What in the step led to the lesson: its diff entry, the plan operation, and the groups with their proposals. */
async function stepEvidence(
  runId: string,
  n: number,
  runName: string,
  item: RunLibrary["items"][number] | undefined,
  e: Experience,
): Promise<Child> {
  const step = (await call(
    api().GET("/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}", { params: { path: { ...agentPath().path, runId, n } } }),
  ).catch(() => null)) as Record<string, unknown> | null;
  if (!step) return empty(`Step ${n} is no longer recorded.`);
  const ids = new Map([[runName, e]]);
  const diff = (Array.isArray(step.diff) ? step.diff : []).filter((c: { id?: string }) => c.id === runName);
  const texts = new Set([e.text, item?.text].filter(Boolean));
  const plan = step.plan as { reasoning?: string; operations?: { text?: string }[] } | undefined;
  const ops = (plan?.operations ?? []).filter((o) => texts.has(o.text ?? ""));
  return h(
    "section",
    { class: "evidence", id: "step-evidence" },
    h("h3", {}, `Step ${n}: the change`),
    stepPart("diff", diff, ids),
    h("h3", {}, "The plan operation"),
    stepPart("plan", { reasoning: plan?.reasoning, operations: ops }, ids),
    h("h3", {}, "The groups"),
    stepPart("groups", step.groups, ids),
    h("h3", {}, "The proposals"),
    stepPart("proposals", step.proposals, ids),
  );
}

async function fromEpisode(id: string): Promise<Child> {
  const ep = await call(api().GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { ...agentPath().path, id } } })).catch(
    () => null,
  );
  const link = h("a", { href: episodeHref(id), "data-provenance": "episode" }, id);
  if (!ep) return h("p", {}, "Learned from episode ", h("code", {}, id), " (no longer kept).");
  const failed = ep.attempts.filter((a) => !a.ok).length;
  return h(
    "div",
    {},
    h("p", {}, "Learned from episode ", link, `: “${ep.task}”`),
    h(
      "p",
      { class: "meta" },
      `${ep.attempts.length} attempts (${failed} failed), outcome ${ep.outcome ?? "open"}${ep.result ? `, reward ${fmtQ(ep.result.reward)}` : ""}.`,
    ),
  );
}

async function renderReviews(e: Experience) {
  const rows: Child[] = [];
  if (e.status === "quarantined" || e.status === "pending") {
    try {
      const held = await call(api().GET("/v1/agents/{agentId}/quarantine/{id}", { params: { path: { ...agentPath().path, id: e.id } } }));
      rows.push(
        h(
          "p",
          {},
          h("span", { class: `badge ${held.status}` }, held.status),
          ` since ${fmtTime(held.heldAt)}, came in through ${held.door} (${held.author}); released it becomes ${held.wanted}.`,
        ),
        h("p", {}, h("strong", {}, "Why: "), held.reason),
      );
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
  }
  rows.push(...trialRows(e));
  if (!rows.length) rows.push(h("p", {}, `Not held for review: ${e.status ?? "active"}${e.probation ? "" : ", trusted"}.`));
  fill("reviews", rows);
}

const VERDICT: Record<NonNullable<Experience["evidence"]["verdict"]>, string> = {
  exploring: "On probation: retrievable, and shown in a share of the prompts it matches until the evidence decides.",
  graduated: "Graduated: the evidence says it helps; it left probation and is in every prompt it fits.",
  retired: "Retired: the evidence says it hurts; it was archived (see the library's versions).",
  inconclusive: "Inconclusive: no verdict after the most exposures a trial allows; on probation, out of prompts.",
};

/** How the lesson's trial in prompts went: the outcomes shown and not shown, and what they decided. */
function trialRows(e: Experience): Child[] {
  const v = e.evidence.verdict;
  if (!v) return [];
  const pts = (x: number) => `${x >= 0 ? "+" : ""}${Math.round(100 * x)}`;
  const d = e.evidence.difference;
  return [
    h("p", { "data-trial": v }, h("strong", {}, "Trial in prompts: "), VERDICT[v]),
    h(
      "p",
      {},
      `Shown in ${fmtInt(e.evidence.shown.prompts)} rewarded prompts (${fmtInt(e.evidence.shown.successes)} succeeded at the first try), not shown in ${fmtInt(e.evidence.notShown.prompts)} matching ones (${fmtInt(e.evidence.notShown.successes)}).`,
      d ? ` Difference ${pts(d.estimate)} points, 99% interval ${pts(d.low)} to ${pts(d.high)}.` : "",
      e.evidence.decidedAt ? ` Decided ${fmtTime(e.evidence.decidedAt)}.` : "",
    ),
  ];
}

function renderQHistory(e: Experience) {
  const hist = e.qHistory ?? [];
  if (!hist.length) return fill("q-history", empty("No reward has moved its Q yet."));
  const first = hist[0]!;
  chart(
    "q-history",
    {
      scales: { x: { time: false }, y: { range: [-1, 1] } },
      axes: [{ label: "update", incrs: COUNT_INCRS }, { label: "Q / reward" }],
      series: [{ label: "update" }, line("Q", color(0)), line("reward", color(1), { width: 1, dash: [3, 3] })],
    },
    [hist.map((_, i) => i), hist.map((x) => x.q), hist.map((x) => x.reward)],
    `Q of ${e.id} over ${hist.length} updates, starting at ${fmtQ(first.q - first.delta)}`,
  );
  // A retrieval is shown on the page of the episode it served; one outside an episode has no page.
  const from = (x: (typeof hist)[number]): Child =>
    x.episodeId
      ? [
          "episode ",
          h("a", { href: episodeHref(x.episodeId) }, x.episodeId),
          x.retrievalId ? [", retrieval ", h("a", { href: retrievalHref(x.episodeId, x.retrievalId) }, x.retrievalId)] : null,
        ]
      : x.retrievalId
        ? ["retrieval ", h("code", {}, x.retrievalId)]
        : "a reward naming it";
  const table = dataTable(
    `${hist.length} updates`,
    [
      { label: "When", cell: (x) => fmtTime(x.at), sort: (x) => x.at },
      { label: "Reward", cell: (x) => fmtQ(x.reward), num: true },
      { label: "Q before", cell: (x) => fmtQ(x.q - x.delta), num: true },
      { label: "ΔQ", cell: (x) => `${x.delta >= 0 ? "+" : ""}${fmtQ(x.delta)}`, num: true },
      { label: "Q after", cell: (x) => fmtQ(x.q), num: true },
      { label: "From", cell: from },
    ],
    hist.slice().reverse(),
    { id: "q-history-table" },
  );
  document.getElementById("q-history")!.append(table);
}
