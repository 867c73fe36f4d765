import { api, call } from "../api.js";
import { agentPath, episodeHref, jobAnchor, jobHref } from "../context.js";
import { fill, fmtInt, fmtTime, h, plural } from "../dom.js";
import { dataTable } from "../table.js";

export async function renderJobs(): Promise<void> {
  const jobs = (await call(api().GET("/v1/agents/{agentId}/jobs", { params: { ...agentPath(), query: { limit: 200 } } }))).items;
  fill(
    "jobs",
    dataTable(
      plural(jobs.length, "job"),
      [
        { label: "Job", cell: (j) => h("a", { href: jobHref(j.id) }, j.id), sort: (j) => j.id, id: true },
        { label: "Type", cell: (j) => j.type, sort: (j) => j.type },
        { label: "Status", cell: (j) => h("span", { class: `badge ${j.status}` }, j.status), sort: (j) => j.status },
        { label: "Reason", cell: (j) => h("span", { class: "text" }, j.reason ?? "—") },
        { label: "Episode", cell: (j) => (j.episodeId ? h("a", { href: episodeHref(j.episodeId) }, j.episodeId) : "—"), id: true },
        { label: "Attempts", cell: (j) => fmtInt(j.attempts), sort: (j) => j.attempts, num: true },
        { label: "Created", cell: (j) => fmtTime(j.createdAt), sort: (j) => j.createdAt },
        { label: "Updated", cell: (j) => fmtTime(j.updatedAt), sort: (j) => j.updatedAt },
      ],
      jobs,
      { id: "jobs-table", rowId: (j) => jobAnchor(j.id) },
    ),
  );
}
