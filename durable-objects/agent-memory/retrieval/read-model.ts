import { centroidFactor, type LearnedPhrase } from "../../../src/core/usage-memory";
import type { MemoryKind } from "../../../src/core/memory-types";
import { PROBATION } from "../../../src/core/probation";
import type { ContentDelta } from "../../../src/core/ranking/snapshot-delta";
import { decodedBytes } from "../../../src/core/ranking/snapshot-footprint";
import {
  encodeSnapshot,
  SNAPSHOT_FORMAT,
  type LearnDelta,
  type LexicalTable,
  type ReadModelSnapshot,
  type SigningSecret,
} from "../../../src/core/ranking/snapshot";
import type { MemoryContext } from "../storage/context";
import type { Retrieval } from "./retrieval";
import { ACTIVE_OF_IDS, activeCases, activeLessons, contentDelta, contentRowsOf } from "./content-delta";
import { ftsStatistics } from "./fts-statistics";
import { parseSharedRef, sharedRef, type Subscription } from "../../../src/core/shared-lessons";

/** Which snapshot a Worker holds: nothing changes for it while all three stay. */
export interface ReadModelVersion {
  incarnation: string;
  contentVersion: number;
  learnSeq: number;
}

/**
 * Why a Worker must read through the object: the agent's vectors are searched remotely (Vectorize),
 * its snapshot is larger than the deployment lets a Worker hold, or it pins a shared library to a
 * version (whose frozen copy, less what the library held since, its object merges at each read).
 * Unpinned subscriptions are served at the edge: the snapshot lists them, and a Worker ranks each
 * library's own snapshot beside the agent's.
 */
export type Unpublishable = "remote-index" | "too-large" | "pinned-subscription";

/**
 * A content change reaches a Worker as a ContentDelta from the version it holds (or, for a Worker
 * holding nothing, from the snapshot built last: the base), then what rewards and uses changed.
 */
/** A base snapshot a Worker fetches (`bytes` is its first part when it is over the part size): its content version and size. */
export type SnapshotBase = { contentVersion: number; total: number };

export type ReadModelAnswer =
  | { kind: "current"; libraryVersion: number; learnSeq: number }
  | { kind: "delta"; content: ContentDelta | null; delta: LearnDelta }
  | { kind: "snapshot"; bytes: Uint8Array; base: SnapshotBase; content: ContentDelta | null; delta: LearnDelta | null }
  | { kind: "unpublishable"; reason: Unpublishable; detail: string; libraryVersion: number };

/** `when` texts embedded before a snapshot or delta is built, in batches of the retrieval's size: a bounded wait. */
const WHEN_ROUNDS = 8;
/** A delta of more changed items than this (or this share of the library) is answered by a snapshot. */
const DELTA_MAX_ITEMS = 2_000;
const DELTA_MAX_SHARE = 0.25;
/** Past this many items changed since the base (or this share of the library), a new base is built in the background. */
const COMPACT_ITEMS = 256;
const COMPACT_SHARE = 0.02;
/** Rows of change log the upkeep lets stand without a compaction (see trimLog). */
const LOG_KEEP = 4 * COMPACT_ITEMS;

/** The snapshot built last, which a Worker holding nothing starts from. */
interface Base {
  contentVersion: number;
  learnSeq: number;
  bytes: Uint8Array;
  /** Of the bytes, those of vector codes: what decodedBytes weighs apart. */
  codes: number;
  items: number;
  model: string;
  dims: number;
}

const counter = (sql: SqlStorage, name: string) =>
  sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = ?", name).toArray()[0]?.value ?? 0;

/**
 * The agent's read model as Workers serve reads from it (src/platform/edge/): a base
 * snapshot, built on the first ask and again in the background once many items changed since it,
 * then deltas: of content from the change log (content-delta.ts), and of what rewards and uses
 * changed. Building reads what retrieval reads, from the same sources: the local index's codes, the
 * usage and `when` scans, FTS5's statistics, the rows.
 */
export class ReadModel {
  private built: Base | null = null;
  private building: Promise<Base> | null = null;
  private refused: { contentVersion: number; maxBytes: number; bytes: number; codes: number } | null = null;

