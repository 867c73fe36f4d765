import type { ExperienceContent, LibraryOperation, Provenance } from "../../src/core/memory-types";
import { MemoryError } from "../memory-error";
import type { MemoryContext } from "./context";
import type { RecordResult } from "./idempotency";
import { pickContent, type CommitResult, type Intent, type Library } from "./library";
import { experienceEmbedText, snapshotOf, type ExperienceRow, type ExperienceSnapshot } from "./rows";

export const LIBRARY_EXPORT_FORMAT = "praxis-library/v1";

export interface LibraryExport {
  format: typeof LIBRARY_EXPORT_FORMAT;
  libraryVersion: number;
  exportedAt: number;
  experiences: (ExperienceContent & { id: string; q: number; provenance: Provenance | null })[];
}

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/** Moving a library between agents: an export document out, and back in by merge or replace. */
export function exportLibrary(ctx: MemoryContext, library: Library): LibraryExport {
  const rows = ctx.sql.exec<ExperienceRow>("SELECT * FROM experiences WHERE status <> 'quarantined' ORDER BY seq").toArray();
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
 * `replace` makes this library equal to the exported one (ids, order, content and Q), so an
 * export imported elsewhere exports back identically. `merge` adds only experiences whose text
 * is not already present, with fresh ids. Both are planned against the library as it stands when
 * the version commits.
 */
export function importLibrary(
  ctx: MemoryContext,
  library: Library,
  doc: LibraryExport,
  mode: "merge" | "replace",
  author: string,
  record?: RecordResult<CommitResult>,
): Promise<CommitResult> {
  if (mode === "merge") {
    return library.commit(() => library.resolve(mergeOps(ctx, doc), null), (intents) => `import (merge) of ${intents.length} experiences`, author, record);
  }
  const ids = doc.experiences.map((e) => e.id);
  if (new Set(ids).size !== ids.length) throw MemoryError.invalid("The export contains duplicate ids.");
  return library.commit(() => replacePlan(ctx, library, doc), `import (replace) of ${ids.length} experiences`, author, record);
}

function replacePlan(ctx: MemoryContext, library: Library, doc: LibraryExport): Intent[] {
  const incoming = new Set(doc.experiences.map((e) => e.id));
  const intents: Intent[] = ctx.sql
    .exec<{ id: string }>("SELECT id FROM experiences")
    .toArray()
    .filter((r) => !incoming.has(r.id))
    .map((r) => ({ kind: "delete", id: r.id }));
  const now = ctx.now();
  for (const e of doc.experiences) {
    const after: ExperienceSnapshot = {
      ...pickContent(e),
      id: e.id,
      seq: 0,
      q: e.q,
      provenance: e.provenance,
      createdAt: library.row(e.id)?.created_at ?? now,
    };
    intents.push({ kind: "put", id: e.id, after, embedText: experienceEmbedText(after), reseq: true });
  }
  return intents;
}

function mergeOps(ctx: MemoryContext, doc: LibraryExport): LibraryOperation[] {
  const known = new Set(ctx.sql.exec<{ text: string }>("SELECT text FROM experiences").toArray().map((r) => normalise(r.text)));
  const ops: LibraryOperation[] = [];
  for (const e of doc.experiences) {
    if (known.has(normalise(e.text))) continue;
    known.add(normalise(e.text));
    ops.push({ op: "create", experience: { ...pickContent(e), q: e.q, ...(e.provenance ? { provenance: e.provenance } : {}) } });
  }
  return ops;
}
