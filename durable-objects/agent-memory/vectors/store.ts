import type { Embedder } from "../../../src/adapters/embedder";
import type { VectorHit } from "../../../src/adapters/vector-index";
import { LocalVectorIndex } from "../../../src/adapters/vector-indexes/local";
import { DEFAULT_PENDING_WINDOW_MS, type VectorizeVectorIndex } from "../../../src/adapters/vector-indexes/vectorize";
import { encodeCode } from "../../../src/core/int8-matrix";
import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";
import { cosine, VectorMatrix } from "../../../src/core/vector-math";
import { DomainError } from "../../../src/core/errors";
import { dimsKey, loadCodePages, VectorPages } from "./pages";
import type { VectorItems } from "./types";
import { VectorBackfill } from "./backfill";
import { embedChecked, unavailable, type EmbedderUnavailable } from "./embedding";

export type { EmbedderUnavailable } from "./embedding";

interface VectorRow extends Record<string, SqlStorageValue> {
  item_id: string;
  kind: string;
  vec: ArrayBuffer;
  updated_at: number;
}

export type MemoryVectorIndex = LocalVectorIndex | VectorizeVectorIndex;

export interface VectorStoreOptions {
  /** Builds the index once the dimension is known; unknown models learn it from their first answer. */
  makeIndex: (dims: number) => MemoryVectorIndex;
  /** The agent is moving to a remote index now: its existing vectors are uploaded by `backfillStep` (see VectorBackfill). */
  movingToRemote?: boolean;
  /** Vectors per backfill step. */
  backfillChunk?: number;
  items: VectorItems;
  now: () => number;
  pendingWindowMs?: number;
}

const switchedKey = (model: string) => `vector_index:${model}`;

/**
 * Marks the agent's read model changed (the read_model counter, see schema.ts) where its triggers
 * cannot see it: the in-memory index takes a committed write only after its transaction. The items
 * are named under the new version, so a Worker's delta carries their codes as the index holds them.
 */
function readModelChanged(sql: SqlStorage, ids: readonly string[]): void {
  sql.exec("UPDATE counters SET value = value + 1 WHERE name = 'read_model'");
  sql.exec(
    `INSERT INTO read_content_changes (item_id, seq) SELECT value, (SELECT value FROM counters WHERE name = 'read_model') FROM json_each(?)
     WHERE true ON CONFLICT(item_id) DO UPDATE SET seq = excluded.seq`,
    JSON.stringify(ids),
  );
}

/**
 * The agent's vectors: SQLite is the source of truth (so nothing is lost on eviction), the index
 * answers similarity queries. Only vectors of the active embedder's model and dimension are ever
 * loaded or compared; items without one are matched lexically until the re-embed job reaches them.
 *
 * A remote index (Vectorize) can refuse a write after the SQLite commit. Every change it has not
 * confirmed keeps a row in `vector_outbox`, written in the same transaction as the change, and is
 * published again at load, on the next write and on the sweep; until then it stays in the index's
 * local overlay, so the item never drops out of search.
 */
export class VectorStore {
  private missing = new Map<MemoryKind, Set<string>>();
  /** Set when publishing to the index failed after a commit; the next search reloads from SQLite. */
  private outOfDate: unknown = null;
  /** The index the deployment chose; while vectors move to it (a remote index), `moving` serves instead. */
  private current: MemoryVectorIndex | null = null;
  private moving: LocalVectorIndex | null = null;
  private readonly backfill: VectorBackfill;
  /** The size this agent's vectors of the model have: declared by the embedder, else remembered from the first write. */
  private size: number;
  private rememberedSize: number;
  private outboxGen = 0;
  private readonly pendingWindowMs: number;
  private readonly pages: VectorPages;