  constructor(
    private readonly ctx: MemoryContext,
    private readonly retrieval: Retrieval,
    private readonly incarnation: () => string,
    private readonly signing: () => SigningSecret,
    private readonly subscriptions: () => Subscription[],
  ) {}

  private versions() {
    const sql = this.ctx.sql;
    return {
      contentVersion: counter(sql, "read_model"),
      learnSeq: counter(sql, "read_learn"),
      libraryVersion: sql.exec<{ v: number | null }>("SELECT max(version) AS v FROM library_versions").one().v ?? 0,
    };
  }

  /** The read model's versions, and the size of the base snapshot (null if none was asked for). */
  published(): { contentVersion: number; learnSeq: number; bytes: number | null } {
    const v = this.versions();
    const built = this.built ? this.built.bytes.length : this.refused?.contentVersion === v.contentVersion ? this.refused.bytes : null;
    return { contentVersion: v.contentVersion, learnSeq: v.learnSeq, bytes: built };
  }

  /** What a Worker holding `have` needs to be current: nothing, deltas, a snapshot (and deltas), or a reason to read through the object. */
  async answer(have: ReadModelVersion | null, maxBytes: number, partBytes = Number.POSITIVE_INFINITY): Promise<ReadModelAnswer> {
    const v = this.versions();
    // Checked before "current": a Worker holding a snapshot from before the pin stops serving it at
    // its next revalidation, within the staleness bound.
    if (this.subscriptions().some((s) => s.pinVersion !== null)) {
      return {
        kind: "unpublishable",
        reason: "pinned-subscription",
        detail: "this agent pins a shared library to a version, whose frozen copy its memory merges at each read",
        libraryVersion: v.libraryVersion,
      };
    }
    const mine = have !== null && have.incarnation === this.incarnation();
    if (mine && have.contentVersion === v.contentVersion) {
      return have.learnSeq === v.learnSeq
        ? { kind: "current", libraryVersion: v.libraryVersion, learnSeq: v.learnSeq }
        : { kind: "delta", content: null, delta: this.delta(have.learnSeq) };
    }
    // The codes of no item: null when searched remotely; localCodes would copy every code (10 MB at 100,000).
    if (this.ctx.vectors.localCodesOf("experience", []) === null) {
      return {
        kind: "unpublishable",
        reason: "remote-index",
        detail: "this agent's vectors are searched in Vectorize",
        libraryVersion: v.libraryVersion,
      };
    }
    if (mine && have.contentVersion < v.contentVersion) {
      const content = await this.contentSince(have.contentVersion);
      if (content) return { kind: "delta", content, delta: this.delta(have.learnSeq) };
    }
    const refused = this.refused;
    if (refused?.contentVersion === v.contentVersion && refused.maxBytes === maxBytes)
      return this.tooLarge(refused, maxBytes, v.libraryVersion);
    // A library whose texts and codes alone would be over the limit decoded is refused without building its snapshot.
    const least = this.leastBytes();
    if (decodedBytes(least.bytes, least.codes) > maxBytes) {
      this.refused = { contentVersion: v.contentVersion, maxBytes, bytes: least.bytes, codes: least.codes };
      return this.tooLarge(this.refused, maxBytes, v.libraryVersion);
    }
    // A base of another embedder than the agent's now cannot take deltas of the new one's vectors.
    let base = this.built?.model === this.ctx.vectors.model && this.built.dims === this.ctx.vectors.dims ? this.built : await this.build();
    let content = base.contentVersion === counter(this.ctx.sql, "read_model") ? null : await this.contentSince(base.contentVersion);
    if (content === null && base.contentVersion !== counter(this.ctx.sql, "read_model")) {
      base = await this.build();
      content = null;
    }
    if (decodedBytes(base.bytes.length, base.codes) > maxBytes) {
      this.refused = { contentVersion: base.contentVersion, maxBytes, bytes: base.bytes.length, codes: base.codes };
      return this.tooLarge(this.refused, maxBytes, v.libraryVersion);
    }
    const learnSeq = counter(this.ctx.sql, "read_learn");
    const delta = content || base.learnSeq !== learnSeq ? this.delta(base.learnSeq) : null;
    // One RPC message carries at most 32 MiB: a larger base travels as its first part, then the rest by snapshotPart.
    const bytes = base.bytes.length > partBytes ? base.bytes.slice(0, partBytes) : base.bytes;
    return { kind: "snapshot", bytes, base: { contentVersion: base.contentVersion, total: base.bytes.length }, content, delta };
  }

