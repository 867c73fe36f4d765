import { fuseRanks, rank } from "../../src/core/scoring";
import { DEFAULT_SIMILARITY_THRESHOLD } from "../../src/adapters/embedder";
import { discriminativeTerms, ftsMatchOf, ftsTerms, LEXICAL_MAX_TERM_DOCS, lexicalSimilarity } from "../../src/core/lexical";
import { tokenize } from "../../src/core/hash-embedder";
import type { MemoryKind, RetrieveRequest, RetrieveResponse, RetrievedItem } from "../../src/core/memory-types";
import { chunks, placeholders, type MemoryContext } from "./context";
import type { Library } from "./library";
import { experienceEmbedText, type CaseRow } from "./rows";

interface CandidateInfo {
  id: string;
  kind: MemoryKind;
  text: string;
  q: number;
  tags: string[];
  label: string | null;
  probation: boolean;
  match: "vector" | "lexical";
  channels: Channel[];
  sim: number;
  lexical: number;
  relevance: number;
}

type Channel = "vector" | "lexical";

/** What phase A knows of an item before hydration: its channel scores (0 where a channel did not find it). */
interface Found {
  kind: MemoryKind;
  match: "vector" | "lexical";
  channels: Channel[];
  sim: number;
  lexical: number;
  relevance: number;
}

export interface EmbeddedQuery {
  text: string;
  vec: Float32Array;
}

export interface RecordedItem {
  id: string;
  kind: MemoryKind;
  score?: number;
  label?: string | null;
  citeOnly?: boolean;
}