  constructor(
    private readonly sql: SqlStorage,
    private readonly source: Embedder | EmbedderUnavailable,
    private readonly opts: VectorStoreOptions,
  ) {
    this.pendingWindowMs = opts.pendingWindowMs ?? DEFAULT_PENDING_WINDOW_MS;
    this.pages = new VectorPages(sql);
    this.rememberedSize = Number(
      this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", dimsKey(this.model)).toArray()[0]?.value ?? 0,
    );
    this.size = this.embedder?.dims || this.rememberedSize;
    this.outboxGen = this.sql.exec<{ g: number | null }>("SELECT max(gen) AS g FROM vector_outbox").one().g ?? 0;
    this.backfill = new VectorBackfill(sql, this.model, opts.backfillChunk);
    if (opts.movingToRemote && !VectorStore.facts(sql, this.model).switched) {
      this.setMeta(switchedKey(this.model), "vectorize");
      this.backfill.start();
    }
  }

  /** What decides the agent's index (see chooseVectorIndex): how many vectors it holds of `model` (one code each), and whether it moved to Vectorize before. */
  static facts(sql: SqlStorage, model: string): { memories: number; switched: boolean } {
    const memories = new VectorPages(sql).count(model);
    const switched = sql.exec("SELECT 1 FROM meta WHERE key = ?", switchedKey(model)).toArray().length > 0;
    return { memories, switched };
  }