  /**
   * The bytes of the base snapshot from `offset` (at most `partBytes`), while the base of that
   * content version and size is still the one built last; else null, and the Worker asks again.
   */
  snapshotPart(base: SnapshotBase, offset: number, partBytes: number): Uint8Array | null {
    const built = this.built;
    if (!built || built.contentVersion !== base.contentVersion || built.bytes.length !== base.total) return null;
    return built.bytes.slice(offset, offset + partBytes);
  }

  /**
   * The content delta since `since`, or null when the log no longer reaches back that far or a
   * snapshot costs less. Past a share of the library changed since the base, a new base is built
   * in the background and the log before the old one is dropped: a Worker holding a version older
   * than that takes a snapshot.
   */
  private async contentSince(since: number): Promise<ContentDelta | null> {
    await this.embedWhens();
    const sql = this.ctx.sql;
    if (since < counter(sql, "read_floor")) return null;
    const items = this.items();
    const delta = contentDelta(
      this.ctx,
      since,
      Math.min(DELTA_MAX_ITEMS, Math.max(COMPACT_ITEMS, Math.floor(DELTA_MAX_SHARE * items))),
      this.head(),
      {
        whenCodes: (ids) => this.retrieval.situations.codesOf(ids),
        unembedded: (kind) => this.retrieval.unembedded(kind),
      },
    );
    const base = this.built;
    if (base && !this.building) {
      const sinceBase = sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM read_content_changes WHERE seq > ?", base.contentVersion)
        .one().n;
      if (sinceBase > Math.max(COMPACT_ITEMS, COMPACT_SHARE * items)) void this.compact(base.contentVersion).catch(() => undefined);
    }
    return delta;
  }

  /** A new base, then the log up to the one before it dropped: deltas stay answerable from either. */
  private async compact(previous: number): Promise<void> {
    await this.build();
    this.dropLog(previous);
  }

  /**
   * The upkeep's bound on the change log of an agent whose Workers ask seldom (or never, so no
   * compaction runs): past LOG_KEEP rows it is dropped up to the base (all of it without one), and
   * a Worker holding an older version takes a snapshot. Returns whether it dropped anything.
   */
  trimLog(): boolean {
    const sql = this.ctx.sql;
    const rows = (table: string) => sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n;
    if (rows("read_content_changes") + rows("read_fts_log") <= LOG_KEEP) return false;
    return this.dropLog(this.built?.contentVersion ?? counter(sql, "read_model"));
  }

  private dropLog(upTo: number): boolean {
    const sql = this.ctx.sql;
    if (upTo <= counter(sql, "read_floor")) return false;
    sql.exec("DELETE FROM read_content_changes WHERE seq <= ?", upTo);
    sql.exec("DELETE FROM read_fts_log WHERE seq <= ?", upTo);
    sql.exec("UPDATE counters SET value = ? WHERE name = 'read_floor'", upTo);
    return true;
  }

