import {
  applyPhrase,
  decodeCentroid,
  encodeCentroid,
  learnedText,
  phraseMatch,
  reviewPhrases,
  updateCentroid,
  centroidFactor,
  USAGE_SCAN_WIDTH,
  phraseFade,
  type LearnedPhrase,
} from "../../../src/core/usage-memory";
import { ftsMatchOf } from "../../../src/core/lexical";
import { CodeScan } from "../../../src/core/ranking/code-scan";
import int8Scan from "../../../src/adapters/vector-indexes/int8-scan.wasm";
import type { Fade } from "../../../src/core/usage-memory";
import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";
import { filterSql } from "./memory-filter";
import type { MemoryContext } from "../storage/context";

type UsageRow = {
  seq: number;
  item_id: string;
  kind: string;
  phrases: string;
  model: string | null;
  centroid: ArrayBuffer | null;
  norm: number;
  n: number;
};

/** One memory's share of a rewarded retrieval: positive teaches its query, negative weakens it. */
export interface UsageCredit {
  id: string;
  kind: MemoryKind;
  credit: number;
}

/**
 * The usage channel's storage: per memory, the queries it served (learned phrases, FTS5-indexed in
 * usage_fts) and their centroid. Centroids of the active embedder are held in memory once read
 * (a CodeScan per kind: their directions, each with its length times its count discount, see
 * usageSimilarity), since the vector channel scores all of them on every retrieval.
 */
export class UsageMemory {
  private cache: { model: string; byKind: Map<MemoryKind, CodeScan> } | null = null;
  /** Whether anything was learned yet; until then retrieval skips the usage channels entirely. */
  private any: boolean | null = null;

  constructor(private readonly ctx: MemoryContext) {}

  /** The centroids of `kind` under the active embedder, as the vector channel scans them. */
  centroids(kind: MemoryKind): CodeScan {
    const model = this.ctx.vectors.model;
    if (!this.cache || this.cache.model !== model) {
      const byKind = new Map<MemoryKind, CodeScan>([
        ["experience", new CodeScan(int8Scan)],
        ["case", new CodeScan(int8Scan)],
      ]);
      for (const r of this.ctx.sql.exec<UsageRow>("SELECT * FROM usage_memory WHERE model = ? AND centroid IS NOT NULL", model)) {
        byKind.get(r.kind as MemoryKind)?.set(r.item_id, new Uint8Array(r.centroid!), centroidFactor(r.norm, r.n));
      }
      this.cache = { model, byKind };
    }
    return this.cache.byKind.get(kind)!;
  }

  get empty(): boolean {
    this.any ??= this.ctx.sql.exec("SELECT 1 FROM usage_memory LIMIT 1").toArray().length > 0;
    return !this.any;
  }

  /** How a memory's phrases fade (see phraseFade). */
  private fade(q: number, uses: number): Fade {
    return phraseFade(this.ctx.config().decay, this.ctx.now(), q, uses);
  }

  /** Usage-centroid similarity of the memories of `kind` whose centroid reaches `threshold` (of the USAGE_SCAN_WIDTH·k closest directions). */
  similar(query: Float32Array, kind: MemoryKind, threshold: number, k: number): Map<string, number> {
    return this.centroids(kind).similar(query, threshold, USAGE_SCAN_WIDTH * k);
  }

  /** Usage-centroid similarity of these memories (0 for one without a centroid). */
  similarities(query: Float32Array, kind: MemoryKind, ids: readonly string[]): Map<string, number> {
    return this.centroids(kind).similarities(query, ids);
  }

