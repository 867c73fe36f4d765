import type { Schemas } from "../../../../client/src/index.js";
import { api, call, pageAll } from "../api.js";
import { agentPath, caseHref, episodeHref, itemId, jobHref, lessonHref, libraryHref, retrievalAnchor } from "../context.js";
import { empty, fill, fmtInt, fmtQ, fmtTime, h, plural, stat, type Child } from "../dom.js";
import { dataTable } from "../table.js";

type Episode = Schemas["Episode"];
type Retrieval = Schemas["EpisodeRetrieval"];

const outcomeBadge = (ep: Episode) => h("span", { class: `badge ${ep.outcome ?? ep.status}` }, ep.outcome ?? ep.status);

export async function renderEpisodes(): Promise<void> {
  const episodes = await pageAll(
    (cursor) => call(api().GET("/v1/agents/{agentId}/episodes", { params: { ...agentPath(), query: { limit: 200, cursor } } })),
    400,
  );
  fill(
    "episodes",
    dataTable(
      plural(episodes.length, "episode"),
      [
        { label: "Episode", cell: (e) => h("a", { href: episodeHref(e.id) }, e.id), sort: (e) => e.id, id: true },
        { label: "Task", cell: (e) => h("span", { class: "text" }, e.task), sort: (e) => e.task },
        { label: "Outcome", cell: outcomeBadge, sort: (e) => e.outcome ?? e.status },
        { label: "Attempts", cell: (e) => fmtInt(e.attempts.length), sort: (e) => e.attempts.length, num: true },
        { label: "Reward", cell: (e) => fmtQ(e.result?.reward), sort: (e) => e.result?.reward ?? -2, num: true },
        { label: "Started", cell: (e) => fmtTime(e.createdAt), sort: (e) => e.createdAt },
      ],
      episodes,
      { id: "episodes-table" },
    ),
  );
}

export async function renderEpisode(): Promise<void> {
  const path = { path: { ...agentPath().path, id: itemId } };
  const [ep, retrievals] = await Promise.all([
    call(api().GET("/v1/agents/{agentId}/episodes/{id}", { params: path })),
    call(api().GET("/v1/agents/{agentId}/episodes/{id}/retrievals", { params: path })).then((r) => r.items),
  ]);
  const texts = await textsOf([
    ...new Set(retrievals.flatMap((r) => r.items.map((i) => i.id)).concat(ep.result?.rewarded.map((r) => r.id) ?? [])),
  ]);
  fill(
    "episode",
    h("p", { class: "lesson-text" }, ep.task),
    h(
      "dl",
      { class: "stats" },
      stat("Status", ep.status),
      stat("Outcome", ep.outcome ?? "—"),
      stat("Score", ep.score === null ? "—" : fmtQ(ep.score)),
      stat("Reward", fmtQ(ep.result?.reward)),
      stat("Started", fmtTime(ep.createdAt)),
      stat("Ended", fmtTime(ep.endedAt)),
      stat("Case", caseCell(ep)),
      stat("Live extraction", extractionCell(ep)),
      stat("Taught", taughtCell(ep)),
    ),
    ep.answer ? h("div", {}, h("h3", {}, "Answer"), h("pre", {}, ep.answer)) : null,
  );
  fill(
    "attempts",
    ep.attempts.length
      ? dataTable(
          plural(ep.attempts.length, "attempt"),
          [
            { label: "#", cell: (a) => String(a.n), num: true },
            { label: "What was tried", cell: (a) => h("span", { class: "text" }, a.description) },
            { label: "Result", cell: (a) => h("span", { class: `badge ${a.ok ? "done" : "failed"}` }, a.ok ? "ok" : "failed") },
            { label: "Error", cell: (a) => (a.error ? h("span", { class: "text" }, a.error) : "—") },
            { label: "Tools", cell: (a) => a.toolCalls.join(", ") || "—" },
            { label: "At", cell: (a) => fmtTime(a.at) },
          ],
          ep.attempts,
          { id: "attempts-table" },
        )
      : empty("No attempts were logged."),
  );
  fill(
    "retrievals",
    retrievals.length
      ? retrievals.map((r, i) => retrievalView(r, i, texts))
      : empty("Nothing was retrieved for this episode (or its retrievals are past retention)."),
  );
  const rewarded = ep.result?.rewarded ?? [];
  fill(
    "credited",
    !ep.result
      ? empty("The episode has not ended: nothing is credited yet.")
      : rewarded.length
        ? dataTable(
            plural(rewarded.length, "credited memory", "credited memories"),
            [
              { label: "Memory", cell: (r) => memoryLink(r.id), id: true },
              { label: "Text", cell: (r) => h("span", { class: "text" }, texts.get(r.id) ?? "—") },
              { label: "Reward", cell: () => fmtQ(ep.result!.reward), num: true },
              { label: "Q after", cell: (r) => fmtQ(r.q), num: true },
            ],
            rewarded,
            { id: "credited-table" },
          )
        : empty(`Ending it (reward ${fmtQ(ep.result.reward)}) credited no memory: nothing active was retrieved for it.`),
  );
}