  /** Active items: as the base counted them, else counted now. */
  private items(): number {
    if (this.built) return this.built.items;
    const n = (table: string) => this.ctx.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE status = 'active'`).one().n;
    return n("experiences") + n("cases");
  }

  /** The first refresh also finds the `when`s an embedder change left to embed again. */
  private async embedWhens(): Promise<void> {
    const situations = this.retrieval.situations;
    for (let round = 0; round === 0 || (round < WHEN_ROUNDS && situations.pending); round++) await situations.refresh();
  }

  /** What every snapshot and content delta carries whole: the versions, the embedder, the config, the secret. */
  private head() {
    const cfg = this.ctx.config();
    const vectors = this.ctx.vectors;
    const { contentVersion, libraryVersion } = this.versions();
    return {
      contentVersion,
      libraryVersion,
      model: vectors.model,
      dims: vectors.dims,
      config: {
        k1: cfg.k1,
        k2: cfg.k2,
        lambda: cfg.lambda,
        threshold: this.retrieval.threshold(),
        decay: cfg.decay,
        embedder: cfg.embedder,
        retrievalsDays: cfg.retention.retrievalsDays,
        defaultQ: cfg.defaultQ,
      },
      signing: this.signing(),
      subscriptions: this.subscriptions().map(({ libraryId, weight, pinVersion }) => ({ libraryId, weight, pinVersion })),
      anyWhen: this.retrieval.situations.any,
    };
  }

  /** What a snapshot takes at least: its items' texts (a character is a byte at least) and vector codes. */
  private leastBytes(): { bytes: number; codes: number } {
    const sql = this.ctx.sql;
    const lessons = sql
      .exec<{ n: number; chars: number | null }>(
        "SELECT count(*) AS n, sum(length(text)) AS chars FROM experiences WHERE status = 'active'",
      )
      .one();
    const cases = sql
      .exec<{ n: number; chars: number | null }>(
        "SELECT count(*) AS n, sum(min(length(task), 600)) AS chars FROM cases WHERE status = 'active'",
      )
      .one();
    const codes = (lessons.n + cases.n) * (this.ctx.vectors.dims + 4);
    return { bytes: (lessons.chars ?? 0) + (cases.chars ?? 0) + codes, codes };
  }

  private tooLarge(size: { bytes: number; codes: number }, maxBytes: number, libraryVersion: number): ReadModelAnswer {
    return {
      kind: "unpublishable",
      reason: "too-large",
      detail: `its snapshot takes at least ${size.bytes} bytes, about ${decodedBytes(size.bytes, size.codes)} decoded, more than the ${maxBytes} a Worker holds`,
      libraryVersion,
    };
  }

  /** One build at a time; callers that arrive meanwhile share it. */
  private build() {
    this.building ??= this.snapshot()
      .then(
        (s) =>
          (this.built = {
            contentVersion: s.contentVersion,
            learnSeq: s.learnSeq,
            bytes: encodeSnapshot(s),
            codes: s.vectors.experience.codes.length + s.vectors.case.codes.length,
            items: s.lessons.length + s.cases.length,
            model: s.model,
            dims: s.dims,
          }),
      )
      .finally(() => (this.building = null));
    return this.building;
  }

  /** The current read model. Pending `when` texts are embedded first, as retrieval would; the rest is read in one synchronous pass, so it is one version. */
  async snapshot(): Promise<ReadModelSnapshot> {
    const { situations, usage, reranker } = this.retrieval;
    await this.embedWhens();
    const sql = this.ctx.sql;
    const vectors = this.ctx.vectors;
    const active = (table: string) => `SELECT seq FROM ${table} WHERE status = 'active'`;
    const lexical = (fts: string, table: string): LexicalTable => ({
      ...ftsStatistics(sql, fts, active(table)),
      contentRows: contentRowsOf(sql, table),
    });
    const phrases = sql
      .exec<{ item_id: string; kind: MemoryKind; phrases: string }>("SELECT item_id, kind, phrases FROM usage_memory")
      .toArray()
      .map((r) => ({ id: r.item_id, kind: r.kind, phrases: JSON.parse(r.phrases) as LearnedPhrase[] }))
      .filter((p) => p.phrases.length > 0);
    const codes = (kind: MemoryKind) => vectors.localCodes(kind) ?? { ids: [], codes: new Uint8Array(0) };
    const { anyWhen, ...head } = this.head();
    return {
      format: SNAPSHOT_FORMAT,
      incarnation: this.incarnation(),
      ...head,
      learnSeq: counter(sql, "read_learn"),
      builtAt: this.ctx.now(),
      lessons: activeLessons(sql).map((l, i) => ({ ...l, label: `G${i}` })),
      cases: activeCases(sql),
      vectors: { experience: codes("experience"), case: codes("case") },
      unembedded: { experience: this.retrieval.unembedded("experience"), case: this.retrieval.unembedded("case") },
      centroids: { experience: usage.centroids("experience").entries(), case: usage.centroids("case").entries() },
      whens: situations.codes().map((w) => ({ ...w, factor: 1 })),
      anyWhen,
      usageLearned: !usage.empty,
      phrases,
      lexical: {
        experience: lexical("experiences_fts", "experiences"),
        case: lexical("cases_fts", "cases"),
        when: ftsStatistics(sql, "when_fts", active("experiences")),
      },
      reranker: reranker.current().state,
      shared: sql
        .exec<{ library_id: string; lesson_id: string; q: number; last_used_at: number | null }>(
          "SELECT library_id, lesson_id, q, last_used_at FROM shared_lessons",
        )
        .toArray()
        .map((r) => ({ libraryId: r.library_id, id: r.lesson_id, q: r.q, lastUsedAt: r.last_used_at })),
    };
  }

  /** What rewards and uses changed since `learnSeq` (read_changes names it), as it is now. */
  delta(learnSeq: number): LearnDelta {
    const sql = this.ctx.sql;
    const v = this.versions();
    const changed = sql.exec<{ item_id: string; kind: string }>("SELECT item_id, kind FROM read_changes WHERE seq > ?", learnSeq).toArray();
    const ids = (kind: string) => JSON.stringify(changed.filter((c) => c.kind === kind).map((c) => c.item_id));
    const items: LearnDelta["items"] = [];
    for (const kind of ["experience", "case"] as const) {
      const table = kind === "experience" ? "experiences" : "cases";
      const probation = kind === "experience" ? "probation" : "0";
      for (const r of sql.exec<{ id: string; q: number; probation: number; retrieved: number; last_used_at: number | null }>(
        `SELECT id, q, ${probation} AS probation, retrieved, last_used_at FROM ${table} WHERE ${ACTIVE_OF_IDS}`,
        ids(kind),
      )) {
        items.push({
          id: r.id,
          kind,
          q: r.q,
          probation: r.probation !== PROBATION.trusted,
          explore: r.probation === PROBATION.exploring,
          uses: r.retrieved,
          lastUsedAt: r.last_used_at,
        });
      }
    }
    const usageIds = changed.filter((c) => c.kind === "usage").map((c) => c.item_id);
    const rows = new Map(
      sql
        .exec<{
          item_id: string;
          kind: MemoryKind;
          phrases: string;
          model: string | null;
          centroid: ArrayBuffer | null;
          norm: number;
          n: number;
        }>(
          "SELECT item_id, kind, phrases, model, centroid, norm, n FROM usage_memory WHERE item_id IN (SELECT value FROM json_each(?))",
          JSON.stringify(usageIds),
        )
        .toArray()
        .map((r) => [r.item_id, r] as const),
    );
    const model = this.ctx.vectors.model;
    const usage: LearnDelta["usage"] = usageIds.map((id) => {
      const r = rows.get(id);
      if (!r) return { id, kind: null, phrases: null, centroid: null };
      const centroid = r.centroid && r.model === model ? { code: new Uint8Array(r.centroid), factor: centroidFactor(r.norm, r.n) } : null;
      return { id, kind: r.kind, phrases: JSON.parse(r.phrases) as LearnedPhrase[], centroid };
    });
    const sharedRefs = changed.filter((c) => c.kind === "shared").map((c) => c.item_id);
    const sharedRows = new Map(
      sql
        .exec<{ library_id: string; lesson_id: string; q: number; last_used_at: number | null }>(
          "SELECT library_id, lesson_id, q, last_used_at FROM shared_lessons WHERE library_id || '/' || lesson_id IN (SELECT value FROM json_each(?))",
          JSON.stringify(sharedRefs),
        )
        .toArray()
        .map((r) => [sharedRef(r.library_id, r.lesson_id), r] as const),
    );
    const shared = sharedRefs.flatMap((ref): LearnDelta["shared"] => {
      const r = sharedRows.get(ref);
      if (r) return [{ libraryId: r.library_id, id: r.lesson_id, q: r.q, lastUsedAt: r.last_used_at }];
      const gone = parseSharedRef(ref);
      return gone ? [{ libraryId: gone.libraryId, id: gone.lessonId, q: null, lastUsedAt: null }] : [];
    });
    return {
      learnSeq: v.learnSeq,
      libraryVersion: v.libraryVersion,
      items,
      usage,
      shared,
      usageLearned: !this.retrieval.usage.empty,
      reranker: this.retrieval.reranker.current().state,
    };
  }
}
