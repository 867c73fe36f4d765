import type { Schemas } from "../../../../client/src/index.js";
import { api, call, errorText, pageAll } from "../api.js";
import { chart, color, COUNT_INCRS, bars, line, type Series } from "../charts.js";
import { agentPath, canAdmin, episodeHref, lessonHref, runHref } from "../context.js";
import { $, empty, fill, fmtInt, fmtQ, fmtTime, h, plural, setStatus, stat, type Child } from "../dom.js";
import { dataTable } from "../table.js";

type Analytics = Schemas["Analytics"];
type Experience = Schemas["Experience"];
type HeldItem = Schemas["QuarantinedItem"];

export async function renderAgent(): Promise<void> {
  const [analytics, experiences, held] = await Promise.all([
    call(api().GET("/v1/agents/{agentId}/analytics", { params: { ...agentPath(), query: { top: 3, buckets: 10 } } })),
    pageAll((cursor) =>
      call(api().GET("/v1/agents/{agentId}/experiences", { params: { ...agentPath(), query: { status: "all", limit: 200, cursor } } })),
    ),
    pageAll((cursor) => call(api().GET("/v1/agents/{agentId}/quarantine", { params: { ...agentPath(), query: { limit: 200, cursor } } }))),
  ]);
  const ex = analytics.experiences;
  fill(
    "summary",
    h(
      "dl",
      { class: "stats" },
      stat("Library version", fmtInt(analytics.libraryVersion)),
      stat("Active experiences", fmtInt(ex.counts.active ?? 0)),
      stat("Quarantined", fmtInt(ex.counts.quarantined ?? 0)),
      stat("Pending", fmtInt(ex.counts.pending ?? 0)),
      stat("Mean Q", `${fmtQ(ex.q.mean)} ± ${fmtQ(ex.q.std)}`),
      stat("Retrievals", fmtInt(analytics.retrievals)),
      stat("Mean |ΔQ| (last updates)", fmtQ(analytics.convergence.meanAbsDeltaQ)),
    ),
  );
  renderHistogram(ex.q.histogram);
  await renderTrajectories(analytics);
  renderLibrary(experiences);
  renderQuarantine(held);
}

function renderHistogram(hist: Analytics["experiences"]["q"]["histogram"]) {
  const first = hist[0];
  const last = hist[hist.length - 1];
  if (!first || !last || hist.every((b) => b.count === 0)) return fill("histogram", empty("No active experiences yet."));
  const width = first.to - first.from;
  chart(
    "histogram",
    {
      scales: { x: { time: false, range: [first.from, last.to] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{ label: "Q" }, { label: "experiences", incrs: COUNT_INCRS }],
      series: [
        { label: "Q", value: (_u, v) => (v === null ? "—" : `${(v - width / 2).toFixed(2)}…${(v + width / 2).toFixed(2)}`) },
        { label: "count", stroke: color(0), fill: "rgba(37,99,235,0.45)", paths: bars(), points: { show: false } },
      ],
    },
    [hist.map((b) => (b.from + b.to) / 2), hist.map((b) => b.count)],
    `Histogram of Q over ${hist.reduce((n, b) => n + b.count, 0)} active experiences`,
  );
}

async function renderTrajectories(analytics: Analytics) {
  const picked = [...analytics.top.map((m) => ({ ...m, rank: "top" })), ...analytics.bottom.map((m) => ({ ...m, rank: "bottom" }))].filter(
    (m, i, all) => all.findIndex((o) => o.id === m.id) === i,
  );
  const histories = await Promise.all(
    picked.map((m) =>
      call(api().GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { ...agentPath().path, id: m.id } } })).then((e) => ({
        m,
        hist: e.qHistory ?? [],
      })),
    ),
  );
  const withUpdates = histories.filter((x) => x.hist.length > 0);
  if (!withUpdates.length) return fill("trajectories", empty("No Q updates yet: rewards move Q."));
  const longest = Math.max(...withUpdates.map((x) => x.hist.length));
  // Aligned on the latest update (x = 0), so every line ends where its memory stands now.
  const xs = Array.from({ length: longest + 1 }, (_, i) => i - longest);
  const data: (number | null)[][] = [xs];
  const series: Series[] = [{ label: "update" }];
  withUpdates.forEach((x, i) => {
    const firstUpdate = x.hist[0]!;
    const qs = [firstUpdate.q - firstUpdate.delta, ...x.hist.map((e) => e.q)];
    data.push(xs.map((_, j) => qs[j - (xs.length - qs.length)] ?? null));
    series.push(line(`${x.m.rank}: ${x.m.label ?? x.m.id}`, color(i)));
  });
  chart(
    "trajectories",
    { scales: { x: { time: false }, y: { range: [-1, 1] } }, axes: [{ label: "updates before now" }, { label: "Q" }], series },
    data as [number[], ...(number | null)[][]],
    `Q over the last updates of ${withUpdates.length} memories`,
  );
}

const labelOrder = (label: string | null) => (label && /^G\d+$/.test(label) ? Number(label.slice(1)) : Number.MAX_SAFE_INTEGER);

