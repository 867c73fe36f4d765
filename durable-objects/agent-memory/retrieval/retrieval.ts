import { fuseRanks, rank } from "../../../src/core/scoring";
import { DEFAULT_SIMILARITY_THRESHOLD } from "../../../src/adapters/embedder";
import { discriminativeTerms, ftsMatchOf, ftsTerms, LEXICAL_MAX_TERM_DOCS, lexicalSimilarity } from "../../../src/core/lexical";
import { tokenize } from "../../../src/core/hash-embedder";
import type { MemoryFilter, MemoryKind, RetrieveRequest, RetrieveResponse, RetrievedItem } from "../../../src/core/memory-types";
import type { Metadata } from "../../../src/core/served-fields";
import { effectiveFilter, filterSql } from "./memory-filter";
import { chunks, parseJson, placeholders, type MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import { experienceEmbedText, type CaseRow } from "../storage/rows";
import { encodeCode } from "../../../src/core/int8-matrix";
import { contributions, featuresOf } from "../../../src/core/reranker";
import { UsageMemory } from "./usage-memory";
import { RerankerStore } from "./reranker-store";
import { Situations } from "./situations";
import { MemoryError } from "../../memory-error";
import type { SharedQuery, Subscriptions } from "../sharing/subscriptions";

/**
 * How much a learned phrase counts beside the text's BM25 in the lexical channel: a full phrase
 * match (1) counts as much as a BM25 of this, a good match of one rare word.
 */
export const LEARNED_PHRASE_WEIGHT = 4;
/** A lesson's `when` is its own text about itself: its BM25 counts like that of the lesson's words. */
export const WHEN_WEIGHT = 1;
/**
 * The base relevance a memory needs, as a share of the similarity threshold, before anything it
 * learned from rewards (usage centroid, learned phrases) may bring it into the candidates: learned
 * signals re-order what is relevant on its own, they never make an unrelated memory relevant.
 */
export const LEARNED_FLOOR = 0.5;
/**
 * How far, as a share of the similarity threshold, a usage centroid may lift a memory's score in
 * the vector channel above its own similarity (the threshold sets the embedder's scale).
 */
export const LEARNED_LIFT = 0.5;

/** Who asked: a retrieval keeps its key, and one made by a read-scoped key is never credited by an episode's end. */
export interface Asker {
  keyId?: string | null;
  readOnly: boolean;
}
export const ANONYMOUS_WRITER: Asker = { keyId: null, readOnly: false };

export interface CandidateInfo {
  id: string;
  kind: MemoryKind;
  text: string;
  q: number;
  tags: string[];
  metadata: Metadata;
  label: string | null;
  probation: boolean;
  match: "vector" | "lexical";
  channels: Channel[];
  sim: number;
  lexical: number;
  usage: number;
  learned: number;
  when: number;
  whenLexical: number;
  relevance: number;
  lastUsedAt: number | null;
  /** A subscribed library's lesson (see src/core/shared-lessons.ts): `id` is then its sharedRef. */
  shared?: { libraryId: string; id: string };
}

type Channel = "vector" | "lexical";
/** Found only through what rewards taught it (usage centroid, learned phrases), not by its own text or vector. */
const learnedOnly = (i: Pick<CandidateInfo, "sim" | "lexical" | "when" | "whenLexical" | "usage" | "learned">, threshold: number) =>
  i.lexical === 0 && i.whenLexical === 0 && i.sim < threshold && i.when < threshold && (i.usage > 0 || i.learned > 0);

/** What phase A knows of an item before hydration: its channel scores (0 where a channel did not find it). */
interface Found {
  kind: MemoryKind;
  match: "vector" | "lexical";
  channels: Channel[];
  sim: number;
  lexical: number;
  /** Similarity of the query to the usage centroid (the queries this memory served); 0 without one. */
  usage: number;
  /** BM25 of the memory's learned phrases for the query's words. */
  learned: number;
  /** Similarity of the query to the lesson's `when` (the situations it applies to); 0 without one. */
  when: number;
  /** BM25 of the lesson's `when` for the query's words. */
  whenLexical: number;
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
  /** The re-ranker's features of the item when shown, so the reward that follows can train on them. */
  f?: number[];
  /** A shared library's lesson: `id` is then its sharedRef, and its counters are this agent's own (sharing/subscriptions.ts). */
  libraryId?: string;
}

/** Two-phase retrieval: similarity, then utility-aware re-ranking. */
export class Retrieval {
  readonly usage: UsageMemory;
  readonly reranker: RerankerStore;
  readonly situations: Situations;
  /** The shared libraries the agent subscribes to; their lessons rank beside its own. */
  shared: Subscriptions<CandidateInfo> | null = null;
  onSharedFailure: (libraryId: string, err: unknown) => void = () => undefined;

  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
  ) {
    this.usage = new UsageMemory(ctx);
    this.reranker = new RerankerStore(ctx);
    this.situations = new Situations(ctx);
  }

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
   * A lesson's `when` (its own text about itself) widens both from the start: its vector beside the
   * lesson's own, its BM25 beside the text's.
   *
   * What rewards taught (usage memory) widens them too, within bounds, since a flood of rewards is
   * cheap to send: a memory found only through its usage centroid or learned phrases must still
   * reach LEARNED_FLOOR of the threshold on its own vector or `when`, the centroid lifts its vector
   * score by at most LEARNED_LIFT of the threshold, and a learned phrase at most doubles the BM25
   * its own words earn (or adds one weak match's worth where they earn none). Without rewards there
   * is neither, and retrieval is as it was.
   *
   * A filter narrows every channel that draws a top k (vector, BM25, learned phrases) to the items
   * it matches, and hydration drops the rest: the top k are the best matching items, not the
   * matching share of the best items.
   */
  private async candidates(query: EmbeddedQuery, kinds: MemoryKind[], k1: number, threshold: number, filter?: MemoryFilter) {
    const qvec = query.vec;
    if (kinds.includes("experience")) await this.situations.refresh();
    type Entry = Found & { stand: boolean; inVector: boolean; simKnown: boolean };
    const entries = new Map<string, Entry>();
    const entry = (id: string, kind: MemoryKind): Entry =>
      entries.get(id) ??
      entries
        .set(id, { kind, match: "vector", channels: [], sim: 0, lexical: 0, usage: 0, learned: 0, when: 0, whenLexical: 0, relevance: 0, stand: false, inVector: false, simKnown: false })
        .get(id)!;
    const queryTokens = tokenize(query.text);
    const terms = ftsTerms(query.text);
    const learnedAny = !this.usage.empty;
    const lexicalHits = new Set<string>();
    for (const kind of kinds) {
      for (const hit of await this.ctx.vectors.search(qvec, kind, k1, threshold, filter)) Object.assign(entry(hit.id, kind), { sim: hit.sim, inVector: true, simKnown: true });
      const missing = this.ctx.vectors.missingIds(kind);
      if (missing.length) {
        for (const { id, text } of this.texts(kind, missing)) {
          const sim = lexicalSimilarity(queryTokens, tokenize(text));
          if (sim >= threshold) Object.assign(entry(id, kind), { sim, stand: true, inVector: true, simKnown: true });
        }
      }
      if (learnedAny) for (const [id, sim] of this.usage.similar(qvec, kind, threshold, k1)) Object.assign(entry(id, kind), { usage: sim, inVector: true });
      if (kind === "experience") for (const [id, sim] of this.situations.similar(qvec, k1, threshold)) Object.assign(entry(id, kind), { when: sim, inVector: true });
      if (learnedAny) {
        for (const h of this.usage.matches(kind, terms, k1, filter)) {
          entry(h.id, kind).learned = h.score;
          lexicalHits.add(h.id);
        }
      }
      const hits = this.bm25(kind, terms, k1, filter, kind === "experience" && this.situations.any);
      for (const h of hits.text) (entry(h.id, kind).lexical = h.score), lexicalHits.add(h.id);
      for (const h of hits.when) (entry(h.id, kind).whenLexical = h.score), lexicalHits.add(h.id);
    }
    // The vector channel stopped at the threshold; what else was found still reports its cosine,
    // which also decides whether what rewards taught may count for it.
    const unscored = [...entries].filter(([, e]) => !e.simKnown).map(([id]) => id);
    for (const [id, sim] of await this.ctx.vectors.similarities(qvec, unscored)) entries.get(id)!.sim = sim;
    for (const kind of learnedAny ? kinds : []) {
      const ids = [...entries].filter(([, e]) => e.kind === kind).map(([id]) => id);
      for (const [id, sim] of this.usage.similarities(qvec, kind, ids)) entries.get(id)!.usage = Math.max(0, sim);
    }
    if (kinds.includes("experience")) {
      const ids = [...entries].filter(([, e]) => e.kind === "experience" && e.when === 0).map(([id]) => id);
      for (const [id, sim] of this.situations.similarities(qvec, ids)) entries.get(id)!.when = Math.max(0, sim);
    }
    for (const [id, e] of entries) if (learnedOnly(e, threshold) && Math.max(e.sim, e.when) < LEARNED_FLOOR * threshold) entries.delete(id);

    const vectorScore = (e: Entry) => {
      const base = Math.max(e.sim, e.when);
      return Math.max(base, Math.min(e.usage, base + LEARNED_LIFT * threshold));
    };
    const lexicalScore = (e: Entry) => {
      const base = e.lexical + WHEN_WEIGHT * e.whenLexical;
      return base + Math.min(LEARNED_PHRASE_WEIGHT * e.learned, Math.max(base, 1));
    };
    const vector = [...entries].filter(([, e]) => e.inVector).map(([id, e]) => ({ id, score: vectorScore(e) }));
    const lexical = [...entries].filter(([id, e]) => lexicalHits.has(id) && lexicalScore(e) > 0).map(([id, e]) => ({ id, score: lexicalScore(e) }));
    const order = (a: { id: string; score: number }, b: { id: string; score: number }) => b.score - a.score || (a.id < b.id ? -1 : 1);
    vector.sort(order);
    lexical.sort(order);
    const relevance = fuseRanks([vector.map((v) => v.id), lexical.map((l) => l.id)]);
    const found = new Map<string, Found>();
    for (const [id, e] of entries) {
      const r = relevance.get(id);
      if (r === undefined) continue;
      const channels: Channel[] = [];
      if (e.inVector) channels.push(e.stand ? "lexical" : "vector");
      if (lexicalHits.has(id) && !channels.includes("lexical")) channels.push("lexical");
      const { stand: _s, inVector, simKnown: _k, ...f } = e;
      found.set(id, { ...f, match: inVector && !e.stand ? "vector" : "lexical", channels, relevance: r });
    }
    return this.hydrate(found, filter);
  }

  /**
   * BM25 matches among active items of `kind` for the query's discriminative terms (FTS5's bm25()
   * is lower-is-better, so it is negated). In a large table each term's matches are counted
   * first, capped just past the limit, which costs a walk of at most that many index entries.
   * With `when`, the same terms are also matched against the lessons' `when` column.
   */
  private bm25(kind: MemoryKind, terms: readonly string[], limit: number, filter: MemoryFilter | undefined, when: boolean) {
    type Hit = { id: string; score: number };
    const [fts, table] = kind === "experience" ? ["experiences_fts", "experiences"] : ["cases_fts", "cases"];
    const capped = (sql: string, ...params: SqlStorageValue[]) =>
      this.ctx.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM (${sql} LIMIT ?)`, ...params, LEXICAL_MAX_TERM_DOCS + 1).one().n;
    // A table that small (archived rows included, as in the index) cannot hold a common word or exceed the row budget.
    const small = capped(`SELECT 1 FROM ${table}`) <= LEXICAL_MAX_TERM_DOCS;
    const chosen = small ? terms : discriminativeTerms(terms.map((term) => ({ term, docs: capped(`SELECT 1 FROM ${fts} WHERE ${fts} MATCH ?`, ftsMatchOf([term])) })));
    const match = ftsMatchOf(chosen);
    if (!match) return { text: [] as Hit[], when: [] as Hit[] };
    const where = filterSql(filter, kind);
    const search = (index: string) =>
      this.ctx.sql
        .exec<Hit>(
          `SELECT t.id AS id, -bm25(${index}) AS score FROM ${index} JOIN ${table} t ON t.seq = ${index}.rowid
           WHERE ${index} MATCH ? AND t.status = 'active'${where.sql} ORDER BY bm25(${index}) LIMIT ?`,
          match,
          ...where.params,
          limit,
        )
        .toArray();
    return { text: search(fts), when: when ? search("when_fts") : [] };
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

  /**
   * Reads Q, text, tags and metadata of candidates; anything no longer active (the index may lag)
   * or outside the filter (channels that draw no top k, such as the usage centroids, are not
   * narrowed by it) is dropped.
   */
  private hydrate(found: Map<string, Found>, filter?: MemoryFilter): CandidateInfo[] {
    const out: CandidateInfo[] = [];
    const byKind = (kind: MemoryKind) => [...found].filter(([, v]) => v.kind === kind).map(([id]) => id);
    const experiences = filterSql(filter, "experience");
    for (const ids of chunks(byKind("experience"))) {
      for (const r of this.ctx.sql.exec<{ id: string; seq: number; text: string; q: number; tags: string; metadata: string; probation: number; last_used_at: number | null }>(
        `SELECT id, seq, text, q, tags, metadata, probation, last_used_at FROM experiences t WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'${experiences.sql}`,
        ...ids,
        ...experiences.params,
      )) {
        const f = found.get(r.id)!;
        out.push({ id: r.id, text: r.text, q: r.q, tags: JSON.parse(r.tags) as string[], metadata: parseJson<Metadata>(r.metadata, {}), label: this.library.labelOf(r.seq), probation: r.probation === 1, lastUsedAt: r.last_used_at, ...f });
      }
    }
    const cases = filterSql(filter, "case");
    for (const ids of chunks(byKind("case"))) {
      for (const r of this.ctx.sql.exec<CaseRow>(
        `SELECT * FROM cases t WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'${cases.sql}`,
        ...ids,
        ...cases.params,
      )) {
        const f = found.get(r.id)!;
        out.push({ id: r.id, text: caseText(r), q: r.q, tags: JSON.parse(r.tags) as string[], metadata: parseJson<Metadata>(r.metadata, {}), label: null, probation: false, lastUsedAt: r.last_used_at, ...f });
      }
    }
    return out;
  }

  /** The agent's configured threshold, else the one its embedder is calibrated for. */
  threshold(req: { threshold?: number } = {}): number {
    return req.threshold ?? this.ctx.config().similarityThreshold ?? this.ctx.vectors.embedder?.similarityThreshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  }

  /**
   * Phase B over the fused relevance: every candidate already passed a channel's gate, so none is
   * cut here. Once the agent's re-ranker has learned enough, its contribution is added to each
   * candidate's score before the top k2 are taken; until then the order is the fixed fusion's.
   */
  private rank(infos: CandidateInfo[], lambda: number, k1: number, k2: number, threshold: number) {
    const byId = new Map(infos.map((i) => [i.id, i]));
    const now = this.ctx.now();
    // The rewards that taught a memory its usage also raised its Q: a memory found only through
    // usage ranks on that relevance with a neutral Q, so the same rewards do not count twice, and a
    // flood of them cannot carry one memory to the top of queries its own content does not match.
    const found = infos.filter((i) => !learnedOnly(i, threshold));
    const neutralQ = found.length ? found.reduce((a, i) => a + i.q, 0) / found.length : 0;
    const candidates = infos.map((i) => ({ id: i.id, sim: i.relevance, q: learnedOnly(i, threshold) ? neutralQ : i.q }));
    const ranked = rank(candidates, { lambda, k1, k2: k1, threshold: 0 }).map((r) => {
      const info = byId.get(r.id)!;
      return { ...r, q: info.q, info, features: featuresOf({ ...info, q: r.q }, now), learned: null as number | null };
    });
    const learned = contributions(this.reranker.current().state, ranked.map((r) => r.features));
    if (learned) {
      ranked.forEach((r, i) => {
        r.learned = learned[i]!;
        r.score += learned[i]!;
      });
      ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    }
    return ranked.slice(0, Math.max(0, Math.min(k2, k1)));
  }

  /**
   * A read-scoped asker's retrieval is recorded for a later reward, but no counter or `lastUsedAt`
   * moves, and an episode's end does not credit it.
   */
  async retrieve(req: RetrieveRequest, asker: Asker = ANONYMOUS_WRITER): Promise<RetrieveResponse> {
    if (req.episodeId) this.assertOpenEpisode(req.episodeId);
    const cfg = this.ctx.config();
    const lambda = this.lambda(req);
    const k1 = req.k1 ?? cfg.k1;
    const k2 = Math.min(req.k2 ?? cfg.k2, k1);
    const query = await this.embedQuery(req.query);
    const threshold = this.threshold(req);
    const filter = effectiveFilter(req);
    const own = await this.candidates(query, req.kinds ?? ["experience", "case"], k1, threshold, filter);
    const infos = await this.withShared(own, req.kinds ?? ["experience", "case"], query, k1, threshold, filter);
    const ranked = this.rank(infos, lambda, k1, k2, threshold);
    const items: RetrievedItem[] = ranked.map((r) => {
      const info = r.info;
      const shared = info.shared;
      return {
        id: shared?.id ?? r.id, ...(shared ? { libraryId: shared.libraryId } : {}), kind: info.kind, label: info.label, probation: info.probation, text: info.text, metadata: info.metadata,
        sim: info.sim, lexical: info.lexical, relevance: r.sim, simZ: r.simZ, q: r.q, qZ: r.qZ, lambda: r.lambda, score: r.score, match: info.match, channels: info.channels,
        signals: { usage: info.usage, phrases: info.learned, when: info.when, whenLexical: info.whenLexical, learned: r.learned },
      };
    });
    const recorded = items.map((item, i) => ({ ...item, id: ranked[i]!.id, f: ranked[i]!.features }));
    const retrievalId = this.record(req.query, req.phase ?? null, lambda, req.episodeId ?? null, recorded, asker, query.vec);
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
  record(query: string, phase: string | null, lambda: number, episodeId: string | null, items: RecordedItem[], asker: Asker, queryVec?: Float32Array): string {
    const id = this.ctx.newId("ret");
    const now = this.ctx.now();
    this.ctx.storage.transactionSync(() => {
      // Checked again here: the episode may have ended while the query was embedded.
      if (episodeId) this.assertOpenEpisode(episodeId);
      this.ctx.sql.exec(
        "INSERT INTO retrievals (id, at, query, phase, lambda, episode_id, items, query_code, key_id, read_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        id, now, query, phase, lambda, episodeId,
        JSON.stringify(items.map((i) => ({ id: i.id, kind: i.kind, score: i.score ?? null, label: i.label ?? null, ...(i.citeOnly ? { citeOnly: true } : {}), ...(i.f ? { f: i.f } : {}), ...(i.libraryId ? { libraryId: i.libraryId } : {}) }))),
        queryVec ? encodeCode(queryVec) : null,
        asker.keyId ?? null,
        asker.readOnly ? 1 : 0,
      );
      // A read key changes nothing later retrievals depend on: use counts and lastUsedAt slow decay.
      for (const kind of asker.readOnly ? [] : (["experience", "case"] as const)) {
        for (const ids of chunks(items.filter((i) => i.kind === kind && !i.citeOnly && !i.libraryId).map((i) => i.id))) {
          this.ctx.sql.exec(
            `UPDATE ${kind === "experience" ? "experiences" : "cases"} SET retrieved = retrieved + 1, last_used_at = ? WHERE id IN (${placeholders(ids.length)})`,
            now,
            ...ids,
          );
        }
      }
      if (!asker.readOnly && this.shared) {
        const shown = items.filter((i) => i.libraryId && !i.citeOnly).map((i) => ({ libraryId: i.libraryId!, lessonId: i.id.slice(i.libraryId!.length + 1) }));
        if (shown.length) this.shared.recordUse(shown, now);
      }
    });
    return id;
  }

  /**
   * A retrieval may name only an open episode of this agent: one never started could be anyone's
   * later, and an ended one has been credited already.
   */
  assertOpenEpisode(episodeId: string): void {
    const ep = this.ctx.sql.exec<{ status: string; outcome: string | null }>("SELECT status, outcome FROM episodes WHERE id = ?", episodeId).toArray()[0];
    if (!ep) throw MemoryError.notFound(`Episode '${episodeId}' does not exist.`);
    if (ep.status !== "open" || ep.outcome !== null) throw MemoryError.conflict(`Episode '${episodeId}' has ended; a retrieval can no longer join it.`);
  }

  /** Ranking without recording, for assembling the prompt (which records what it finally includes). */
  async rankQuietly(query: EmbeddedQuery, kinds: MemoryKind[], phase: RetrieveRequest["phase"], k2: number, filter?: MemoryFilter) {
    const k1 = Math.max(this.ctx.config().k1, k2);
    const threshold = this.threshold();
    const own = await this.candidates(query, kinds, k1, threshold, filter);
    const infos = await this.withShared(own, kinds, query, k1, threshold, filter);
    return this.rank(infos, this.lambda({ phase }), k1, k2, threshold).map((r) => r.info);
  }

  /** Lessons of the subscribed libraries join the agent's own candidates (cases are never shared). */
  private async withShared(own: CandidateInfo[], kinds: MemoryKind[], query: EmbeddedQuery, k1: number, threshold: number, filter: MemoryFilter | undefined): Promise<CandidateInfo[]> {
    if (!this.shared || !kinds.includes("experience")) return own;
    return this.shared.merge(own, query, k1, threshold, filter, this.onSharedFailure);
  }

  /**
   * This agent as a shared library: its lesson candidates for a subscriber's query, ranked with the
   * subscriber's query vector and threshold when both use the same embedder (else its own).
   */
  async forSubscriber(query: SharedQuery, k1: number, filter: MemoryFilter | undefined): Promise<CandidateInfo[]> {
    const same = query.model === this.ctx.vectors.model;
    const embedded = same ? { text: query.text, vec: query.vec } : await this.embedQuery(query.text);
    return this.candidates(embedded, ["experience"], k1, same ? query.threshold : this.threshold(), filter);
  }
}

/** A case as one line of text: its answer, else what was tried, is what tells a model something. */
function caseText(r: CaseRow): string {
  const outcome = r.label === "positive" ? "succeeded" : "failed";
  const detail = r.answer ? ` Answer: ${r.answer.slice(0, 400)}` : r.trace_summary ? ` Tried: ${r.trace_summary.slice(0, 400)}` : "";
  return `Task: ${r.task.slice(0, 600)} (${outcome}, reward ${r.reward}).${detail}`;
}
