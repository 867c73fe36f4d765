import { api, call, pageAll } from "../api.js";
import { agentPage, agentPath, enc } from "../context.js";
import { fill, fmtTime, h, plural } from "../dom.js";
import { dataTable } from "../table.js";

/** What a finished run came to, from the summary its row keeps: promoted as a library version, or why not. */
function outcomeOf(r: { status: string; summary: unknown; error: string | null }): string {
  const promotion = (r.summary as { promotion?: { promoted?: boolean; version?: number | null; reason?: string } | null } | null)
    ?.promotion;
  if (promotion)
    return promotion.promoted
      ? `promoted as v${promotion.version} — ${promotion.reason ?? ""}`
      : `not promoted — ${promotion.reason ?? ""}`;
  if (r.error) return r.error;
  return r.status === "running" || r.status === "queued" ? "in progress" : "—";
}

export async function renderRuns(): Promise<void> {
  const [runs, datasets] = await Promise.all([
    pageAll(
      (cursor) => call(api().GET("/v1/agents/{agentId}/practice-runs", { params: { ...agentPath(), query: { limit: 200, cursor } } })),
      400,
    ),
    // A key limited to some agents may not list the tenant's datasets: the ids stand in for their names.
    pageAll((cursor) => call(api().GET("/v1/datasets", { params: { query: { limit: 200, cursor } } })), 2000).catch(() => []),
  ]);
  const names = new Map(datasets.map((d) => [d.datasetId, d.name]));
  const dataset = (id: string) => names.get(id) ?? id;
  fill(
    "runs",
    dataTable(
      plural(runs.length, "run"),
      [
        { label: "Run", cell: (r) => h("a", { href: agentPage(`/runs/${enc(r.runId)}`) }, r.runId), sort: (r) => r.runId, id: true },
        { label: "Status", cell: (r) => h("span", { class: `badge ${r.status}` }, r.status), sort: (r) => r.status },
        {
          label: "Dataset",
          cell: (r) => h("span", { title: r.datasetId }, dataset(r.datasetId)),
          sort: (r) => dataset(r.datasetId),
          id: true,
        },
        { label: "Outcome", cell: (r) => h("span", { class: "text" }, outcomeOf(r)), sort: outcomeOf },
        { label: "Started", cell: (r) => fmtTime(r.createdAt), sort: (r) => r.createdAt },
        { label: "Updated", cell: (r) => fmtTime(r.updatedAt), sort: (r) => r.updatedAt },
      ],
      runs,
      { id: "runs-table" },
    ),
  );
}
