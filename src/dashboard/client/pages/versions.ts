import type { Schemas } from "../../../../client/src/index.js";
import { api, call, errorText, pageAll } from "../api.js";
import { agentPath, canWrite, lessonHref, runHref } from "../context.js";
import { $, empty, fill, fmtQ, fmtTime, h, setStatus, type Child } from "../dom.js";
import { dataTable } from "../table.js";

type Version = Schemas["LibraryVersion"];

/** A version's reason with the practice runs it names (`run_` and 24 hex digits) linked to their pages. */
function reasonWithLinks(reason: string): Child[] {
  return reason.split(/\b(run_[0-9a-f]{24})\b/).map((part, i) => (i % 2 ? h("a", { href: runHref(part) }, part) : part));
}

export async function renderVersions(selected?: number): Promise<void> {
  const versions = await pageAll(
    (cursor) =>
      call(
        api().GET("/v1/agents/{agentId}/library/versions", {
          params: { ...agentPath(), query: { limit: 200, cursor: cursor === undefined ? undefined : Number(cursor) } },
        }),
      ),
    200,
  );
  const latest = versions[0]?.version;
  fill(
    "versions",
    versions.length
      ? h(
          "ol",
          { class: "timeline", reversed: true },
          versions.map((v) =>
            h(
              "li",
              { "data-version": v.version },
              h(
                "p",
                {},
                h("strong", {}, `v${v.version}`),
                ` · ${fmtTime(v.createdAt)} · ${v.author}`,
                v.version === latest ? h("span", { class: "badge active" }, "current") : null,
              ),
              h("p", { class: "text" }, reasonWithLinks(v.reason)),
              h("p", { class: "meta" }, `${v.changes} change${v.changes === 1 ? "" : "s"}`),
              h(
                "div",
                { class: "actions" },
                h("button", { type: "button", onclick: () => renderDiff(v.version) }, `Diff of v${v.version}`),
                canWrite() &&
                  v.version !== latest &&
                  h(
                    "button",
                    { type: "button", class: "danger", "data-write": "", onclick: () => askRollback(v) },
                    `Roll back to v${v.version}`,
                  ),
              ),
            ),
          ),
        )
      : empty("No versions yet."),
  );
  const shown = selected ?? latest;
  if (shown !== undefined) await renderDiff(shown);
}

type Snapshot = Schemas["ExperienceSnapshot"] | null;

async function renderDiff(n: number) {
  const d = await call(api().GET("/v1/agents/{agentId}/library/versions/{n}/diff", { params: { path: { ...agentPath().path, n } } }));
  const snap = (s: Snapshot) =>
    s
      ? h(
          "div",
          {},
          h("span", { class: "text" }, s.text),
          h("span", { class: "meta" }, ` (${s.status}, Q ${fmtQ(s.q)}${s.pinned ? ", pinned" : ""})`),
        )
      : "—";
  fill(
    "diff",
    h("p", {}, h("strong", {}, `v${d.version}`), ` by ${d.author}: `, reasonWithLinks(d.reason)),
    dataTable(
      `What v${d.version} changed`,
      [
        { label: "Operation", cell: (r) => h("span", { class: `badge ${r.op}` }, r.op) },
        { label: "Experience", cell: (r) => h("a", { href: lessonHref(r.id) }, r.id), id: true },
        { label: "Before", cell: (r) => snap(r.before) },
        { label: "After", cell: (r) => snap(r.after) },
      ],
      d.diff,
      { id: "diff-table" },
    ),
  );
}

function askRollback(v: Version) {
  const dialog = $<HTMLDialogElement>("rollback-dialog");
  $("rollback-text").textContent =
    `The library becomes what it was after v${v.version} (${v.reason}). This is recorded as a new version, so it can be undone the same way.`;
  dialog.returnValue = "";
  dialog.onclose = async () => {
    if (dialog.returnValue !== "confirm") return;
    try {
      // One Idempotency-Key for the write and its retries, so a retried rollback is applied once. Set
      // here because crypto.randomUUID (the client's default) exists only in secure contexts, and a
      // dashboard may be opened over plain http on a LAN address.
      const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
      const r = await call(
        api().POST("/v1/agents/{agentId}/library/rollback", {
          params: agentPath(),
          body: { version: v.version },
          headers: { "idempotency-key": `dash-${key}` },
        }),
      );
      setStatus(
        r.unchanged
          ? `The library already equals v${v.version}.`
          : `Rolled back to v${v.version}: now v${r.libraryVersion} (${r.changed} changed, ${r.deleted} deleted).`,
      );
      await renderVersions(r.libraryVersion);
    } catch (err) {
      setStatus(`Rollback failed: ${errorText(err)}`);
    }
  };
  dialog.showModal();
}