/** The episode's case, and whether it is held and why: a held case is never retrieved. */
function caseCell(ep: Episode): Child {
  const c = ep.result?.case;
  if (!c) return ep.result?.caseId ? h("a", { href: caseHref(ep.result.caseId) }, ep.result.caseId) : "—";
  const link = h("a", { href: caseHref(c.id) }, c.id);
  if (c.status === "active") return link;
  return h("span", {}, link, " ", h("span", { class: `badge ${c.status}` }, c.status), c.reason ? ` ${c.reason}` : "");
}

/** How the episode's live extraction went, with the job that ran it. */
function extractionCell(ep: Episode): Child {
  if (!ep.result) return "—";
  const jobId = ep.result.jobId;
  return jobId ? [ep.result.extraction, " (", h("a", { href: jobHref(jobId) }, jobId), ")"] : ep.result.extraction;
}

/** What the episode's extraction added or changed, linked, or why it learned nothing. */
function taughtCell(ep: Episode): Child {
  const t = ep.result?.taught;
  if (!t) return "—";
  if (!t.lessonIds.length) return t.reason ?? "nothing";
  return h(
    "span",
    {},
    ...t.lessonIds.flatMap((id, i) => [i ? ", " : "", h("a", { href: lessonHref(id) }, id)]),
    t.operation ? ` (${t.operation})` : "",
  );
}

/** A lesson or case of the agent linked to its page; a shared library's lesson (`lib_…/exp_…`) to its library's. */
const memoryLink = (id: string): Child => {
  if (id.startsWith("exp_")) return h("a", { href: lessonHref(id) }, id);
  if (id.startsWith("case_")) return h("a", { href: caseHref(id) }, id);
  const shared = /^(lib_[^/]+)\//.exec(id);
  return shared ? h("a", { href: libraryHref(shared[1]!) }, id) : h("code", {}, id);
};

const SIGNALS: [keyof NonNullable<Retrieval["items"][number]["signals"]>, string][] = [
  ["vectorSim", "similarity"],
  ["textBm25", "words (BM25)"],
  ["usageSim", "usage"],
  ["learnedPhrase", "phrases"],
  ["whenSim", "when"],
  ["q", "Q"],
  ["recency", "recency"],
];

function retrievalView(r: Retrieval, i: number, texts: Map<string, string>): Node {
  return h(
    "section",
    { class: "retrieval", "data-retrieval": r.retrievalId, id: retrievalAnchor(r.retrievalId) },
    h("h3", {}, `${i + 1}. “${r.query}”`),
    h(
      "p",
      { class: "meta" },
      // The id links to this panel, so it can be shared and is the target the lesson's Q history links to.
      h("a", { href: `#${retrievalAnchor(r.retrievalId)}` }, r.retrievalId),
      ` · ${fmtTime(r.at)} · phase ${r.phase ?? "—"} · λ ${r.lambda} · ${r.rewarded ? "credited by a reward" : "not rewarded"}`,
    ),
    dataTable(
      plural(r.items.length, "item"),
      [
        { label: "Rank", cell: (x) => String(r.items.indexOf(x) + 1), num: true },
        { label: "Shown as", cell: (x) => x.label ?? "—" },
        { label: "Memory", cell: (x) => memoryLink(x.id), id: true },
        { label: "Text", cell: (x) => h("span", { class: "text" }, texts.get(x.id) ?? "—") },
        { label: "Score", cell: (x) => (x.score === null ? "—" : x.score.toFixed(3)), num: true },
        ...SIGNALS.map(([k, label]) => ({
          label,
          cell: (x: Retrieval["items"][number]) => (x.signals?.[k] === undefined ? "—" : x.signals[k].toFixed(3)),
          num: true,
        })),
      ],
      r.items,
    ),
  );
}

/** The texts of the lessons and cases a page names (a retrieval keeps only their ids). */
async function textsOf(ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    ids.map(async (id) => {
      const path = { path: { ...agentPath().path, id } };
      if (id.startsWith("exp_")) {
        const e = await call(api().GET("/v1/agents/{agentId}/experiences/{id}", { params: path })).catch(() => null);
        if (e) out.set(id, e.text);
      } else {
        const c = await call(api().GET("/v1/agents/{agentId}/cases/{id}", { params: path })).catch(() => null);
        if (c) out.set(id, `Case: ${c.task}`);
      }
    }),
  );
  return out;
}
