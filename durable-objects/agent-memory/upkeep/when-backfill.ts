import type { MemoryContext } from "../storage/context";
import type { Library } from "../library/library";

/**
 * The DO's side of the background job that writes a `when` for lessons without one
 * (src/learning/when-writer.ts). when_asked remembers which lesson text was asked about, so a
 * lesson whose `when` the review rejected is not asked about again until its text changes.
 */
export function lessonsWithoutWhen(ctx: MemoryContext, limit: number) {
  const eligible = `FROM experiences e WHERE e.status = 'active' AND e.when_text IS NULL
    AND NOT EXISTS (SELECT 1 FROM when_asked a WHERE a.item_id = e.id AND a.text = e.text)`;
  const items = ctx.sql
    .exec<{ id: string; text: string; pattern: string | null }>(
      `SELECT e.id AS id, e.text AS text, e.pattern AS pattern ${eligible} ORDER BY e.seq LIMIT ?`,
      limit,
    )
    .toArray();
  const remaining = ctx.sql.exec<{ n: number }>(`SELECT count(*) AS n ${eligible}`).one().n;
  return { items, remaining };
}

export const anyLessonWithoutWhen = (ctx: MemoryContext) => lessonsWithoutWhen(ctx, 1).items.length > 0;

/**
 * Writes the reviewed `when`s as one library version and marks every lesson of the batch as
 * asked. A lesson whose text or `when` changed since it was read keeps what it has now.
 */
export async function applyWhen(
  ctx: MemoryContext,
  library: Library,
  written: readonly { id: string; text: string; when: string }[],
  asked: readonly { id: string; text: string }[],
) {
  const current = (id: string) =>
    ctx.sql
      .exec<{ text: string; when_text: string | null; status: string }>("SELECT text, when_text, status FROM experiences WHERE id = ?", id)
      .toArray()[0];
  const fresh = written.filter((w) => {
    const now = current(w.id);
    return now?.status === "active" && now.text === w.text && now.when_text === null;
  });
  ctx.storage.transactionSync(() => {
    for (const a of asked)
      ctx.sql.exec(
        "INSERT INTO when_asked (item_id, text) VALUES (?, ?) ON CONFLICT(item_id) DO UPDATE SET text = excluded.text",
        a.id,
        a.text,
      );
  });
  if (fresh.length) {
    await library.apply(
      fresh.map((w) => ({ op: "update" as const, id: w.id, patch: { when: w.when } })),
      // The writer ran the filter and the safety review on each `when` with its lesson.
      {
        reason: `situations written for ${fresh.length} lesson${fresh.length === 1 ? "" : "s"}`,
        author: "system:when",
        screening: { door: "review", internal: true, reviewed: true },
      },
    );
  }
  return { written: fresh.length, stale: written.length - fresh.length };
}