  /**
   * Memories of `kind` (active, and matching the retrieval's filter) with a learned phrase that matches the
   * query's terms, scored by phraseMatch. FTS5 finds the phrases sharing a word; BM25 cannot score
   * them, since while few memories have phrases every word is "common" among them. Every phrase it
   * finds is scored (a match needs a shared word, so none outside FTS5's set can score): the best
   * `limit` depend on the phrases alone, as they do where a snapshot of them is ranked (src/core/ranking).
   */
  matches(kind: MemoryKind, terms: readonly string[], limit: number, now: number, filter?: MemoryFilter): { id: string; score: number }[] {
    const match = ftsMatchOf(terms);
    if (!match) return [];
    const table = kind === "experience" ? "experiences" : "cases";
    const where = filterSql(filter, kind);
    return this.ctx.sql
      .exec<{ id: string; phrases: string; q: number; uses: number }>(
        // CROSS JOIN keeps this order (SQLite does not reorder it): the phrase index drives, never a scan of the memories.
        `SELECT u.item_id AS id, u.phrases AS phrases, t.q AS q, t.retrieved AS uses FROM usage_fts CROSS JOIN usage_memory u ON u.seq = usage_fts.rowid
         CROSS JOIN ${table} t ON t.id = u.item_id
         WHERE usage_fts MATCH ? AND u.kind = ? AND t.status = 'active'${where.sql}`,
        match,
        kind,
        ...where.params,
      )
      .toArray()
      .map((r) => ({
        id: r.id,
        score: phraseMatch(terms, JSON.parse(r.phrases) as LearnedPhrase[], phraseFade(this.ctx.config().decay, now, r.q, r.uses)),
      }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }

  /**
   * Records a rewarded retrieval's query (its `learnablePhrase` and embedding) against the memories
   * it credits; runs inside the reward's transaction.
   */
  learn(phrase: string | null, queryVec: Float32Array | null, credits: readonly UsageCredit[]): void {
    // And, like lesson text, a new phrase waits for the LLM safety review when one is configured.
    const pending = this.ctx.reviewAvailable();
    const now = this.ctx.now();
    const model = this.ctx.vectors.model;
    for (const { id, kind, credit } of credits) {
      if (!credit) continue;
      const row = this.ctx.sql.exec<UsageRow>("SELECT * FROM usage_memory WHERE item_id = ?", id).toArray()[0];
      if (!row && credit < 0) continue;
      const memory = this.ctx.sql
        .exec<{ q: number; uses: number }>(
          `SELECT q, retrieved AS uses FROM ${kind === "experience" ? "experiences" : "cases"} WHERE id = ?`,
          id,
        )
        .toArray()[0];
      const phrases = phrase
        ? applyPhrase(
            JSON.parse(row?.phrases ?? "[]") as LearnedPhrase[],
            phrase,
            credit,
            now,
            memory ? this.fade(memory.q, memory.uses) : undefined,
            pending,
          )
        : (JSON.parse(row?.phrases ?? "[]") as LearnedPhrase[]);
      const old = row?.centroid && row.model === model ? decodeCentroid(new Uint8Array(row.centroid), row.norm, row.n) : null;
      const centroid = queryVec ? updateCentroid(old, queryVec, credit) : old;
      const stored = centroid ? encodeCentroid(centroid) : null;
      const seq = this.ctx.sql
        .exec<{ seq: number }>(
          `INSERT INTO usage_memory (item_id, kind, phrases, model, centroid, norm, n, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(item_id) DO UPDATE SET phrases = excluded.phrases, model = excluded.model, centroid = excluded.centroid,
             norm = excluded.norm, n = excluded.n, updated_at = excluded.updated_at
           RETURNING seq`,
          id,
          kind,
          JSON.stringify(phrases),
          stored ? model : null,
          stored?.code ?? null,
          stored?.norm ?? 0,
          stored?.n ?? 0,
          now,
        )
        .one().seq;
      this.any = true;
      this.index(seq, phrases);
      if (this.cache?.model === model) {
        const cached = this.cache.byKind.get(kind)!;
        if (centroid && stored) cached.set(id, stored.code, centroidFactor(stored.norm, stored.n));
        else cached.delete(id);
      }
    }
  }

  private index(seq: number, phrases: readonly LearnedPhrase[]): void {
    this.ctx.sql.exec("DELETE FROM usage_fts WHERE rowid = ?", seq);
    const text = learnedText(phrases);
    if (text) this.ctx.sql.exec("INSERT INTO usage_fts (rowid, learned) VALUES (?, ?)", seq, text);
  }

  /** Phrases waiting for the safety review, oldest first: the memory they belong to and their text. */
  pendingPhrases(limit: number): { itemId: string; text: string }[] {
    const out: { itemId: string; text: string }[] = [];
    for (const r of this.ctx.sql.exec<{ item_id: string; phrases: string }>(
      `SELECT item_id, phrases FROM usage_memory WHERE EXISTS (SELECT 1 FROM json_each(phrases) WHERE json_extract(value, '$.pending') = 1) ORDER BY updated_at, seq`,
    )) {
      for (const p of JSON.parse(r.phrases) as LearnedPhrase[])
        if (p.pending && out.length < limit) out.push({ itemId: r.item_id, text: p.text });
      if (out.length >= limit) break;
    }
    return out;
  }

  countPendingPhrases(): number {
    return this.ctx.sql
      .exec<{ n: number }>(
        "SELECT count(*) AS n FROM usage_memory, json_each(usage_memory.phrases) WHERE json_extract(value, '$.pending') = 1",
      )
      .one().n;
  }

  /** Admits the phrases the review found safe and forgets the others; a phrase gone meanwhile is skipped. */
  applyPhraseReviews(verdicts: readonly { itemId: string; text: string; safe: boolean }[]): { admitted: number; rejected: number } {
    const byItem = new Map<string, Map<string, boolean>>();
    for (const v of verdicts) (byItem.get(v.itemId) ?? byItem.set(v.itemId, new Map()).get(v.itemId)!).set(v.text, v.safe);
    let admitted = 0;
    let rejected = 0;
    this.ctx.storage.transactionSync(() => {
      for (const [itemId, judged] of byItem) {
        const row = this.ctx.sql
          .exec<{ seq: number; phrases: string }>("SELECT seq, phrases FROM usage_memory WHERE item_id = ?", itemId)
          .toArray()[0];
        if (!row) continue;
        const before = JSON.parse(row.phrases) as LearnedPhrase[];
        for (const p of before) if (p.pending && judged.has(p.text)) judged.get(p.text) ? admitted++ : rejected++;
        const after = reviewPhrases(before, judged);
        this.ctx.sql.exec("UPDATE usage_memory SET phrases = ? WHERE seq = ?", JSON.stringify(after), row.seq);
        this.index(row.seq, after);
      }
    });
    return { admitted, rejected };
  }

  /** What usage memory holds, for GET /retriever. */
  summary(): { memories: number; phrases: number; pendingPhrases: number; centroids: number } {
    const r = this.ctx.sql
      .exec<{ memories: number; phrases: number | null; centroids: number | null }>(
        "SELECT count(*) AS memories, sum(json_array_length(phrases)) AS phrases, sum(centroid IS NOT NULL) AS centroids FROM usage_memory",
      )
      .one();
    return { memories: r.memories, phrases: r.phrases ?? 0, pendingPhrases: this.countPendingPhrases(), centroids: r.centroids ?? 0 };
  }

  /** A memory's learned phrases (the words the lexical channel now also matches it on). */
  phrasesOf(id: string): LearnedPhrase[] {
    const row = this.ctx.sql.exec<{ phrases: string }>("SELECT phrases FROM usage_memory WHERE item_id = ?", id).toArray()[0];
    return row ? (JSON.parse(row.phrases) as LearnedPhrase[]) : [];
  }

  /** Drops the in-memory centroids; the next retrieval reads them from storage again. */
  forgetCache(): void {
    this.cache = null;
    this.any = null;
  }

  clear(): void {
    this.ctx.sql.exec("DELETE FROM usage_memory");
    this.ctx.sql.exec("DELETE FROM usage_fts");
    this.cache = null;
    this.any = false;
  }
}
