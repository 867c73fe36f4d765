/**
 * A published snapshot as a CandidateSource and PromptSource: each channel answered in memory the
 * way the agent's object answers it from storage (the same int8 codes and scans, BM25 from FTS5's
 * own statistics, the same filter semantics), so rankFrom and assemblePrompt give a Worker the
 * object's answer for the snapshot's version.
 */
import { Int8Matrix } from "../int8-matrix";
import type { MemoryFilter, MemoryKind } from "../memory-types";
import type { RetrieveRequest } from "../retrieval-types";
import { lambdaOf, rankFrom } from "./rank";
import { bm25Rows, chosenTerms, type Bm25Table } from "./bm25";
import { CodeScan } from "./code-scan";
import { matchesFilter } from "./filter";
import { ftsTermOf } from "./fts5-porter";
import type { CandidateInfo, CandidateSource, ItemFields, Scored, VectorHit } from "./candidates";
import type { PromptSource } from "./prompt";
import type { LearnDelta, ReadModelSnapshot, SharedLessonRank, SnapshotCase, SnapshotLesson } from "./snapshot";
import { applyLexical, type ContentDelta } from "./snapshot-delta";
import { replaceBySeq } from "./seq-list";
import { sharedRef } from "../shared-lessons";
import { widenByLibraries } from "./shared";
import { phraseFade, phraseMatch, USAGE_SCAN_WIDTH, type LearnedPhrase } from "../usage-memory";
import { cosine } from "../vector-math";
import { ftsTerms } from "../lexical";
import type { RerankerState } from "../reranker";

const KINDS = ["experience", "case"] as const;

/** Whether every content word of the query has an FTS5 term this module computes exactly (see ftsTermOf). */
export const lexicallyServable = (query: string) => ftsTerms(query).every((w) => ftsTermOf(w) !== null);

/** A subscribed library as a Worker reads it: the library's own snapshot, at the subscription's weight. */
export interface SubscribedReader {
  libraryId: string;
  weight: number;
  reader: SnapshotReader;
}

export class SnapshotReader implements CandidateSource, PromptSource {
  readonly snapshot: ReadModelSnapshot;
  private readonly lessonById = new Map<string, SnapshotLesson>();
  private readonly caseById = new Map<string, SnapshotCase>();
  private readonly bySeq: Record<MemoryKind, Map<number, string>> = { experience: new Map(), case: new Map() };
  private readonly matrices: Record<MemoryKind, Int8Matrix | null>;
  private readonly kernel: WebAssembly.Module;
  private readonly centroidScans: Record<MemoryKind, CodeScan>;
  private readonly whenScan: CodeScan;
  private readonly phrases: Record<MemoryKind, Map<string, LearnedPhrase[]>> = { experience: new Map(), case: new Map() };
  private reranker: RerankerState;
  private learned: boolean;
  /** The time phrases fade to and recency is measured at; set per query (see at). */
  private now: number;
  private query: { text: string; vec: Float32Array } | null = null;
  /** The subscribed libraries' snapshots the next ranking or block draws on beside this one (see at). */
  private libraries: readonly SubscribedReader[] = [];
  /** The agent's own Q and last use of shared lessons, by sharedRef. */
  private readonly sharedState = new Map<string, SharedLessonRank>();

  constructor(snapshot: ReadModelSnapshot, kernel: WebAssembly.Module) {
    this.snapshot = snapshot;
    this.kernel = kernel;
    for (const l of snapshot.lessons) this.lessonById.set(l.id, l), this.bySeq.experience.set(l.seq, l.id);
    for (const c of snapshot.cases) this.caseById.set(c.id, c), this.bySeq.case.set(c.seq, c.id);
    const matrix = (kind: MemoryKind) => {
      const rows = snapshot.vectors[kind];
      if (!snapshot.dims || !rows.ids.length) return null;
      const m = new Int8Matrix(snapshot.dims, kernel, rows.ids.length);
      // The items' own id strings, not the decoded copies: a 100,000-memory snapshot holds each id once.
      m.appendCodes(
        rows.ids.map((id) => this.item(kind, id)?.id ?? id),
        rows.codes,
      );
      return m;
    };
    this.matrices = { experience: matrix("experience"), case: matrix("case") };
    // The matrices hold the codes from here on; the decoded copy would only go stale under deltas.
    snapshot.vectors = { experience: { ids: [], codes: new Uint8Array(0) }, case: { ids: [], codes: new Uint8Array(0) } };
    this.centroidScans = { experience: new CodeScan(kernel), case: new CodeScan(kernel) };
    for (const kind of KINDS) for (const e of snapshot.centroids[kind]) this.centroidScans[kind].set(e.id, e.code, e.factor);
    this.whenScan = new CodeScan(kernel);
    for (const e of snapshot.whens) this.whenScan.set(e.id, e.code, e.factor);
    for (const p of snapshot.phrases) this.phrases[p.kind].set(p.id, p.phrases);
    this.reranker = snapshot.reranker;
    this.learned = snapshot.usageLearned;
    this.now = snapshot.builtAt;
    for (const s of snapshot.shared) this.sharedState.set(sharedRef(s.libraryId, s.id), s);
  }