/** The source, with how practice learned the lesson when it did so in hindsight (from tasks every attempt failed). */
const sourceOf = (e: Experience) => `${e.source ?? "—"}${e.provenance?.origin === "hindsight" ? " (hindsight)" : ""}`;

/** Where the lesson came from, linked: its run, its episode, or the key that wrote it. */
function originOf(e: Experience): Child {
  const p = e.provenance;
  if (p?.runId) return h("span", { class: "meta" }, " · ", h("a", { href: runHref(p.runId) }, p.runId));
  if (p?.episodeId) return h("span", { class: "meta" }, " · ", h("a", { href: episodeHref(p.episodeId) }, p.episodeId));
  if (p?.keyId) return h("span", { class: "meta" }, ` · key ${p.keyId}`);
  return null;
}

function renderLibrary(experiences: Experience[]) {
  const text = $<HTMLInputElement>("filter-text");
  const status = $<HTMLSelectElement>("filter-status");
  const source = $<HTMLSelectElement>("filter-source");
  const filter = (e: Experience) => {
    const needle = text.value.trim().toLowerCase();
    return (
      (!needle || e.text.toLowerCase().includes(needle) || (e.label ?? "").toLowerCase().includes(needle)) &&
      (!status.value || e.status === status.value) &&
      (!source.value || e.source === source.value)
    );
  };
  const wrap = dataTable(
    plural(experiences.length, "experience"),
    [
      { label: "Label", cell: (e) => e.label ?? "—", sort: (e) => labelOrder(e.label) },
      { label: "Text", cell: (e) => h("a", { class: "text", href: lessonHref(e.id) }, e.text), sort: (e) => e.text.toLowerCase() },
      { label: "Source", cell: (e) => [sourceOf(e), originOf(e)], sort: sourceOf },
      { label: "Q", cell: (e) => fmtQ(e.q), sort: (e) => e.q, num: true },
      { label: "Retrieved", cell: (e) => fmtInt(e.counts.retrieved), sort: (e) => e.counts.retrieved, num: true },
      { label: "Cited", cell: (e) => fmtInt(e.counts.cited), sort: (e) => e.counts.cited, num: true },
      { label: "Successes", cell: (e) => fmtInt(e.counts.successes), sort: (e) => e.counts.successes, num: true },
      { label: "Failures", cell: (e) => fmtInt(e.counts.failures), sort: (e) => e.counts.failures, num: true },
      {
        label: "Status",
        cell: (e) => h("span", { class: `badge ${e.status}` }, e.probation ? `${e.status} (probation)` : e.status),
        sort: (e) => e.status ?? "",
      },
      { label: "Pinned", cell: (e) => (e.pinned ? "yes" : "no"), sort: (e) => (e.pinned ? 1 : 0) },
    ],
    experiences,
    { filter, id: "library-table" },
  );
  for (const el of [text, status, source]) el.addEventListener("input", () => wrap.refresh());
  $("library-filters").addEventListener("submit", (ev) => ev.preventDefault());
  fill("library", wrap);
}

/**
 * What the screening step holds (quarantined, or pending a review or an admin's approval), each with
 * why. Release and delete go through the agent's quarantine, which audits them; only an admin key
 * may use it, so only an admin key sees the buttons.
 */
function renderQuarantine(items: HeldItem[]) {
  if (!items.length) return fill("quarantine", empty("Nothing is held."));
  const act = async (e: HeldItem, what: "release" | "delete") => {
    const params = { params: { path: { ...agentPath().path, id: e.id } } };
    try {
      if (what === "release") await call(api().POST("/v1/agents/{agentId}/quarantine/{id}/release", params));
      else await call(api().DELETE("/v1/agents/{agentId}/quarantine/{id}", params));
      setStatus(`${what === "release" ? "Released" : "Deleted"} ${e.id}.`);
      await renderAgent();
    } catch (err) {
      setStatus(`Could not ${what} ${e.id}: ${errorText(err)}`);
    }
  };
  fill(
    "quarantine",
    h(
      "ul",
      { class: "items" },
      items.map((e) =>
        h(
          "li",
          {},
          h("p", { class: "text" }, e.kind === "experience" ? h("a", { href: lessonHref(e.id) }, e.text) : e.text),
          e.answer && h("p", { class: "text" }, `Answer: ${e.answer}`),
          h("p", {}, h("span", { class: `badge ${e.status}` }, e.status), " ", h("strong", {}, "Why: "), e.reason),
          h(
            "p",
            { class: "meta" },
            `${e.id} · ${e.kind} · through ${e.door} (${e.author}) · since ${fmtTime(e.heldAt)} · released it becomes ${e.wanted}`,
          ),
          canAdmin() &&
            h(
              "div",
              { class: "actions" },
              h("button", { type: "button", "data-write": "", onclick: () => act(e, "release") }, `Release ${e.id}`),
              h(
                "button",
                {
                  type: "button",
                  class: "danger",
                  "data-write": "",
                  onclick: () => confirm(`Delete ${e.id}? It stays deleted: no rollback or import brings it back.`) && act(e, "delete"),
                },
                `Delete ${e.id}`,
              ),
            ),
        ),
      ),
    ),
  );
}
