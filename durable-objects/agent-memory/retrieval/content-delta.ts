import type { MemoryKind } from "../../../src/core/memory-types";
import { PROBATION } from "../../../src/core/probation";
import type { Metadata } from "../../../src/core/served-fields";
import type { SnapshotCase, SnapshotLesson } from "../../../src/core/ranking/snapshot";
import type { ContentDelta, LexicalDelta } from "../../../src/core/ranking/snapshot-delta";
import { parseJson, type MemoryContext } from "../storage/context";
import type { CaseRow } from "../storage/rows";
import { caseText } from "./retrieval";
import { ftsAverages } from "./fts-statistics";
import { LEXICAL_MAX_TERM_DOCS } from "../../../src/core/lexical";

type LessonRow = {
  id: string;
  seq: number;
  text: string;
  q: number;
  tags: string;
  metadata: string;
  domain: string | null;
  created_at: number;
  last_used_at: number | null;
  probation: number;
  retrieved: number;
};

/**
 * The active rows of the ids bound as a JSON array, found by id: the `+` keeps SQLite from walking
 * the status index (every active row) to pick a few out.
 */
export const ACTIVE_OF_IDS = "id IN (SELECT value FROM json_each(?)) AND +status = 'active'";

const activeAmong = (ids?: readonly string[]) => (ids ? ACTIVE_OF_IDS : "status = 'active'");

/**
 * The rows of an FTS table's content table, every status, counted only as far as decides whether
 * every query word is matched (chosenTerms): a count of every row visits the whole table.
 */
