import { DEFAULT_SIMILARITY_THRESHOLD } from "../../../src/adapters/embedder";
import { discriminativeTerms, ftsMatchOf, LEXICAL_MAX_TERM_DOCS } from "../../../src/core/lexical";
import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";
import type { RetrieveAnswer, RetrieveRequest } from "../../../src/core/retrieval-types";
import type { Metadata } from "../../../src/core/served-fields";
import {
  findCandidates,
  type CandidateInfo,
  type CandidateSource,
  type ItemFields,
  type Scored,
} from "../../../src/core/ranking/candidates";
import { lambdaOf, rankFrom, retrievedItems, type RankedCandidate } from "../../../src/core/ranking/rank";
import { effectiveFilter } from "../../../src/core/ranking/filter";
import { filterSql } from "./memory-filter";
import { chunks, parseJson, placeholders, type MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import { experienceEmbedText, type CaseRow } from "../storage/rows";
import { encodeCode } from "../../../src/core/int8-matrix";
import { UsageMemory } from "./usage-memory";
import { RerankerStore } from "./reranker-store";
import { Situations } from "./situations";
import { DomainError } from "../../../src/core/errors";
import { issueToken, tokenItem } from "../../../src/core/retrieval-token";
import { RetrievalSecrets } from "./retrieval-secrets";
import { PROBATION, type Exploration } from "../../../src/core/probation";
import type { SharedQuery, Subscriptions } from "../sharing/subscriptions";

/** Who asked: a retrieval keeps its key, and one made by a read-scoped key is never credited by an episode's end. */
export interface Asker {
  keyId?: string | null;
  readOnly: boolean;
}
export const ANONYMOUS_WRITER: Asker = { keyId: null, readOnly: false };

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

/**
 * Two-phase retrieval (src/core/ranking) over the agent's storage: this class is the object's
 * CandidateSource, answering each channel from SQLite (FTS5 for BM25) and the in-memory indexes.
 */
export class Retrieval implements CandidateSource {
  readonly usage: UsageMemory;
  readonly reranker: RerankerStore;
  readonly situations: Situations;
  readonly secrets: RetrievalSecrets;
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
    this.secrets = new RetrievalSecrets(ctx);
  }

  lambda(req: { phase?: RetrieveRequest["phase"]; lambda?: number }): number {
    return lambdaOf(this.ctx.config(), req);
  }

  /** Embeds a query once; a remote embedder makes this a network call, so callers reuse it. */
  async embedQuery(text: string): Promise<EmbeddedQuery> {
    const [vec] = await this.ctx.vectors.embed([text]);
    return { text, vec: vec! };
  }

  async vectorHits(query: Float32Array, kind: MemoryKind, k: number, threshold: number, filter?: MemoryFilter) {
    return this.ctx.vectors.search(query, kind, k, threshold, filter);
  }

  unembedded(kind: MemoryKind): { id: string; text: string }[] {
    const missing = this.ctx.vectors.missingIds(kind);
    return missing.length ? this.texts(kind, missing) : [];
  }

  vectorSimilarities(query: Float32Array, ids: readonly string[]) {
    return this.ctx.vectors.similarities(query, ids);
  }

  get usageLearned(): boolean {
    return !this.usage.empty;
  }

  usageSimilar(query: Float32Array, kind: MemoryKind, threshold: number, k: number) {
    return this.usage.similar(query, kind, threshold, k);
  }

  usageSimilarities(query: Float32Array, kind: MemoryKind, ids: readonly string[]) {
    return this.usage.similarities(query, kind, ids);
  }

  usageMatches(kind: MemoryKind, terms: readonly string[], k: number, now: number, filter?: MemoryFilter): Scored[] {
    return this.usage.matches(kind, terms, k, now, filter);
  }

  get anyWhen(): boolean {
    return this.situations.any;
  }

  whenSimilar(query: Float32Array, k: number, threshold: number) {
    return this.situations.similar(query, k, threshold);
  }

  whenSimilarities(query: Float32Array, ids: readonly string[]) {
    return this.situations.similarities(query, ids);
  }

  /**
   * BM25 matches among active items of `kind` for the query's discriminative terms (FTS5's bm25()
   * is lower-is-better, so it is negated). In a large table each term's matches are counted
   * first, capped just past the limit, which costs a walk of at most that many index entries.
   * With `when`, the same terms are also matched against the lessons' `when` column.
   */
  bm25(kind: MemoryKind, terms: readonly string[], limit: number, filter: MemoryFilter | undefined, when: boolean) {
    type Hit = { id: string; score: number };
    const [fts, table] = kind === "experience" ? ["experiences_fts", "experiences"] : ["cases_fts", "cases"];
    const capped = (sql: string, ...params: SqlStorageValue[]) =>
      this.ctx.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM (${sql} LIMIT ?)`, ...params, LEXICAL_MAX_TERM_DOCS + 1).one().n;
    // A table that small (archived rows included, as in the index) cannot hold a common word or exceed the row budget.
    const small = capped(`SELECT 1 FROM ${table}`) <= LEXICAL_MAX_TERM_DOCS;
    const chosen = small
      ? terms
      : discriminativeTerms(terms.map((term) => ({ term, docs: capped(`SELECT 1 FROM ${fts} WHERE ${fts} MATCH ?`, ftsMatchOf([term])) })));
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
        for (const r of this.ctx.sql.exec<{ id: string; task: string }>(
          `SELECT id, task FROM cases WHERE id IN (${marks}) AND +status = 'active'`,
          ...chunk,
        )) {
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
  hydrate(kind: MemoryKind, ids: readonly string[], filter?: MemoryFilter): ItemFields[] {
    const out: ItemFields[] = [];
    const where = filterSql(filter, kind);
    for (const chunk of chunks(ids)) {
      if (kind === "experience") {
        for (const r of this.ctx.sql.exec<{
          id: string;
          seq: number;
          text: string;
          q: number;
          tags: string;
          metadata: string;
          probation: number;
          last_used_at: number | null;
        }>(
          `SELECT id, seq, text, q, tags, metadata, probation, last_used_at FROM experiences t WHERE id IN (${placeholders(chunk.length)}) AND +status = 'active'${where.sql}`,
          ...chunk,
          ...where.params,
        )) {
          out.push({
            id: r.id,
            kind,
            text: r.text,
            q: r.q,
            tags: JSON.parse(r.tags) as string[],
            metadata: parseJson<Metadata>(r.metadata, {}),
            label: this.library.labelOf(r.seq),
            probation: r.probation !== PROBATION.trusted,
            lastUsedAt: r.last_used_at,
          });
        }
      } else {
        for (const r of this.ctx.sql.exec<CaseRow>(
          `SELECT * FROM cases t WHERE id IN (${placeholders(chunk.length)}) AND +status = 'active'${where.sql}`,
          ...chunk,
          ...where.params,
        )) {
          out.push({
            id: r.id,
            kind,
            text: caseText(r),
            q: r.q,
            tags: JSON.parse(r.tags) as string[],
            metadata: parseJson<Metadata>(r.metadata, {}),
            label: null,
            probation: false,
            lastUsedAt: r.last_used_at,
          });
        }
      }
    }
    return out;
  }

  /** The agent's configured threshold, else the one its embedder is calibrated for. */
  threshold(req: { threshold?: number } = {}): number {
    return (
      req.threshold ??
      this.ctx.config().similarityThreshold ??
      this.ctx.vectors.embedder?.similarityThreshold ??
      DEFAULT_SIMILARITY_THRESHOLD
    );
  }

  /** Phase A then B for a query; the situations' pending `when` texts are embedded first, as a batch. */
  private async ranking(
    query: EmbeddedQuery,
    kinds: readonly MemoryKind[],
    opts: { k1: number; k2: number; lambda: number; threshold: number; filter?: MemoryFilter | undefined },
  ) {
    if (kinds.includes("experience")) await this.situations.refresh();
    const shared = this.shared;
    // Lessons of the subscribed libraries join the agent's own candidates (cases are never shared).
    const widen =
      shared && kinds.includes("experience") && shared.any()
        ? (own: CandidateInfo[]) => shared.merge(own, query, opts.k1, opts.threshold, opts.filter, this.onSharedFailure)
        : undefined;
    return rankFrom(this, { query, kinds, ...opts, reranker: this.reranker.current().state, now: this.ctx.now() }, widen);
  }

  /**
   * A read-scoped asker's retrieval can be rewarded later, but no counter or `lastUsedAt` moves,
   * and an episode's end does not credit it.
   */
  async retrieve(req: RetrieveRequest, asker: Asker = ANONYMOUS_WRITER): Promise<RetrieveAnswer> {
    if (req.episodeId) this.assertOpenEpisode(req.episodeId);
    const cfg = this.ctx.config();
    const lambda = this.lambda(req);
    const k1 = req.k1 ?? cfg.k1;
    const k2 = Math.min(req.k2 ?? cfg.k2, k1);
    const query = await this.embedQuery(req.query);
    const { candidates, ranked } = await this.ranking(query, req.kinds ?? ["experience", "case"], {
      k1,
      k2,
      lambda,
      threshold: this.threshold(req),
      filter: effectiveFilter(req),
    });
    const items = retrievedItems(ranked);
    const recorded = items.map((item, i) => ({ ...item, id: ranked[i]!.id, f: ranked[i]!.features }));
    const retrievalId = await this.issue(req.query, req.phase ?? null, lambda, req.episodeId ?? null, recorded, asker, query.vec);
    return { retrievalId, phase: req.phase ?? null, lambda, candidates, items, libraryVersion: this.library.currentVersion() };
  }

  /**
   * The id a later reward names, attributed to exactly what was shown, under the label it was shown
   * with. A retrieval outside an episode answers a signed token that carries all of that and writes
   * nothing: its use counters go to the Worker's batch (src/platform/edge/retrieval-counters.ts). One
   * that joins an episode is recorded, so the episode's end can credit it, and so is one whose token
   * would be longer than MAX_TOKEN_CHARS. `made.id` is the id it was given before it was
   * assembled (its exploration draws on it); `made.trial`, the lessons on probation it explored.
   */
  async issue(
    query: string,
    phase: string | null,
    lambda: number,
    episodeId: string | null,
    items: RecordedItem[],
    asker: Asker,
    queryVec?: Float32Array,
    made: { id?: string; trial?: Exploration } = {},
  ): Promise<string> {
    // A shared lesson travels in the token with its library, as at the edge: its reward moves this
    // agent's own Q for it, and the Workers' counter batches count its use in this agent's own state.
    if (!episodeId) {
      const token = await issueToken(this.secrets.signing(), {
        ...(made.id ? { id: made.id } : {}),
        query,
        queryVec: queryVec ?? null,
        phase,
        lambda,
        items: items.map(tokenItem),
        asker,
        at: this.ctx.now(),
        retentionDays: this.ctx.config().retention.retrievalsDays,
        trial: made.trial ?? null,
      });
      if (token) return token;
    }
    return this.record(query, phase, lambda, episodeId, items, asker, queryVec, made);
  }

  /**
   * Records a retrieval, with its use counters. `citeOnly` items were shown without being selected
   * for the query, so they count as used, and learn, only when cited.
   */
  record(
    query: string,
    phase: string | null,
    lambda: number,
    episodeId: string | null,
    items: RecordedItem[],
    asker: Asker,
    queryVec?: Float32Array,
    made: { id?: string; trial?: Exploration } = {},
  ): string {
    const id = made.id ?? this.ctx.newId("ret");
    const trial = made.trial && (made.trial.shown.length || made.trial.control.length) ? JSON.stringify(made.trial) : null;
    const now = this.ctx.now();
    this.ctx.storage.transactionSync(() => {
      // Checked again here: the episode may have ended while the query was embedded.
      if (episodeId) this.assertOpenEpisode(episodeId);
      this.ctx.sql.exec(
        "INSERT INTO retrievals (id, at, query, phase, lambda, episode_id, items, query_code, key_id, read_only, trial) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        id,
        now,
        query,
        phase,
        lambda,
        episodeId,
        JSON.stringify(items.map(tokenItem)),
        queryVec ? encodeCode(queryVec) : null,
        asker.keyId ?? null,
        asker.readOnly ? 1 : 0,
        trial,
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
        const shown = items
          .filter((i) => i.libraryId && !i.citeOnly)
          .map((i) => ({ libraryId: i.libraryId!, lessonId: i.id.slice(i.libraryId!.length + 1) }));
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
    const ep = this.ctx.sql
      .exec<{ status: string; outcome: string | null }>("SELECT status, outcome FROM episodes WHERE id = ?", episodeId)
      .toArray()[0];
    if (!ep) throw DomainError.notFound(`Episode '${episodeId}' does not exist.`);
    if (ep.status !== "open" || ep.outcome !== null)
      throw DomainError.conflict(`Episode '${episodeId}' has ended; a retrieval can no longer join it.`);
  }

  /** Ranking without recording, for assembling the prompt (which records what it finally includes). */
  async rankQuietly(
    query: EmbeddedQuery,
    kinds: MemoryKind[],
    phase: RetrieveRequest["phase"],
    k2: number,
    filter?: MemoryFilter,
  ): Promise<(RankedCandidate["info"] & { base: number })[]> {
    const k1 = Math.max(this.ctx.config().k1, k2);
    const { ranked } = await this.ranking(query, kinds, { k1, k2, lambda: this.lambda({ phase }), threshold: this.threshold(), filter });
    return ranked.map((r) => ({ ...r.info, base: r.base }));
  }

  /**
   * This agent as a shared library: its lesson candidates for a subscriber's query, ranked with the
   * subscriber's query vector and threshold when both use the same embedder (else its own).
   */
  async forSubscriber(query: SharedQuery, k1: number, filter: MemoryFilter | undefined): Promise<CandidateInfo[]> {
    const same = query.model === this.ctx.vectors.model;
    const embedded = same ? { text: query.text, vec: query.vec } : await this.embedQuery(query.text);
    await this.situations.refresh();
    return findCandidates(this, embedded, ["experience"], k1, same ? query.threshold : this.threshold(), this.ctx.now(), filter);
  }
}

/** A case as one line of text: its answer, else what was tried, is what tells a model something. */
export function caseText(r: CaseRow): string {
  const outcome = r.label === "positive" ? "succeeded" : "failed";
  const detail = r.answer ? ` Answer: ${r.answer.slice(0, 400)}` : r.trace_summary ? ` Tried: ${r.trace_summary.slice(0, 400)}` : "";
  return `Task: ${r.task.slice(0, 600)} (${outcome}, reward ${r.reward}).${detail}`;
}
