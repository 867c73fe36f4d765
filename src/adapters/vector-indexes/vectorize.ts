import { VectorMatrix } from "../../core/vector-math";
import { chunks } from "../../core/chunks";
import type { VectorHit, VectorIndex } from "../vector-index";

/** Vectorize caps ids and namespace names at 64 bytes. */
export const VECTORIZE_MAX_ID_BYTES = 64;
/** The largest topK Vectorize accepts when neither values nor full metadata are returned. */
export const VECTORIZE_MAX_TOPK = 100;
/** The Workers binding accepts up to 1000 vectors per upsert; half keeps each request well inside the payload limits. */
export const VECTORIZE_WRITE_CHUNK = 500;
/** Vectorize usually applies mutations within seconds; two minutes covers its slow tail. */
export const DEFAULT_PENDING_WINDOW_MS = 120_000;

/** Both binding generations: the typed beta `VectorizeIndex` (what `Env` declares) and the current `Vectorize`. */
export type VectorizeBinding = VectorizeIndex | Vectorize;

export interface VectorizeVectorIndexOptions {
  dims: number;
  /**
   * What makes this owner's item ids unique across the whole index (tenant and agent): Vectorize
   * ids are global, so the id sent is a hash of this scope and the item id.
   */
  idScope: string;
  pendingWindowMs?: number;
  now?: () => number;
}

const encoder = new TextEncoder();

function assertShortName(what: string, value: string): void {
  const bytes = encoder.encode(value).length;
  if (bytes === 0 || bytes > VECTORIZE_MAX_ID_BYTES) {
    throw new RangeError(`Vectorize ${what} must be 1..${VECTORIZE_MAX_ID_BYTES} bytes, got ${bytes} bytes: "${value.slice(0, 80)}"`);
  }
}

function failure(op: string, namespace: string, err: unknown): Error {
  const detail = err instanceof Error ? err.message : String(err);
  return new Error(`Vectorize ${op} failed in namespace "${namespace}": ${detail}`, { cause: err });
}