  private setMeta(key: string, value: string): void {
    this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value);
  }

  get embedder(): Embedder | null {
    return "embed" in this.source ? this.source : null;
  }

  get model(): string {
    return this.embedder?.model ?? "unconfigured";
  }

  /** The index that serves searches, or null while the dimension is unknown (an unknown model before its first answer). */
  get index(): MemoryVectorIndex | null {
    if (this.size === 0) return null;
    if (this.backfill.active && this.remote) return (this.moving ??= new LocalVectorIndex(this.size));
    return this.target();
  }

  private target(): MemoryVectorIndex | null {
    if (!this.current && this.size > 0) this.current = this.opts.makeIndex(this.size);
    return this.current;
  }

  /** The remote index, whether it serves yet or is still being filled. */
  private get remote(): VectorizeVectorIndex | null {
    const index = this.target();
    return index && !(index instanceof LocalVectorIndex) ? index : null;
  }

  /** Whether searches are still served locally while the vectors move to the remote index. */
  private get filling(): boolean {
    return this.index !== null && this.index === this.moving;
  }

  /**
   * Loads active items' vectors of the current model into the index (local: a fresh one, from
   * their stored int8 code pages, no float vector) or its overlay (vectorize), and re-publishes
   * what the index has not confirmed.
   */
  async load(): Promise<void> {
    if (this.current instanceof LocalVectorIndex) this.current = null;
    this.moving = null;
    const index = this.index;
    if (index instanceof LocalVectorIndex) {
      this.loadPages(index);
      // Moving to Vectorize: what was written meanwhile is owed to it as well.
      if (this.filling) await this.republish();
      return;
    }
    const byKind = { experience: this.opts.items.active("experience"), case: this.opts.items.active("case") };
    const active = new Set([...byKind.experience, ...byKind.case]);
    this.refreshMissing(byKind, this.embeddedIds());
    if (!index) return;
    const bytes = this.size * Float32Array.BYTES_PER_ELEMENT;
    await index.track(
      this.sql
        .exec<{ item_id: string }>("SELECT item_id FROM vectors WHERE model = ?", this.model)
        .toArray()
        .map((r) => r.item_id),
    );
    const recent = this.sql
      .exec<VectorRow>(
        "SELECT item_id, kind, vec, updated_at FROM vectors WHERE model = ? AND updated_at > ? AND length(vec) = ?",
        this.model,
        this.opts.now() - this.pendingWindowMs,
        bytes,
      )
      .toArray()
      .filter((r) => active.has(r.item_id));
    index.seedPending(recent.map((r) => ({ id: r.item_id, kind: r.kind, vector: new Float32Array(r.vec), writtenAt: r.updated_at })));
    await this.republish();
  }

  /** A cold start reads the code pages, never every item (see loadCodePages). */
  private loadPages(index: LocalVectorIndex): void {
    if (loadCodePages(this.pages, index, this.model, this.size, this.opts.items)) {
      this.missing = new Map();
      return;
    }
    this.refreshMissing({ experience: this.opts.items.active("experience"), case: this.opts.items.active("case") }, index);
  }

  /**
   * The local index's codes of `kind` as it searches them, or null while searches are answered by
   * a remote index (or a local one filling it): a snapshot can stand in only for a local scan.
   */
  localCodes(kind: MemoryKind): { ids: string[]; codes: Uint8Array } | null {
    const index = this.index;
    if (this.remote) return null;
    return index instanceof LocalVectorIndex ? index.codes(kind) : { ids: [], codes: new Uint8Array(0) };
  }

  /** localCodes of those of `ids` the index holds. */
  localCodesOf(kind: MemoryKind, ids: readonly string[]): { ids: string[]; codes: Uint8Array } | null {
    const index = this.index;
    if (this.remote) return null;
    return index instanceof LocalVectorIndex ? index.codesOf(kind, ids) : { ids: [], codes: new Uint8Array(0) };
  }

  /** The size of the active embedder's vectors (0 while unknown). */
  get dims(): number {
    return this.size;
  }

  /** When the next backfill step is due (see VectorBackfill), or null when no vectors are moving. */
  backfillDueAt(): number | null {
    return this.remote ? this.backfill.dueAt(this.opts.now(), this.pendingWindowMs) : null;
  }

  /** One bounded step of moving the vectors to the remote index; the last one switches searches to it. */
  async backfillStep(): Promise<void> {
    const remote = this.remote;
    if (!remote || !this.backfill.active) return;
    const done = await this.backfill.step({
      remote,
      items: this.opts.items,
      bytes: this.size * Float32Array.BYTES_PER_ELEMENT,
      now: this.opts.now,
      settleMs: this.pendingWindowMs,
      requeue: (ids) => this.markSync(ids, "upsert"),
    });
    await this.republish();
    if (done) await this.load();
  }

  /** Whether the remote index still owes confirmation of some change (the sweep retries them). */
  hasUnpublished(): boolean {
    return this.remote !== null && this.sql.exec("SELECT 1 FROM vector_outbox LIMIT 1").toArray().length > 0;
  }

  /** The stored vector of one memory, if it has one of the active model. */
  vectorOf(itemId: string): Float32Array | null {
    return this.exactVectors([itemId]).get(itemId) ?? null;
  }

  /** Embeds with the active model; configuration problems become a 503 that names the setting. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (!texts.length) return [];
    const out = await embedChecked(this.source, texts, this.size);
    if (this.size === 0) this.size = out[0]!.length;
    return out;
  }

  /** Writes inside the caller's transaction; call `publish` after it commits. Older models' vectors go. */
  writeSync(itemId: string, kind: MemoryKind, vector: Float32Array): void {
    if (!this.embedder) throw unavailable(this.source);
    if (vector.length !== this.size) {
      // Only a vector embedded by another store gets here: the embedder changed while the request awaited it.
      throw DomainError.retryLater(
        `The ${vector.length}-dimensional vector for '${itemId}' does not fit the active embedder ${this.model}${this.size ? ` (${this.size} dimensions)` : ""}; the embedder changed while this request ran. Retry it.`,
      );
    }
    this.rememberSize();
    this.sql.exec("DELETE FROM vectors WHERE item_id = ? AND model <> ?", itemId, this.model);
    this.pages.remove(itemId, this.model);
    this.sql.exec(
      `INSERT INTO vectors (item_id, kind, model, vec, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(item_id, model) DO UPDATE SET vec = excluded.vec, updated_at = excluded.updated_at, kind = excluded.kind`,
      itemId,
      kind,
      this.model,
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
      this.opts.now(),
    );
    this.pages.put(itemId, this.model, kind, encodeCode(vector));
    this.markSync([itemId], "upsert");
    this.missing.get(kind)?.delete(itemId);
  }

  deleteSync(itemId: string): void {
    this.sql.exec("DELETE FROM vectors WHERE item_id = ?", itemId);
    this.pages.remove(itemId);
    this.markSync([itemId], "remove");
    for (const set of this.missing.values()) set.delete(itemId);
  }

  /** Stored with the first vector, so a restarted agent knows the size before its model answers again. */
  private rememberSize(): void {
    if (this.rememberedSize === this.size) return;
    this.rememberedSize = this.size;
    this.setMeta(dimsKey(this.model), String(this.size));
  }

  /** Records changes a remote index has yet to confirm; a local index is rebuilt from SQLite at load instead. */
  private markSync(ids: readonly string[], op: "upsert" | "remove"): Map<string, number> {
    const gens = new Map<string, number>();
    if (!this.remote) return gens;
    for (const id of ids) {
      const gen = ++this.outboxGen;
      this.sql.exec(
        "INSERT INTO vector_outbox (item_id, op, gen) VALUES (?, ?, ?) ON CONFLICT(item_id) DO UPDATE SET op = excluded.op, gen = excluded.gen",
        id,
        op,
        gen,
      );
      gens.set(id, gen);
    }
    return gens;
  }

  /**
   * Makes committed vectors of these items searchable (or unsearchable when inactive). It runs
   * after the SQLite transaction has committed, so a failure here must not fail the request (a
   * retry would apply the change twice): the change stays in the outbox, the index is marked out
   * of date, and both are repaired before the next search.
   */
  async publish(active: string[], inactive: string[]): Promise<void> {
    const gens = new Map([...this.markSync(active, "upsert"), ...this.markSync(inactive, "remove")]);
    try {
      await this.publishTo(this.index, active, inactive);
    } catch (err) {
      this.outOfDate = err;
      return;
    }
    // While the vectors move, the local index took the change and the outbox still owes it to Vectorize.
    if (!this.filling) this.confirm(gens);
    // A snapshot built between the commit and now has the commit's version without its vectors.
    if (active.length || inactive.length) readModelChanged(this.sql, [...active, ...inactive]);
    await this.republish();
  }

  /** Publishes what the remote index has not confirmed yet; failures leave it for the next attempt. */
  async republish(): Promise<void> {
    const index = this.remote;
    if (!index) return;
    const rows = this.sql
      .exec<{ item_id: string; op: string; gen: number }>("SELECT item_id, op, gen FROM vector_outbox ORDER BY gen LIMIT 500")
      .toArray();
    if (!rows.length) return;
    const gens = new Map(rows.map((r) => [r.item_id, r.gen]));
    const upserts = rows.filter((r) => r.op === "upsert").map((r) => r.item_id);
    const active = [...this.opts.items.activeKinds(upserts).keys()];
    const activeSet = new Set(active);
    const inactive = rows.filter((r) => !activeSet.has(r.item_id)).map((r) => r.item_id);
    try {
      await this.publishTo(index, active, inactive);
    } catch (err) {
      this.outOfDate = err;
      // Kept in the overlay until the index confirms them, so they stay searchable meanwhile.
      if (!this.filling) index.seedPending(this.vectorsOf(active).map((it) => ({ ...it, writtenAt: this.opts.now() })));
      return;
    }
    this.confirm(gens);
  }

  private confirm(gens: Map<string, number>): void {
    for (const [id, gen] of gens) this.sql.exec("DELETE FROM vector_outbox WHERE item_id = ? AND gen = ?", id, gen);
  }

  /** One statement however many ids: the list travels as one JSON parameter, not one per id. */
  private vectorsOf(ids: readonly string[]): { id: string; vector: Float32Array; kind: string }[] {
    if (!ids.length) return [];
    return this.sql
      .exec<VectorRow>(
        "SELECT item_id, kind, vec FROM vectors WHERE model = ? AND length(vec) = ? AND item_id IN (SELECT value FROM json_each(?))",
        this.model,
        this.size * Float32Array.BYTES_PER_ELEMENT,
        JSON.stringify(ids),
      )
      .toArray()
      .map((r) => ({ id: r.item_id, kind: r.kind, vector: new Float32Array(r.vec) }));
  }

  /** The stored float vectors of `ids`. */
  private exactVectors(ids: readonly string[]): Map<string, Float32Array> {
    return new Map(this.vectorsOf(ids).map((it) => [it.id, it.vector]));
  }

  private async publishTo(index: MemoryVectorIndex | null, active: string[], inactive: string[]): Promise<void> {
    if (!index) return;
    if (inactive.length) await index.remove(inactive);
    if (!active.length) return;
    const items = this.vectorsOf(active);
    if (items.length) await index.upsert(items);
    const embedded = new Set(items.map((i) => i.id));
    const unembedded = active.filter((id) => !embedded.has(id));
    for (const [id, kind] of this.opts.items.activeKinds(unembedded)) this.missingSet(kind).add(id);
  }

  private missingSet(kind: MemoryKind): Set<string> {
    let set = this.missing.get(kind);
    if (!set) this.missing.set(kind, (set = new Set()));
    return set;
  }

  /** Items with a usable vector of the current model. */
  private embeddedIds(): Set<string> {
    const bytes = this.size * Float32Array.BYTES_PER_ELEMENT;
    return new Set(
      this.sql
        .exec<{ item_id: string }>("SELECT item_id FROM vectors WHERE model = ? AND length(vec) = ?", this.model, bytes)
        .toArray()
        .map((r) => r.item_id),
    );
  }

  /** Recomputes which active items lack a usable vector of the current model. */
  private refreshMissing(active: Record<MemoryKind, string[]>, embedded: { has(id: string): boolean }): void {
    for (const kind of ["experience", "case"] as const) this.missing.set(kind, new Set(active[kind].filter((id) => !embedded.has(id))));
  }

  /** Active items without a current-model vector; kept in memory so retrieval does not scan for them. */
  missingIds(kind: MemoryKind): string[] {
    return [...this.missingSet(kind)];
  }

  /**
   * The nearest active items of `kind`. With a filter, only the items it matches are scanned, so
   * the k best matching items are found however many nearer ones do not match. A remote index
   * cannot filter on tags or metadata (its metadata indexes hold single strings), so there the
   * matching items' vectors are scanned from SQLite.
   */
  async search(vector: Float32Array, kind: MemoryKind, topK: number, minSim: number, filter?: MemoryFilter): Promise<VectorHit[]> {
    if (this.outOfDate) {
      this.outOfDate = null;
      await this.load();
    }
    const index = this.index;
    if (!index) return [];
    if (!filter) return index.query(vector, { topK, minSim, kind });
    const only = this.opts.items.active(kind, filter);
    if (!only.length) return [];
    if (index instanceof LocalVectorIndex) return index.query(vector, { topK, minSim, kind, only: new Set(only) });
    const matrix = new VectorMatrix(this.size, only.length);
    for (const it of this.vectorsOf(only)) matrix.upsert(it.id, it.vector);
    return matrix.topK(vector, topK, minSim);
  }

  /**
   * Cosine of `vector` with these items' vectors of the active model, for items another channel
   * found: a local index answers from its codes, as its search ranks (so nothing is read from
   * storage); a remote one from the stored float vectors.
   */
  async similarities(vector: Float32Array, ids: readonly string[]): Promise<Map<string, number>> {
    const index = this.index;
    const vectors = index instanceof LocalVectorIndex ? index.decode(ids) : this.exactVectors(ids);
    return new Map([...vectors].map(([id, v]) => [id, cosine(vector, v)]));
  }

  modelOf(itemId: string): string | null {
    const row = this.sql
      .exec<{ model: string }>("SELECT model FROM vectors WHERE item_id = ? ORDER BY model = ? DESC LIMIT 1", itemId, this.model)
      .toArray()[0];
    return row?.model ?? null;
  }
}
