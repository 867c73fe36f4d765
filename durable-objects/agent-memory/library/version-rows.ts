/** The rows one library version writes (library.ts commits them), and what the version tells event receivers. */
import { isHeld } from "../../../src/core/memory-types";
import { parseJson, type AgentEvent } from "../storage/context";
import type { ExperienceSnapshot } from "../storage/rows";

/** What version v tells event receivers about the lessons it touched. */
export function versionEvents(
  sql: SqlStorage,
  v: number,
  touched: Iterable<string>,
): { events: AgentEvent[]; left: number[]; joined: number[] } {
  const events: AgentEvent[] = [];
  // The seqs that left the active set and joined it, so labels follow the version's own changes.
  const left: number[] = [];
  const joined: number[] = [];
  for (const id of touched) {
    const change = sql
      .exec<{ op: string; before: string | null; after: string | null }>(
        "SELECT op, before, after FROM library_changes WHERE version = ? AND experience_id = ?",
        v,
        id,
      )
      .one();
    const was = parseJson<ExperienceSnapshot | null>(change.before, null);
    const now = parseJson<ExperienceSnapshot | null>(change.after, null);
    const wasActive = was?.status === "active";
    const isActive = now?.status === "active";
    if (wasActive && !(isActive && now.seq === was.seq)) left.push(was.seq);
    if (isActive && !(wasActive && was.seq === now.seq)) joined.push(now.seq);
    if (!now) continue;
    const data = { lessonId: id, version: v, source: now.source, status: now.status, text: now.text };
    const event = creationEvent(sql, id, change.op, was, now);
    if (event) events.push({ id: `${event}:${id}`, type: event, data });
    if (now.status === "quarantined" && was?.status !== "quarantined")
      events.push({ id: `lesson.quarantined:${id}:${v}`, type: "lesson.quarantined", data });
  }
  return { events, left, joined };
}

/**
 * The sorted active seqs (the labels) after a version: those that left removed and those that
 * joined merged in, in one pass rather than read again for the whole library.
 */
export function relabelled(active: Float64Array<ArrayBuffer>, left: readonly number[], joined: number[]): Float64Array<ArrayBuffer> {
  const gone = new Set(left);
  const kept = gone.size ? active.filter((s) => !gone.has(s)) : active;
  if (!joined.length) return kept;
  joined.sort((a, b) => a - b);
  const out = new Float64Array(kept.length + joined.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++)
    out[k] = j >= joined.length || (i < kept.length && kept[i]! < joined[j]!) ? kept[i++]! : joined[j++]!;
  return out;
}

/**
 * What a change tells event receivers of a lesson's creation: a lesson created active (or
 * archived) is `lesson.created`; one the screening held is `lesson.held`, and `lesson.created`
 * only when it leaves the hold. A lesson created visible and held by a later edit is not created again.
 */
function creationEvent(
  sql: SqlStorage,
  id: string,
  op: string,
  was: ExperienceSnapshot | null,
  now: ExperienceSnapshot,
): "lesson.created" | "lesson.held" | null {
  if (op === "create") return isHeld(now.status) ? "lesson.held" : "lesson.created";
  if (!was || !isHeld(was.status) || isHeld(now.status)) return null;
  const created = sql
    .exec<{ after: string | null }>(
      "SELECT after FROM library_changes WHERE experience_id = ? AND op = 'create' ORDER BY version LIMIT 1",
      id,
    )
    .toArray()[0];
  const first = parseJson<ExperienceSnapshot | null>(created?.after ?? null, null);
  return first && isHeld(first.status) ? "lesson.created" : null;
}

/** An experience row as a version creates it (or brings it back). */
export function insertExperience(sql: SqlStorage, s: ExperienceSnapshot, now: number, probation = false) {
  sql.exec(
    `INSERT INTO experiences (id, seq, text, pattern, keywords, tags, domain, source, status, pinned, importance, q, provenance, created_at, updated_at, when_text, metadata)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    s.id,
    s.seq,
    s.text,
    s.pattern,
    JSON.stringify(s.keywords),
    JSON.stringify(s.tags),
    s.domain,
    s.source,
    s.status,
    s.pinned ? 1 : 0,
    s.importance,
    s.q,
    s.provenance ? JSON.stringify(s.provenance) : null,
    s.createdAt,
    now,
    s.when ?? null,
    JSON.stringify(s.metadata ?? {}),
  );
  if (probation) sql.exec("UPDATE experiences SET probation = 1 WHERE id = ?", s.id);
}

/** An experience row's content as a version leaves it; its learned state is not content. */
export function updateExperience(sql: SqlStorage, s: ExperienceSnapshot, now: number) {
  sql.exec(
    `UPDATE experiences SET text = ?, pattern = ?, keywords = ?, tags = ?, domain = ?, source = ?, status = ?, pinned = ?,
     importance = ?, seq = ?, updated_at = ?, when_text = ?, metadata = ? WHERE id = ?`,
    s.text,
    s.pattern,
    JSON.stringify(s.keywords),
    JSON.stringify(s.tags),
    s.domain,
    s.source,
    s.status,
    s.pinned ? 1 : 0,
    s.importance,
    s.seq,
    now,
    s.when ?? null,
    JSON.stringify(s.metadata ?? {}),
    s.id,
  );
}