export const contentRowsOf = (sql: SqlStorage, table: string) =>
  sql.exec<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} LIMIT ?)`, LEXICAL_MAX_TERM_DOCS + 1).one().n;

/** Active lessons (all, or those of `ids`) by seq, as a snapshot holds them but for their label. */
export function activeLessons(sql: SqlStorage, ids?: readonly string[]): Omit<SnapshotLesson, "label">[] {
  return sql
    .exec<LessonRow>(
      `SELECT id, seq, text, q, tags, metadata, domain, created_at, last_used_at, probation, retrieved FROM experiences WHERE ${activeAmong(ids)} ORDER BY seq`,
      ...(ids ? [JSON.stringify(ids)] : []),
    )
    .toArray()
    .map((r) => ({
      id: r.id,
      seq: r.seq,
      text: r.text,
      q: r.q,
      tags: JSON.parse(r.tags) as string[],
      metadata: parseJson<Metadata>(r.metadata, {}),
      domain: r.domain,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      probation: r.probation !== PROBATION.trusted,
      explore: r.probation === PROBATION.exploring,
      uses: r.retrieved,
    }));
}

/** Active cases (all, or those of `ids`) by seq, as a snapshot holds them. */
export function activeCases(sql: SqlStorage, ids?: readonly string[]): SnapshotCase[] {
  return sql
    .exec<CaseRow>(`SELECT * FROM cases WHERE ${activeAmong(ids)} ORDER BY seq`, ...(ids ? [JSON.stringify(ids)] : []))
    .toArray()
    .map((r) => ({
      id: r.id,
      seq: r.seq,
      text: caseText(r),
      q: r.q,
      tags: JSON.parse(r.tags) as string[],
      metadata: parseJson<Metadata>(r.metadata, {}),
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      uses: r.retrieved,
      informative: r.answer !== null || r.trace_summary !== null,
    }));
}

/**
 * Each text's FTS5 tokens, as the FTS tables (same tokenizer) index it: its term frequencies and
 * length. The texts pass through a scratch table, emptied again before this returns.
 */
function tokenized(sql: SqlStorage, texts: readonly string[]): { length: number; terms: Map<string, number> }[] {
  const out = texts.map(() => ({ length: 0, terms: new Map<string, number>() }));
  if (!texts.length) return out;
  sql.exec("INSERT INTO read_scratch_fts (rowid, body) SELECT key + 1, value FROM json_each(?)", JSON.stringify(texts));
  for (const r of sql.exec<{ term: string; doc: number; tf: number }>(
    "SELECT term, doc, count(*) AS tf FROM read_scratch_instances GROUP BY term, doc",
  )) {
    const t = out[r.doc - 1]!;
    t.terms.set(r.term, r.tf);
    t.length += r.tf;
  }
  sql.exec("DELETE FROM read_scratch_fts");
  return out;
}

/**
 * One FTS table's delta from the changed items' texts in the table before (at the Worker's
 * version) and now (null: none), with `row` set for those searchable now. A term's row count moved
 * by its texts now less its texts before; the terms of either are the ones whose posting lists the
 * Worker builds again, and the searchable rows' texts now are what it adds.
 */
function lexicalDelta(
  sql: SqlStorage,
  fts: string,
  contentRows: number | null,
  texts: readonly { before: string | null; now: string | null; row: number | null }[],
): LexicalDelta {
  const nowTexts = texts.filter((t) => t.now !== null);
  const beforeTexts = texts.flatMap((t) => (t.before === null ? [] : [t.before]));
  // One pass through the scratch table: every text now, then every text before.
  const all = tokenized(sql, [...nowTexts.map((t) => t.now!), ...beforeTexts]);
  const moved = new Map<string, number>();
  all.forEach((t, i) => {
    const by = i < nowTexts.length ? 1 : -1;
    for (const term of t.terms.keys()) moved.set(term, (moved.get(term) ?? 0) + by);
  });
  return {
    ...ftsAverages(sql, fts),
    contentRows,
    moved: [...moved],
    add: nowTexts.flatMap((t, i) => (t.row === null ? [] : [[t.row, all[i]!.length, [...all[i]!.terms]] as LexicalDelta["add"][number]])),
  };
}

/**
 * What changed as content since `since` (at least the read floor), as it is now; null when more
 * than `maxItems` items changed (a snapshot then costs less than the delta). The caller has embedded
 * pending `when`s first, and this reads in one synchronous pass, so the delta is of one version.
 */
export function contentDelta(
  ctx: MemoryContext,
  since: number,
  maxItems: number,
  head: Omit<ContentDelta, "removed" | "lessons" | "cases" | "vectors" | "whens" | "unembedded" | "lexical">,
  parts: {
    whenCodes: (ids: readonly string[]) => { id: string; code: Uint8Array }[];
    unembedded: (kind: MemoryKind) => { id: string; text: string }[];
  },
): ContentDelta | null {
  const sql = ctx.sql;
  const changed = sql
    .exec<{ item_id: string }>("SELECT item_id FROM read_content_changes WHERE seq > ? LIMIT ?", since, maxItems + 1)
    .toArray()
    .map((r) => r.item_id);
  if (changed.length > maxItems) return null;
  const lessons = activeLessons(sql, changed);
  const cases = activeCases(sql, changed);
  // Each changed item's text in each table at `since`: the first logged after it, else the same as now.
  const before = new Map<string, string | null>();
  for (const r of sql.exec<{ fts: string; item_id: string; body: string | null }>(
    "SELECT fts, item_id, body FROM read_fts_log WHERE seq > ? ORDER BY seq, rowid",
    since,
  )) {
    const key = `${r.fts}\n${r.item_id}`;
    if (!before.has(key)) before.set(key, r.body);
  }
  // An item whose text stayed moves no count, but its terms' lists still drop or take its row (an archive, a restore).
  const texts = (fts: string, now: ReadonlyMap<string, string | null>, searchable: ReadonlyMap<string, number>) =>
    changed.map((id) => {
      const key = `${fts}\n${id}`;
      const current = now.get(id) ?? null;
      const row = current === null ? null : (searchable.get(id) ?? null);
      return { before: before.has(key) ? before.get(key)! : current, now: current, row };
    });
  const lessonRow = new Map(lessons.map((l) => [l.id, l.seq] as const));
  const caseRow = new Map(cases.map((c) => [c.id, c.seq] as const));
  const lessonRows = sql
    .exec<{ id: string; body: string; when_text: string | null }>(
      "SELECT id, text || char(10) || coalesce(pattern, '') || char(10) || keywords AS body, when_text FROM experiences WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(changed),
    )
    .toArray();
  const lessonBody = new Map(lessonRows.map((r) => [r.id, r.body] as const));
  const lessonWhen = new Map(lessonRows.map((r) => [r.id, r.when_text] as const));
  const caseTasks = new Map(
    sql
      .exec<{ id: string; task: string }>(
        "SELECT id, task FROM cases WHERE id IN (SELECT value FROM json_each(?))",
        JSON.stringify(changed),
      )
      .toArray()
      .map((r) => [r.id, r.task] as const),
  );
  const lexical = {
    experience: lexicalDelta(sql, "experiences_fts", contentRowsOf(sql, "experiences"), texts("experience", lessonBody, lessonRow)),
    case: lexicalDelta(sql, "cases_fts", contentRowsOf(sql, "cases"), texts("case", caseTasks, caseRow)),
    when: lexicalDelta(sql, "when_fts", null, texts("when", lessonWhen, lessonRow)),
  };
  const codes = (kind: MemoryKind) => ctx.vectors.localCodesOf(kind, changed) ?? { ids: [], codes: new Uint8Array(0) };
  return {
    ...head,
    removed: changed.filter((id) => !lessonRow.has(id) && !caseRow.has(id)),
    lessons,
    cases,
    vectors: { experience: codes("experience"), case: codes("case") },
    whens: parts.whenCodes(lessons.map((l) => l.id)).map((w) => ({ ...w, factor: 1 })),
    unembedded: { experience: parts.unembedded("experience"), case: parts.unembedded("case") },
    lexical,
  };
}
