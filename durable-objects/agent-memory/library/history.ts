import type { ExperienceSnapshot } from "../storage/rows";
import { DomainError } from "../../../src/core/errors";

export interface LibraryVersion {
  version: number;
  reason: string;
  author: string;
  createdAt: number;
  changes: number;
}

export interface LibraryChange {
  id: string;
  op: "create" | "update" | "archive" | "delete" | "restore";
  before: ExperienceSnapshot | null;
  after: ExperienceSnapshot | null;
}

/** Reading the library's history: its versions, the library as it stood after one, and what one changed. */
export function listVersions(sql: SqlStorage, limit: number, before?: number): { items: LibraryVersion[]; nextCursor: string | null } {
  const rows = sql
    .exec<{ version: number; reason: string; author: string; created_at: number; changes: number }>(
      "SELECT * FROM library_versions WHERE version < ? ORDER BY version DESC LIMIT ?",
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray();
  const page = rows
    .slice(0, limit)
    .map((r) => ({ version: r.version, reason: r.reason, author: r.author, createdAt: r.created_at, changes: r.changes }));
  return { items: page, nextCursor: rows.length > limit ? String(page[page.length - 1]!.version) : null };
}

function versionMeta(sql: SqlStorage, n: number): LibraryVersion {
  const r = sql
    .exec<{ version: number; reason: string; author: string; created_at: number; changes: number }>(
      "SELECT * FROM library_versions WHERE version = ?",
      n,
    )
    .toArray()[0];
  if (!r) throw DomainError.notFound(`Library version ${n} does not exist.`);
  return { version: r.version, reason: r.reason, author: r.author, createdAt: r.created_at, changes: r.changes };
}

/** The library exactly as it stood after version n (0 is the empty library). */
export function stateAt(sql: SqlStorage, n: number): ExperienceSnapshot[] {
  if (n !== 0) versionMeta(sql, n);
  return sql
    .exec<{ after: string | null }>(
      `SELECT c.after FROM library_changes c
       JOIN (SELECT experience_id, max(version) AS v FROM library_changes WHERE version <= ? GROUP BY experience_id) m
         ON m.experience_id = c.experience_id AND m.v = c.version`,
      n,
    )
    .toArray()
    .filter((r) => r.after !== null)
    .map((r) => JSON.parse(r.after!) as ExperienceSnapshot)
    .sort((a, b) => a.seq - b.seq);
}

export function versionDetail(sql: SqlStorage, n: number) {
  const meta = versionMeta(sql, n);
  const state = stateAt(sql, n);
  let i = 0;
  const experiences = state.map((s) => ({ ...s, label: s.status === "active" ? `G${i++}` : null }));
  return { ...meta, experiences };
}

export function versionDiff(sql: SqlStorage, n: number): LibraryVersion & { changes: number; diff: LibraryChange[] } {
  const meta = versionMeta(sql, n);
  const diff = sql
    .exec<{ experience_id: string; op: string; before: string | null; after: string | null }>(
      "SELECT experience_id, op, before, after FROM library_changes WHERE version = ? ORDER BY rowid",
      n,
    )
    .toArray()
    .map((r) => ({
      id: r.experience_id,
      op: r.op as LibraryChange["op"],
      before: r.before ? (JSON.parse(r.before) as ExperienceSnapshot) : null,
      after: r.after ? (JSON.parse(r.after) as ExperienceSnapshot) : null,
    }));
  return { ...meta, diff };
}

/**
 * What a lesson has learned (Q, counters, probation; its q_history rows stay under its id) is kept
 * when a version deletes it, so the rollback or import that brings it back brings back what it had
 * learned rather than a fresh 0.5. Only the lesson's own return restores it.
 */
export function retireLearning(sql: SqlStorage, id: string, now: number) {
  sql.exec(
    `INSERT OR REPLACE INTO retired_learning (item_id, text, q, retrieved, cited, uncited, successes, failures, last_used_at, probation, retired_at)
     SELECT id, text, q, retrieved, cited, uncited, successes, failures, last_used_at, probation, ? FROM experiences WHERE id = ?`,
    now,
    id,
  );
}

/**
 * Gives a lesson back what it had learned before it was deleted: always for a rollback (it restores
 * the lesson itself), otherwise only when the text is the one that learned it, so an import cannot
 * borrow a removed lesson's Q for other text under its id.
 */
export function restoreLearning(sql: SqlStorage, id: string, text: string, anyText: boolean): boolean {
  const r = sql.exec<{ text: string }>("SELECT text FROM retired_learning WHERE item_id = ?", id).toArray()[0];
  if (!r) return false;
  if (!anyText && r.text !== text) {
    // Other text under the id starts afresh: what the old text learned is dropped with its history.
    sql.exec("DELETE FROM retired_learning WHERE item_id = ?", id);
    sql.exec("DELETE FROM q_history WHERE item_id = ?", id);
    return false;
  }
  sql.exec(
    `UPDATE experiences SET (q, retrieved, cited, uncited, successes, failures, last_used_at, probation) =
       (SELECT q, retrieved, cited, uncited, successes, failures, last_used_at, probation FROM retired_learning WHERE item_id = ?)
     WHERE id = ?`,
    id,
    id,
  );
  sql.exec("DELETE FROM retired_learning WHERE item_id = ?", id);
  return true;
}

/**
 * Lessons an evaluation of version n must not inject although they were active at n: held now,
 * quarantined by any later version, or removed from quarantine by an admin since.
 */
export function heldSince(sql: SqlStorage, n: number): Set<string> {
  const ids = sql
    .exec<{ id: string }>(
      `SELECT experience_id AS id FROM library_changes WHERE version > ? AND (
         json_extract(after, '$.status') = 'quarantined'
         OR (after IS NULL AND json_extract(before, '$.status') IN ('quarantined', 'pending')))
       UNION SELECT id FROM experiences WHERE status IN ('quarantined', 'pending')
       UNION SELECT item_id AS id FROM removed_lessons`,
      n,
    )
    .toArray()
    .map((r) => r.id);
  return new Set(ids);
}

/**
 * Lessons of version n a subscriber pinned to it must leave out now: those heldSince names, and
 * those the library has deleted or archived since (changed after n and not active now). A lesson
 * only edited since stays, with the text it had at n; one a rollback brought back is active again.
 */
export function withdrawnSince(sql: SqlStorage, n: number): Set<string> {
  const ids = heldSince(sql, n);
  for (const r of sql.exec<{ id: string }>(
    `SELECT DISTINCT experience_id AS id FROM library_changes
     WHERE version > ? AND experience_id NOT IN (SELECT id FROM experiences WHERE status = 'active')`,
    n,
  ))
    ids.add(r.id);
  return ids;
}