  /** Typed memory the scans hold, beside the snapshot's own bytes: what an isolate's cache counts. */
  get scanBytes(): number {
    let n = 0;
    for (const kind of KINDS) n += this.matrices[kind]?.bytes ?? 0;
    return n;
  }

  /** Bytes of the vector codes the scans hold, as published (a code and its scale per row). */
  get codeBytes(): number {
    let n = 0;
    for (const kind of KINDS) n += (this.matrices[kind]?.size ?? 0) * (this.snapshot.dims + 4);
    return n;
  }

  get learnSeq(): number {
    return this.snapshot.learnSeq;
  }

  /** Applies what rewards and uses changed since the snapshot's learnSeq. */
  apply(delta: LearnDelta): void {
    for (const u of delta.items) {
      const item = u.kind === "experience" ? this.lessonById.get(u.id) : this.caseById.get(u.id);
      if (!item) continue;
      item.q = u.q;
      item.uses = u.uses;
      item.lastUsedAt = u.lastUsedAt;
      if (u.kind === "experience") Object.assign(item as SnapshotLesson, { probation: u.probation, explore: u.explore });
    }
    for (const u of delta.usage) {
      for (const kind of KINDS) {
        if (kind === u.kind && u.phrases?.length) this.phrases[kind].set(u.id, u.phrases);
        else this.phrases[kind].delete(u.id);
        if (kind === u.kind && u.centroid) this.centroidScans[kind].set(u.id, u.centroid.code, u.centroid.factor);
        else this.centroidScans[kind].delete(u.id);
      }
    }
    for (const s of delta.shared) {
      const ref = sharedRef(s.libraryId, s.id);
      if (s.q === null) this.sharedState.delete(ref);
      else this.sharedState.set(ref, { ...s, q: s.q });
    }
    this.reranker = delta.reranker;
    this.learned = delta.usageLearned;
    this.snapshot.learnSeq = delta.learnSeq;
    this.snapshot.libraryVersion = Math.max(this.snapshot.libraryVersion, delta.libraryVersion);
  }

  /**
   * Applies what changed as content since the snapshot's contentVersion (a delta of the embedder
   * the snapshot's vectors belong to): the changed items leave, those active now come back as they
   * are, labels are given again in seq order, and the lexical statistics move as the object's did.
   */
  applyContent(delta: ContentDelta): void {
    const s = this.snapshot;
    if (delta.model !== s.model || delta.dims !== s.dims) throw new Error(`a delta of ${delta.model} does not apply to ${s.model}`);
    const dropped: Record<MemoryKind, number[]> = { experience: [], case: [] };
    const changed = [...delta.removed, ...delta.lessons.map((l) => l.id), ...delta.cases.map((c) => c.id)];
    for (const id of changed) {
      for (const [kind, byId] of [
        ["experience", this.lessonById],
        ["case", this.caseById],
      ] as const) {
        const old = byId.get(id);
        if (!old) continue;
        byId.delete(id);
        this.bySeq[kind].delete(old.seq);
        dropped[kind].push(old.seq);
      }
      for (const kind of KINDS) this.matrices[kind]?.remove(id);
      this.whenScan.delete(id);
    }
    const lessons = delta.lessons.map((l) => ({ ...l, label: "" }));
    for (const l of lessons) this.lessonById.set(l.id, l), this.bySeq.experience.set(l.seq, l.id);
    for (const c of delta.cases) this.caseById.set(c.id, c), this.bySeq.case.set(c.seq, c.id);
    const from = replaceBySeq(s.lessons, dropped.experience, lessons);
    for (let i = from; i < s.lessons.length; i++) s.lessons[i]!.label = `G${i}`;
    replaceBySeq(s.cases, dropped.case, delta.cases);
    for (const kind of KINDS) {
      const rows = delta.vectors[kind];
      if (!rows.ids.length) continue;
      this.matrices[kind] ??= new Int8Matrix(s.dims, this.kernel, rows.ids.length);
      this.matrices[kind].appendCodes(rows.ids, rows.codes);
    }
    for (const w of delta.whens) this.whenScan.set(w.id, w.code, w.factor);
    applyLexical(s.lexical.experience, delta.lexical.experience, dropped.experience);
    applyLexical(s.lexical.case, delta.lexical.case, dropped.case);
    applyLexical(s.lexical.when, delta.lexical.when, dropped.experience);
    s.unembedded = delta.unembedded;
    s.config = delta.config;
    s.signing = delta.signing;
    s.subscriptions = delta.subscriptions;
    s.anyWhen = delta.anyWhen;
    s.contentVersion = delta.contentVersion;
    s.libraryVersion = Math.max(s.libraryVersion, delta.libraryVersion);
  }

