import type { MemoryContext } from "../storage/context";

/** How a lesson's text is recognised again whatever its spacing or case (an import's copy of a removed lesson). */
export const textKey = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * What an admin removed from quarantine stays removed: a rollback to a version that held it, or an
 * import that carries its id or its text, does not bring it back. Written before the delete, so a
 * crash in between leaves a tombstone beside a still-held entry (which release clears), never a
 * removal without one.
 */
export function buryLesson(ctx: MemoryContext, id: string, text: string, reason: string, author: string) {
  ctx.sql.exec(
    `INSERT INTO removed_lessons (item_id, text_key, reason, author, at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(item_id) DO UPDATE SET text_key = excluded.text_key, reason = excluded.reason, author = excluded.author, at = excluded.at`,
    id,
    textKey(text),
    reason.slice(0, 1000),
    author,
    ctx.now(),
  );
}

/** An admin released the entry: whatever tombstone it had no longer stands. */
export function unbury(ctx: MemoryContext, id: string) {
  ctx.sql.exec("DELETE FROM removed_lessons WHERE item_id = ?", id);
}

export interface Tombstones {
  ids: Set<string>;
  texts: Set<string>;
  /** Whether a lesson with this id or text was removed by an admin. */
  buries(e: { id?: string; text: string }): boolean;
}

export function tombstones(sql: SqlStorage): Tombstones {
  const rows = sql.exec<{ item_id: string; text_key: string }>("SELECT item_id, text_key FROM removed_lessons").toArray();
  const ids = new Set(rows.map((r) => r.item_id));
  const texts = new Set(rows.map((r) => r.text_key));
  return { ids, texts, buries: (e) => (e.id !== undefined && ids.has(e.id)) || texts.has(textKey(e.text)) };
}