function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function byBest(a: VectorHit, b: VectorHit): number {
  return b.sim - a.sim || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Search delegated to a Vectorize index, one namespace per tenant+agent, with the index's
 * eventual consistency hidden from callers. Vectorize applies mutations asynchronously, so for a
 * while after a write a query may miss a new vector, return an old version of a changed one, or
 * return one already deleted. This adapter remembers its own recent writes (pending vectors,
 * scanned locally) and deletes (tombstones) for `pendingWindowMs`, and overlays them on every
 * query result, which gives read-your-writes for the Durable Object that owns the namespace.
 *
 * Vectorize ids are unique across the whole index, not per namespace, while item ids are only
 * unique per agent (an imported library keeps its ids). So each item is stored under a hash of
 * `idScope` and its id, with the item id in its metadata, and mapped back through the ids this
 * adapter has written or been told about (`track`); a match it cannot map is no item of its owner.
 * The index must use the cosine metric (scores are similarities) and have a string metadata index
 * on `kind`, or kind-filtered queries find nothing.
 */
export class VectorizeVectorIndex implements VectorIndex {
  readonly kind = "vectorize" as const;
  readonly dims: number;
  readonly namespace: string;
  private readonly binding: VectorizeBinding;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly pending = new Map<string, VectorMatrix>();
  private readonly pendingMeta = new Map<string, { kind: string; writtenAt: number }>();
  private readonly tombstones = new Map<string, number>();
  private readonly idScope: string;
  private readonly vectorIds = new Map<string, string>();
  private readonly itemIds = new Map<string, string>();

  constructor(binding: VectorizeBinding, namespace: string, opts: VectorizeVectorIndexOptions) {
    if (!Number.isInteger(opts.dims) || opts.dims <= 0) throw new RangeError(`dims must be a positive integer, got ${opts.dims}`);
    assertShortName("namespace", namespace);
    const windowMs = opts.pendingWindowMs ?? DEFAULT_PENDING_WINDOW_MS;
    if (!(windowMs >= 0)) throw new RangeError(`pendingWindowMs must be ≥ 0, got ${windowMs}`);
    this.binding = binding;
    this.namespace = namespace;
    this.dims = opts.dims;
    this.windowMs = windowMs;
    this.now = opts.now ?? Date.now;
    this.idScope = opts.idScope;
  }

  /** The id an item is stored under in the index. */
  async vectorId(itemId: string): Promise<string> {
    const known = this.vectorIds.get(itemId);
    if (known !== undefined) return known;
    const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`${this.idScope}\u0000${itemId}`));
    const id = `v_${base64url(new Uint8Array(digest))}`;
    this.vectorIds.set(itemId, id);
    this.itemIds.set(id, itemId);
    return id;
  }

  /** Makes items written before this instance existed (by an earlier one) recognisable in query results. */
  async track(itemIds: readonly string[]): Promise<void> {
    await Promise.all(itemIds.map((id) => this.vectorId(id)));
  }

  /** Recent writes still overlaid on queries. */
  get pendingSize(): number {
    return this.pendingMeta.size;
  }

  /** Recent deletes still filtered out of query results. */
  get tombstoneSize(): number {
    return this.tombstones.size;
  }

  async upsert(items: { id: string; vector: Float32Array; kind: string }[]): Promise<void> {
    await this.write(items, true);
  }

  /**
   * Uploads vectors the owner already serves from elsewhere (an agent moving its existing
   * memories here): written like `upsert`, but not kept in the local overlay, which would
   * otherwise hold a float copy of every memory for the pending window.
   */
  async backfill(items: { id: string; vector: Float32Array; kind: string }[]): Promise<void> {
    await this.write(items, false);
  }

  private async write(items: { id: string; vector: Float32Array; kind: string }[], overlay: boolean): Promise<void> {
    for (const it of items) {
      if (it.vector.length !== this.dims) throw new RangeError(`vector ${it.id} has ${it.vector.length} dims, index expects ${this.dims}`);
    }
    this.prune();
    for (const batch of chunks(items, VECTORIZE_WRITE_CHUNK)) {
      const ids = await Promise.all(batch.map((it) => this.vectorId(it.id)));
      try {
        await this.binding.upsert(
          batch.map(({ id, vector, kind }, n) => ({
            id: ids[n]!,
            values: Array.from(vector),
            namespace: this.namespace,
            metadata: { kind, item: id },
          })),
        );
      } catch (err) {
        throw failure("upsert", this.namespace, err);
      }
      if (!overlay) continue;
      // Recorded only once Vectorize accepted the batch: a failed write must not look stored.
      const at = this.now();
      for (const { id, vector, kind } of batch) this.remember(id, vector, kind, at);
    }
  }

  async remove(ids: string[]): Promise<void> {
    this.prune();
    for (const batch of chunks(ids, VECTORIZE_WRITE_CHUNK)) {
      const vectorIds = await Promise.all(batch.map((id) => this.vectorId(id)));
      try {
        await this.binding.deleteByIds(vectorIds);
      } catch (err) {
        throw failure("deleteByIds", this.namespace, err);
      }
      const at = this.now();
      for (const id of batch) {
        this.forgetPending(id);
        this.tombstones.set(id, at);
      }
    }
  }

  async query(vector: Float32Array, opts: { topK: number; minSim: number; kind?: string }): Promise<VectorHit[]> {
    if (vector.length !== this.dims) throw new RangeError(`query has ${vector.length} dims, index expects ${this.dims}`);
    const k = Math.floor(opts.topK);
    if (!(k > 0)) return [];
    this.prune();

    // Every tombstoned or pending id the index returns is discarded below, so ask for that many
    // extra rows; otherwise recent churn would silently shrink the result.
    const fetchK = Math.min(VECTORIZE_MAX_TOPK, k + this.tombstones.size + this.pendingMeta.size);
    let res: VectorizeMatches;
    try {
      res = await this.binding.query(Array.from(vector), {
        topK: fetchK,
        namespace: this.namespace,
        filter: opts.kind !== undefined ? { kind: opts.kind } : undefined,
        returnMetadata: "indexed",
      });
    } catch (err) {
      throw failure("query", this.namespace, err);
    }

    const hits: VectorHit[] = [];
    for (const m of res.matches) {
      const id = this.itemIds.get(m.id);
      if (id === undefined || this.tombstones.has(id)) continue;
      // A pending id is scored from the local copy below: the index may still hold an older
      // vector (or kind) for it, and the local one is what was last written.
      if (this.pendingMeta.has(id)) continue;
      const kind = m.metadata?.kind;
      if (opts.kind !== undefined && kind !== undefined && kind !== opts.kind) continue;
      if (!(m.score >= opts.minSim)) continue;
      hits.push({ id, sim: m.score });
    }
    if (opts.kind !== undefined) {
      const local = this.pending.get(opts.kind);
      if (local) hits.push(...local.topK(vector, k, opts.minSim));
    } else {
      for (const local of this.pending.values()) hits.push(...local.topK(vector, k, opts.minSim));
    }
    hits.sort(byBest);
    return hits.slice(0, k);
  }

  /**
   * Restores the pending overlay after the owning Durable Object restarts: it passes its recent
   * writes from its own storage. Entries already older than the window are ignored, and an entry
   * never replaces a newer one already known.
   */
  seedPending(items: { id: string; vector: Float32Array; kind: string; writtenAt: number }[]): void {
    this.prune();
    const cutoff = this.now() - this.windowMs;
    for (const { id, vector, kind, writtenAt } of items) {
      if (vector.length !== this.dims) throw new RangeError(`vector ${id} has ${vector.length} dims, index expects ${this.dims}`);
      if (writtenAt <= cutoff) continue;
      const known = this.pendingMeta.get(id)?.writtenAt ?? this.tombstones.get(id);
      if (known !== undefined && known >= writtenAt) continue;
      this.remember(id, vector, kind, writtenAt);
    }
  }

  private remember(id: string, vector: Float32Array, kind: string, writtenAt: number): void {
    this.forgetPending(id);
    this.tombstones.delete(id);
    let m = this.pending.get(kind);
    if (!m) this.pending.set(kind, (m = new VectorMatrix(this.dims, 16)));
    m.upsert(id, vector);
    this.pendingMeta.set(id, { kind, writtenAt });
  }

  private forgetPending(id: string): void {
    const meta = this.pendingMeta.get(id);
    if (!meta) return;
    const m = this.pending.get(meta.kind);
    m?.remove(id);
    if (m && m.size === 0) this.pending.delete(meta.kind);
    this.pendingMeta.delete(id);
  }

  /** Past the window the index is trusted to have applied the write or delete itself. */
  private prune(): void {
    const cutoff = this.now() - this.windowMs;
    for (const [id, meta] of this.pendingMeta) if (meta.writtenAt <= cutoff) this.forgetPending(id);
    for (const [id, at] of this.tombstones) if (at <= cutoff) this.tombstones.delete(id);
  }
}
