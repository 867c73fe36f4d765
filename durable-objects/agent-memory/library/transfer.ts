import { isHeld, type ExperienceContent, type LibraryOperation, type Provenance } from "../../../src/core/memory-types";
import { DomainError } from "../../../src/core/errors";
import type { MemoryContext } from "../storage/context";
import type { RecordResult } from "../storage/idempotency";
import type { CommitResult, Intent, Library } from "./library";
import { pickContent } from "./experience-content";
import { experienceEmbedText, snapshotOf, type ExperienceRow, type ExperienceSnapshot } from "../storage/rows";
import type { ScreeningPolicy } from "../screening/screen";
import { textKey, tombstones } from "../screening/tombstones";

export const LIBRARY_EXPORT_FORMAT = "praxis-library/v1";

export interface LibraryExport {
  format: typeof LIBRARY_EXPORT_FORMAT;
  libraryVersion: number;
  exportedAt: number;
  experiences: (ExperienceContent & { id: string; q: number; provenance: Provenance | null })[];
}

/** Moving a library between agents: an export document out, and back in by merge or replace. */
export function exportLibrary(ctx: MemoryContext, library: Library): LibraryExport {
  const rows = ctx.sql.exec<ExperienceRow>("SELECT * FROM experiences WHERE status IN ('active', 'archived') ORDER BY seq").toArray();
  return {
    format: LIBRARY_EXPORT_FORMAT,
    libraryVersion: library.currentVersion(),
    exportedAt: ctx.now(),
    experiences: rows.map((r) => {
      const s = snapshotOf(r);
      return { id: s.id, ...pickContent(s), q: s.q, provenance: s.provenance };
    }),
  };
}

/**
 * `replace` makes this library equal to the exported one (order, content, and Q when an admin
 * key imports), keeping an experience's id only where it is this service's experience id, which
 * no other kind of memory can carry: a crafted id could otherwise land on a case's vector.
 * `merge` adds only experiences whose text is not already present, with fresh ids. Either way
 * every imported text passes screening, arrives with source `import` and only the `importedFrom`
 * and note of its provenance, and an exported live lesson starts on probation again; entries held
 * in quarantine here are left to their review, and lessons an admin removed from it are skipped.
 * Both are planned against the library as it stands when the version commits.
 */
export function importLibrary(
  ctx: MemoryContext,
  library: Library,
  doc: LibraryExport,
  mode: "merge" | "replace",
  author: string,
  record?: RecordResult<CommitResult>,
  admin = false,
  reviewed = false,
): Promise<CommitResult> {
  const held = doc.experiences.findIndex((e) => isHeld(e.status));
  if (held >= 0) {
    throw DomainError.unprocessable(
      `Experience ${held} of the export is '${doc.experiences[held]!.status}'; an import brings active or archived experiences.`,
      [{ path: ["library", "experiences", held, "status"], message: "Use 'active' or 'archived'" }],
    );
  }
  const screening: ScreeningPolicy = { door: "import", admin, ...(reviewed ? { reviewed } : {}) };
  // What an admin removed from quarantine here does not come back by import, under its id or its text.
  const removed = tombstones(ctx.sql);
  const buried = doc.experiences.filter((e) => removed.buries(e)).length;
  const skipped = buried ? `; ${buried} skipped (removed from quarantine by an admin)` : "";
  doc = buried ? { ...doc, experiences: doc.experiences.filter((e) => !removed.buries(e)) } : doc;
  if (mode === "merge") {
    return library.commit(
      () => library.resolve(mergeOps(ctx, doc), null, screening),
      (intents) => `import (merge) of ${intents.length} experiences${skipped}`,
      author,
      record,
      { screening },
    );
  }
  const ids = doc.experiences.map((e) => e.id);
  if (new Set(ids).size !== ids.length) throw DomainError.unprocessable("The export contains duplicate ids.");
  return library.commit(
    () => replacePlan(ctx, library, doc, admin),
    `import (replace) of ${ids.length} experiences${skipped}`,
    author,
    record,
    { screening },
  );
}

const OWN_ID_RE = /^exp_[A-Za-z0-9]{8,40}$/;

function replacePlan(ctx: MemoryContext, library: Library, doc: LibraryExport, admin: boolean): Intent[] {
  const heldIds = new Set(
    ctx.sql
      .exec<{ id: string }>("SELECT id FROM experiences WHERE status IN ('quarantined', 'pending')")
      .toArray()
      .map((r) => r.id),
  );
  // Fresh ids are drawn once per plan run and kept by position, so the plan's second run (inside
  // the transaction) names the same experiences as its first.
  const ids = doc.experiences.map((e, i) => (OWN_ID_RE.test(e.id) && !heldIds.has(e.id) ? e.id : freshIds(ctx, doc)[i]!));
  const incoming = new Set(ids);
  const intents: Intent[] = ctx.sql
    .exec<{ id: string }>("SELECT id FROM experiences")
    .toArray()
    .filter((r) => !incoming.has(r.id) && !heldIds.has(r.id))
    .map((r) => ({ kind: "delete", id: r.id }));
  const now = ctx.now();
  doc.experiences.forEach((e, i) => {
    const id = ids[i]!;
    const existing = library.row(id);
    const after: ExperienceSnapshot = {
      ...pickContent(e),
      id,
      seq: 0,
      source: "import",
      q: admin ? e.q : (existing?.q ?? ctx.config().defaultQ),
      provenance: imported(e),
      createdAt: existing?.created_at ?? now,
    };
    intents.push({
      kind: "put",
      id,
      after,
      embedText: experienceEmbedText(after),
      reseq: true,
      probation: e.source === "live",
      setQ: admin,
    });
  });
  return intents;
}

const fresh = new WeakMap<LibraryExport, string[]>();
function freshIds(ctx: MemoryContext, doc: LibraryExport): string[] {
  let ids = fresh.get(doc);
  if (!ids) fresh.set(doc, (ids = doc.experiences.map(() => ctx.newId("exp"))));
  return ids;
}

/**
 * Where an imported experience came from, kept beside the source the service stamps, and its note:
 * nothing else of the document's provenance. A run, episode or key it names belongs to another
 * agent (or was forged), and an `origin` would count it among a practice run's lessons here.
 */
const imported = (e: LibraryExport["experiences"][number]): Provenance => ({
  ...(e.provenance?.note ? { note: e.provenance.note } : {}),
  importedFrom: (e.provenance?.importedFrom ?? `library export (source ${e.source}${e.id ? `, id ${e.id}` : ""})`).slice(0, 200),
});

function mergeOps(ctx: MemoryContext, doc: LibraryExport): LibraryOperation[] {
  const known = new Set(
    ctx.sql
      .exec<{ text: string }>("SELECT text FROM experiences")
      .toArray()
      .map((r) => textKey(r.text)),
  );
  const ops: LibraryOperation[] = [];
  for (const e of doc.experiences) {
    if (known.has(textKey(e.text))) continue;
    known.add(textKey(e.text));
    ops.push({ op: "create", experience: { ...pickContent(e), q: e.q, provenance: imported(e) } });
  }
  return ops;
}
