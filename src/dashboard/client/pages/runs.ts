import { api, call, pageAll } from "../api.js";
import { agentPage, agentPath, enc } from "../context.js";
import { fill, fmtTime, h, plural } from "../dom.js";
import { dataTable } from "../table.js";

export async function renderRuns(): Promise<void> {
  const runs = await pageAll((cursor) => call(api().GET("/v1/agents/{agentId}/practice-runs", { params: { ...agentPath(), query: { limit: 200, cursor } } })), 400);
  fill(
    "runs",
    dataTable(
      plural(runs.length, "run"),
      [
        { label: "Run", cell: (r) => h("a", { href: agentPage(`/runs/${enc(r.runId)}`) }, r.runId), sort: (r) => r.runId, id: true },
        { label: "Status", cell: (r) => h("span", { class: `badge ${r.status}` }, r.status), sort: (r) => r.status },
        { label: "Dataset", cell: (r) => r.datasetId, sort: (r) => r.datasetId, id: true },
        { label: "Started", cell: (r) => fmtTime(r.createdAt), sort: (r) => r.createdAt },
        { label: "Updated", cell: (r) => fmtTime(r.updatedAt), sort: (r) => r.updatedAt },
        { label: "Error", cell: (r) => r.error ?? "" },
      ],
      runs,
      { id: "runs-table" },
    ),
  );
}