/** Two-phase retrieval: similarity, then utility-aware re-ranking. */
export class Retrieval {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
  ) {}

  lambda(req: { phase?: RetrieveRequest["phase"]; lambda?: number }): number {
    const table = this.ctx.config().lambda;
    return req.lambda ?? (req.phase ? table[req.phase] : table.default);
  }

  /** Embeds a query once; a remote embedder makes this a network call, so callers reuse it. */
  async embedQuery(text: string): Promise<EmbeddedQuery> {
    const [vec] = await this.ctx.vectors.embed([text]);
    return { text, vec: vec! };
  }

  /**
   * Phase A, hybrid: the vector channel (items at or above the similarity threshold; items without
   * a vector of the active model yet stand in with token-set similarity) and the lexical channel
   * (BM25 over the active items sharing one of the query's discriminative words, see
   * discriminativeTerms) are fused by rank into one relevance. An item either channel finds is a
   * candidate, so a lesson that shares the query's rare words is found even when its cosine falls
   * below the threshold, and a paraphrase without shared words is found by the vector channel alone.
   */
  private async candidates(query: EmbeddedQuery, kinds: MemoryKind[], k1: number, threshold: number, tags?: string[]) {
    const qvec = query.vec;
    const vector: { id: string; kind: MemoryKind; sim: number; stand: boolean }[] = [];
    const lexical: { id: string; kind: MemoryKind; score: number }[] = [];
    const queryTokens = tokenize(query.text);
    const terms = ftsTerms(query.text);
    for (const kind of kinds) {
      for (const hit of await this.ctx.vectors.search(qvec, kind, k1, threshold, tags)) vector.push({ id: hit.id, kind, sim: hit.sim, stand: false });
      const missing = this.ctx.vectors.missingIds(kind);
      if (missing.length) {
        for (const { id, text } of this.texts(kind, missing)) {
          const sim = lexicalSimilarity(queryTokens, tokenize(text));
          if (sim >= threshold) vector.push({ id, kind, sim, stand: true });
        }
      }
      for (const hit of this.bm25(kind, terms, k1, tags)) lexical.push({ ...hit, kind });
    }
    vector.sort((a, b) => b.sim - a.sim || (a.id < b.id ? -1 : 1));
    lexical.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    const relevance = fuseRanks([vector.map((v) => v.id), lexical.map((l) => l.id)]);
    const found = new Map<string, Found>();
    for (const v of vector) found.set(v.id, { kind: v.kind, match: v.stand ? "lexical" : "vector", channels: [v.stand ? "lexical" : "vector"], sim: v.sim, lexical: 0, relevance: relevance.get(v.id)! });
    const lexicalOnly: string[] = [];
    for (const l of lexical) {
      const f = found.get(l.id);
      if (f) {
        f.lexical = l.score;
        if (!f.channels.includes("lexical")) f.channels.push("lexical");
      } else {
        found.set(l.id, { kind: l.kind, match: "lexical", channels: ["lexical"], sim: 0, lexical: l.score, relevance: relevance.get(l.id)! });
        lexicalOnly.push(l.id);
      }
    }
    // The vector channel stopped at the threshold; what the lexical channel adds still reports its cosine.
    for (const [id, sim] of await this.ctx.vectors.similarities(qvec, lexicalOnly)) found.get(id)!.sim = sim;
    return this.hydrate(found, tags);
  }

  /**
   * BM25 matches among active items of `kind` for the query's discriminative terms (FTS5's bm25()
   * is lower-is-better, so it is negated). In a large table each term's matches are counted
   * first, capped just past the limit, which costs a walk of at most that many index entries.
   */
  private bm25(kind: MemoryKind, terms: readonly string[], limit: number, tags?: string[]): { id: string; score: number }[] {
    const [fts, table] = kind === "experience" ? ["experiences_fts", "experiences"] : ["cases_fts", "cases"];
    const capped = (sql: string, ...params: SqlStorageValue[]) =>
      this.ctx.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM (${sql} LIMIT ?)`, ...params, LEXICAL_MAX_TERM_DOCS + 1).one().n;
    // A table that small (archived rows included, as in the index) cannot hold a common word or exceed the row budget.
    const small = capped(`SELECT 1 FROM ${table}`) <= LEXICAL_MAX_TERM_DOCS;
    const chosen = small ? terms : discriminativeTerms(terms.map((term) => ({ term, docs: capped(`SELECT 1 FROM ${fts} WHERE ${fts} MATCH ?`, ftsMatchOf([term])) })));
    const match = ftsMatchOf(chosen);
    if (!match) return [];
    const tagged = tags?.length ? `AND EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value IN (${placeholders(tags.length)}))` : "";
    return this.ctx.sql
      .exec<{ id: string; score: number }>(
        `SELECT t.id AS id, -bm25(${fts}) AS score FROM ${fts} JOIN ${table} t ON t.seq = ${fts}.rowid
         WHERE ${fts} MATCH ? AND t.status = 'active' ${tagged} ORDER BY bm25(${fts}) LIMIT ?`,
        match,
        ...(tags?.length ? tags : []),
        limit,
      )
      .toArray();
  }

  private texts(kind: MemoryKind, ids: string[]): { id: string; text: string }[] {
    const out: { id: string; text: string }[] = [];
    for (const chunk of chunks(ids)) {
      const marks = placeholders(chunk.length);
      if (kind === "experience") {
        for (const r of this.ctx.sql.exec<{ id: string; text: string; pattern: string | null; keywords: string }>(
          `SELECT id, text, pattern, keywords FROM experiences WHERE id IN (${marks}) AND +status = 'active'`,
          ...chunk,
        )) {
          out.push({ id: r.id, text: experienceEmbedText({ text: r.text, pattern: r.pattern, keywords: JSON.parse(r.keywords) }) });
        }
      } else {
        for (const r of this.ctx.sql.exec<{ id: string; task: string }>(`SELECT id, task FROM cases WHERE id IN (${marks}) AND +status = 'active'`, ...chunk)) {
          out.push({ id: r.id, text: r.task });
        }
      }
    }
    return out;
  }

  /** Reads Q, text and tags of candidates; anything no longer active (the index may lag) is dropped. */
  private hydrate(found: Map<string, Found>, tags?: string[]): CandidateInfo[] {
    const out: CandidateInfo[] = [];
    const byKind = (kind: MemoryKind) => [...found].filter(([, v]) => v.kind === kind).map(([id]) => id);
    const wanted = tags?.length ? new Set(tags) : null;
    const keep = (t: string[]) => !wanted || t.some((x) => wanted.has(x));
    for (const ids of chunks(byKind("experience"))) {
      for (const r of this.ctx.sql.exec<{ id: string; seq: number; text: string; q: number; tags: string; probation: number }>(
        `SELECT id, seq, text, q, tags, probation FROM experiences WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'`,
        ...ids,
      )) {
        const t = JSON.parse(r.tags) as string[];
        const f = found.get(r.id)!;
        if (keep(t)) out.push({ id: r.id, text: r.text, q: r.q, tags: t, label: this.library.labelOf(r.seq), probation: r.probation === 1, ...f });
      }
    }
    for (const ids of chunks(byKind("case"))) {
      for (const r of this.ctx.sql.exec<CaseRow>(
        `SELECT * FROM cases WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'`,
        ...ids,
      )) {
        const t = JSON.parse(r.tags) as string[];
        const f = found.get(r.id)!;
        if (keep(t)) out.push({ id: r.id, text: caseText(r), q: r.q, tags: t, label: null, probation: false, ...f });
      }
    }
    return out;
  }

  /** The agent's configured threshold, else the one its embedder is calibrated for. */
  threshold(req: { threshold?: number } = {}): number {
    return req.threshold ?? this.ctx.config().similarityThreshold ?? this.ctx.vectors.embedder?.similarityThreshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  }

  /** Phase B over the fused relevance: every candidate already passed a channel's gate, so none is cut here. */
  private rank(infos: CandidateInfo[], lambda: number, k1: number, k2: number) {
    return rank(infos.map((i) => ({ id: i.id, sim: i.relevance, q: i.q })), { lambda, k1, k2, threshold: 0 });
  }

  /** `readOnly` (a read-scoped key): the retrieval is recorded for a later reward, but no counter or `lastUsedAt` moves. */
  async retrieve(req: RetrieveRequest, readOnly = false): Promise<RetrieveResponse> {
    const cfg = this.ctx.config();
    const lambda = this.lambda(req);
    const k1 = req.k1 ?? cfg.k1;
    const k2 = Math.min(req.k2 ?? cfg.k2, k1);
    const infos = await this.candidates(await this.embedQuery(req.query), req.kinds ?? ["experience", "case"], k1, this.threshold(req), req.tags);
    const byId = new Map(infos.map((i) => [i.id, i]));
    const items: RetrievedItem[] = this.rank(infos, lambda, k1, k2).map((r) => {
      const info = byId.get(r.id)!;
      return {
        id: r.id, kind: info.kind, label: info.label, probation: info.probation, text: info.text,
        sim: info.sim, lexical: info.lexical, relevance: r.sim, simZ: r.simZ, q: r.q, qZ: r.qZ, lambda: r.lambda, score: r.score, match: info.match, channels: info.channels,
      };
    });
    const retrievalId = this.record(req.query, req.phase ?? null, lambda, req.episodeId ?? null, items, readOnly);
    return {
      retrievalId,
      phase: req.phase ?? null,
      lambda,
      candidates: Math.min(k1, infos.length),
      items,
    };
  }

  /**
   * Every retrieval is kept so a later reward can be attributed to exactly what was shown, under
   * the label it was shown with. `citeOnly` items were shown without being selected for the query,
   * so they count as used, and learn, only when cited.
   */
  record(query: string, phase: string | null, lambda: number, episodeId: string | null, items: RecordedItem[], readOnly = false): string {
    const id = this.ctx.newId("ret");
    const now = this.ctx.now();
    this.ctx.storage.transactionSync(() => {
      this.ctx.sql.exec(
        "INSERT INTO retrievals (id, at, query, phase, lambda, episode_id, items) VALUES (?, ?, ?, ?, ?, ?, ?)",
        id, now, query, phase, lambda, episodeId,
        JSON.stringify(items.map((i) => ({ id: i.id, kind: i.kind, score: i.score ?? null, label: i.label ?? null, ...(i.citeOnly ? { citeOnly: true } : {}) }))),
      );
      // A read key changes nothing later retrievals depend on: use counts and lastUsedAt slow decay.
      for (const kind of readOnly ? [] : (["experience", "case"] as const)) {
        for (const ids of chunks(items.filter((i) => i.kind === kind && !i.citeOnly).map((i) => i.id))) {
          this.ctx.sql.exec(
            `UPDATE ${kind === "experience" ? "experiences" : "cases"} SET retrieved = retrieved + 1, last_used_at = ? WHERE id IN (${placeholders(ids.length)})`,
            now,
            ...ids,
          );
        }
      }
    });
    return id;
  }

  /** Ranking without recording, for assembling the prompt (which records what it finally includes). */
  async rankQuietly(query: EmbeddedQuery, kinds: MemoryKind[], phase: RetrieveRequest["phase"], k2: number) {
    const k1 = Math.max(this.ctx.config().k1, k2);
    const infos = await this.candidates(query, kinds, k1, this.threshold());
    const byId = new Map(infos.map((i) => [i.id, i]));
    return this.rank(infos, this.lambda({ phase }), k1, k2).map((r) => byId.get(r.id)!);
  }
}

/** A case as one line of text: its answer, else what was tried, is what tells a model something. */
function caseText(r: CaseRow): string {
  const outcome = r.label === "positive" ? "succeeded" : "failed";
  const detail = r.answer ? ` Answer: ${r.answer.slice(0, 400)}` : r.trace_summary ? ` Tried: ${r.trace_summary.slice(0, 400)}` : "";
  return `Task: ${r.task.slice(0, 600)} (${outcome}, reward ${r.reward}).${detail}`;
}