  private item(kind: MemoryKind, id: string): SnapshotLesson | SnapshotCase | undefined {
    return kind === "experience" ? this.lessonById.get(id) : this.caseById.get(id);
  }

  private filterable(kind: MemoryKind, item: SnapshotLesson | SnapshotCase) {
    return {
      tags: item.tags,
      domain: kind === "experience" ? (item as SnapshotLesson).domain : null,
      createdAt: item.createdAt,
      lastUsedAt: item.lastUsedAt,
      metadata: item.metadata,
    };
  }

  private matching(kind: MemoryKind, id: string, filter: MemoryFilter | undefined): boolean {
    const item = this.item(kind, id);
    return item !== undefined && matchesFilter(this.filterable(kind, item), kind, filter);
  }

  async vectorHits(query: Float32Array, kind: MemoryKind, k: number, threshold: number, filter?: MemoryFilter): Promise<VectorHit[]> {
    const m = this.matrices[kind];
    if (!m) return [];
    const only = filter ? (id: string) => this.matching(kind, id, filter) : undefined;
    return m.topK(query, k, threshold, (ids) => m.decode(ids), { filter: only });
  }

  unembedded(kind: MemoryKind) {
    return this.snapshot.unembedded[kind];
  }

  async vectorSimilarities(query: Float32Array, ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const kind of KINDS) for (const [id, v] of this.matrices[kind]?.decode(ids) ?? []) out.set(id, cosine(query, v));
    return out;
  }

  get usageLearned(): boolean {
    return this.learned;
  }

  usageSimilar(query: Float32Array, kind: MemoryKind, threshold: number, k: number) {
    return this.centroidScans[kind].similar(query, threshold, USAGE_SCAN_WIDTH * k);
  }

  usageSimilarities(query: Float32Array, kind: MemoryKind, ids: readonly string[]) {
    return this.centroidScans[kind].similarities(query, ids);
  }

  usageMatches(kind: MemoryKind, terms: readonly string[], k: number, now: number, filter?: MemoryFilter): Scored[] {
    if (!terms.length) return [];
    const decay = this.snapshot.config.decay;
    const out: Scored[] = [];
    for (const [id, phrases] of this.phrases[kind]) {
      const item = this.item(kind, id);
      if (!item || !matchesFilter(this.filterable(kind, item), kind, filter)) continue;
      const score = phraseMatch(terms, phrases, phraseFade(decay, now, item.q, item.uses));
      if (score > 0) out.push({ id, score });
    }
    return out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
  }

  get anyWhen(): boolean {
    return this.snapshot.anyWhen;
  }

  whenSimilar(query: Float32Array, k: number, threshold: number) {
    return this.whenScan.similar(query, threshold, k);
  }

  whenSimilarities(query: Float32Array, ids: readonly string[]) {
    return this.whenScan.similarities(query, ids);
  }

  bm25(
    kind: MemoryKind,
    terms: readonly string[],
    k: number,
    filter: MemoryFilter | undefined,
    when: boolean,
  ): { text: Scored[]; when: Scored[] } {
    const main = this.snapshot.lexical[kind];
    const chosen = chosenTerms(
      main,
      main.contentRows,
      terms.map((word) => ({ word, term: ftsTermOf(word) ?? word })),
    );
    if (!chosen.length) return { text: [], when: [] };
    const ids = this.bySeq[kind];
    const accept = (row: number) => {
      const id = ids.get(row);
      return id !== undefined && this.matching(kind, id, filter);
    };
    const search = (table: Bm25Table) => bm25Rows(table, chosen, k, accept).map((r) => ({ id: ids.get(r.row)!, score: r.score }));
    return { text: search(main), when: when ? search(this.snapshot.lexical.when) : [] };
  }

  hydrate(kind: MemoryKind, ids: readonly string[], filter?: MemoryFilter): ItemFields[] {
    const out: ItemFields[] = [];
    for (const id of ids) {
      const item = this.item(kind, id);
      if (!item || !matchesFilter(this.filterable(kind, item), kind, filter)) continue;
      const lesson = kind === "experience" ? (item as SnapshotLesson) : null;
      out.push({
        id,
        kind,
        text: item.text,
        q: item.q,
        tags: item.tags,
        metadata: item.metadata,
        label: lesson?.label ?? null,
        probation: lesson?.probation ?? false,
        lastUsedAt: item.lastUsedAt,
      });
    }
    return out;
  }

  /**
   * Sets the query the prompt source ranks for, the time, and the snapshots of the subscribed
   * libraries to draw on (in the snapshot's subscription order), for the next ranking or block.
   */
  at(now: number, query: { text: string; vec: Float32Array } | null, libraries: readonly SubscribedReader[] = []): this {
    this.now = now;
    this.query = query;
    this.libraries = libraries;
    return this;
  }

  /** Phase A widened by the subscribed libraries' lessons, as the object's Retrieval widens it (cases are never shared). */
  private widen(kinds: readonly MemoryKind[], k1: number, threshold: number, filter: MemoryFilter | undefined) {
    if (!this.libraries.length || !kinds.includes("experience")) return undefined;
    return (own: CandidateInfo[]) =>
      widenByLibraries(
        own,
        this.libraries.map((l) => ({ libraryId: l.libraryId, weight: l.weight, source: l.reader })),
        { query: this.query!, k1, threshold, now: this.now, filter },
        (libraryId, id) => this.sharedState.get(sharedRef(libraryId, id)),
        this.snapshot.config.defaultQ,
      );
  }

  /** The agent's λ for a phase. */
  lambdaFor(phase: RetrieveRequest["phase"]): number {
    return lambdaOf(this.snapshot.config, { phase });
  }

  /** A retrieval's ranking, as the object's Retrieval.retrieve computes it. */
  async rank(req: Pick<RetrieveRequest, "phase" | "lambda" | "k1" | "k2" | "threshold" | "kinds">, filter: MemoryFilter | undefined) {
    const cfg = this.snapshot.config;
    const k1 = req.k1 ?? cfg.k1;
    const lambda = lambdaOf(cfg, req);
    const kinds = req.kinds ?? ["experience", "case"];
    const threshold = req.threshold ?? cfg.threshold;
    return {
      lambda,
      ...(await rankFrom(
        this,
        {
          query: this.query!,
          kinds,
          k1,
          k2: Math.min(req.k2 ?? cfg.k2, k1),
          lambda,
          threshold,
          filter,
          reranker: this.reranker,
          now: this.now,
        },
        this.widen(kinds, k1, threshold, filter),
      )),
    };
  }

  /** Active lessons the filter matches, in label order (the snapshot keeps them by seq). */
  private lessonsOf(filter: MemoryFilter | undefined): SnapshotLesson[] {
    return this.snapshot.lessons.filter((l) => matchesFilter(this.filterable("experience", l), "experience", filter));
  }

  /** The subscribed libraries' lessons for a prompt, under `S#` labels so they never take an own lesson's `G#`, with this agent's Q. */
  private sharedLessons(filter: MemoryFilter | undefined) {
    return this.libraries
      .flatMap((l) => l.reader.lessons(filter).map((lesson) => ({ ...lesson, libraryId: l.libraryId })))
      .map((l, i) => {
        const id = sharedRef(l.libraryId, l.id);
        return {
          id,
          label: `S${i}`,
          text: l.text,
          libraryId: l.libraryId,
          q: this.sharedState.get(id)?.q ?? this.snapshot.config.defaultQ,
        };
      });
  }

  lessons(filter: MemoryFilter | undefined): { id: string; label: string; text: string; libraryId?: string }[] {
    const own = this.lessonsOf(filter)
      .filter((l) => !l.probation)
      .map((l) => ({ id: l.id, label: l.label, text: l.text }));
    return [...own, ...this.sharedLessons(filter).map(({ q: _q, ...l }) => l)];
  }

  onProbation(filter: MemoryFilter | undefined): { id: string; label: string; text: string }[] {
    return this.lessonsOf(filter)
      .filter((l) => l.explore)
      .map((l) => ({ id: l.id, label: l.label, text: l.text }));
  }

  lessonsByQ(filter: MemoryFilter | undefined): string[] {
    const own = this.lessonsOf(filter).sort((a, b) => b.q - a.q || a.seq - b.seq);
    // A stable sort keeps the own lessons' order among equal Qs, and puts them before shared ones (as the object does).
    return [...own, ...this.sharedLessons(filter)].sort((a, b) => b.q - a.q).map((l) => l.id);
  }

  async ranked(kind: MemoryKind, phase: RetrieveRequest["phase"], k2: number, filter: MemoryFilter | undefined) {
    const cfg = this.snapshot.config;
    const k1 = Math.max(cfg.k1, k2);
    const { ranked } = await rankFrom(
      this,
      {
        query: this.query!,
        kinds: [kind],
        k1,
        k2,
        lambda: lambdaOf(cfg, { phase }),
        threshold: cfg.threshold,
        filter,
        reranker: this.reranker,
        now: this.now,
      },
      this.widen([kind], k1, cfg.threshold, filter),
    );
    return ranked.map((r) => ({ ...r.info, base: r.base }));
  }

  informative(ids: readonly string[]): Set<string> {
    return new Set(ids.filter((id) => this.caseById.get(id)?.informative));
  }
}
