import { api, call, pageAll } from "../api.js";
import { agentPage, libraryHref, libraryId } from "../context.js";
import { fill, fmtInt, fmtQ, fmtTime, h, plural, stat } from "../dom.js";
import { dataTable } from "../table.js";

export async function renderLibraries(): Promise<void> {
  const libraries = await pageAll((cursor) => call(api().GET("/v1/libraries", { params: { query: { limit: 200, cursor } } })));
  fill(
    "libraries",
    dataTable(
      `${libraries.length} ${libraries.length === 1 ? "library" : "libraries"}`,
      [
        { label: "Library", cell: (l) => h("a", { href: libraryHref(l.libraryId) }, `${l.name} (${l.libraryId})`), sort: (l) => l.name },
        { label: "Description", cell: (l) => h("span", { class: "text" }, l.description ?? "—") },
        { label: "Created", cell: (l) => fmtTime(l.createdAt), sort: (l) => l.createdAt },
      ],
      libraries,
      { id: "libraries-table" },
    ),
  );
}

/** Subscribers shown (and aggregated over) on the library page: the first page of them. */
const SUBSCRIBERS_SHOWN = 200;

/** A library's lessons with how they fare across subscribers, and each subscriber's own Q for them. */
export async function renderLibrary(): Promise<void> {
  const path = { libraryId };
  const library = await call(api().GET("/v1/libraries/{libraryId}", { params: { path } }));
  const [lessons, subscribers] = await Promise.all([
    pageAll((cursor) =>
      call(api().GET("/v1/libraries/{libraryId}/experiences", { params: { path, query: { status: "all", limit: 200, cursor } } })),
    ),
    call(api().GET("/v1/libraries/{libraryId}/subscribers", { params: { path, query: { limit: SUBSCRIBERS_SHOWN } } })),
  ]);
  fill(
    "library-summary",
    h("p", {}, library.description ?? ""),
    h(
      "dl",
      { class: "stats" },
      stat("Name", library.name),
      stat("Library version", fmtInt(library.libraryVersion ?? 0)),
      stat("Active lessons", fmtInt(lessons.filter((e) => e.status === "active").length)),
      stat("Subscribers", fmtInt(library.subscribers ?? 0)),
      stat("Created", fmtTime(library.createdAt)),
    ),
  );
  const across = new Map(subscribers.lessons.map((a) => [a.id, a]));
  fill(
    "library-lessons",
    dataTable(
      plural(lessons.length, "lesson"),
      [
        { label: "Id", cell: (e) => e.id, sort: (e) => e.id, id: true },
        { label: "Lesson", cell: (e) => h("span", { class: "text" }, e.text) },
        { label: "Status", cell: (e) => h("span", { class: `badge ${e.status}` }, e.status ?? "—"), sort: (e) => e.status ?? "" },
        {
          label: "Agents using it",
          cell: (e) => fmtInt(across.get(e.id)?.agents ?? 0),
          sort: (e) => across.get(e.id)?.agents ?? 0,
          num: true,
        },
        { label: "Mean Q", cell: (e) => fmtQ(across.get(e.id)?.meanQ), sort: (e) => across.get(e.id)?.meanQ ?? -2, num: true },
        { label: "Uses", cell: (e) => fmtInt(across.get(e.id)?.uses ?? 0), sort: (e) => across.get(e.id)?.uses ?? 0, num: true },
        {
          label: "Successes / failures",
          cell: (e) => `${fmtInt(across.get(e.id)?.successes ?? 0)} / ${fmtInt(across.get(e.id)?.failures ?? 0)}`,
        },
      ],
      lessons,
      { id: "library-lessons-table" },
    ),
  );
  const text = new Map(lessons.map((e) => [e.id, e.text]));
  const rows = subscribers.items.flatMap((s) => s.lessons.map((l) => ({ agentId: s.agentId, weight: s.weight, ...l })));
  fill(
    "library-subscribers",
    subscribers.nextCursor
      ? h("p", { class: "hint" }, `The first ${SUBSCRIBERS_SHOWN} subscribers, by agent id; the lesson figures above are theirs.`)
      : null,
    h(
      "p",
      {},
      `${plural(subscribers.items.length, "agent")} subscribed: `,
      subscribers.items.map((s, i) => [
        i ? ", " : "",
        h("a", { href: agentPage("", s.agentId) }, s.agentId),
        ` (weight ${s.weight}${s.pinVersion === null ? "" : `, pinned to version ${s.pinVersion}`})`,
      ]),
    ),
    dataTable(
      "Per-agent Q",
      [
        { label: "Agent", cell: (r) => h("a", { href: agentPage("", r.agentId) }, r.agentId), sort: (r) => r.agentId },
        { label: "Lesson", cell: (r) => h("span", { class: "text" }, text.get(r.id) ?? r.id), sort: (r) => r.id },
        { label: "Q", cell: (r) => fmtQ(r.q), sort: (r) => r.q, num: true },
        { label: "Retrieved", cell: (r) => fmtInt(r.retrieved), sort: (r) => r.retrieved, num: true },
        { label: "Successes", cell: (r) => fmtInt(r.successes), sort: (r) => r.successes, num: true },
        { label: "Failures", cell: (r) => fmtInt(r.failures), sort: (r) => r.failures, num: true },
        { label: "Last used", cell: (r) => fmtTime(r.lastUsedAt), sort: (r) => r.lastUsedAt ?? 0 },
      ],
      rows,
      { id: "library-subscribers-table" },
    ),
  );
}
