/**
 * An in-memory stand-in for a Vectorize (V2) index binding, which has no local mode.
 *
 * What it reproduces, because the adapter's correctness depends on it:
 * - eventual consistency: upserts, inserts and deletes are queued and return a `mutationId` at
 *   once, but queries and reads see them only after `settle()` (or, if configured, after a number
 *   of queries), applied in call order;
 * - ids unique across the whole index (namespace is an attribute, as in Vectorize), queries
 *   scoped to one namespace or, without one, to all;
 * - cosine scores (higher is closer), metadata filters (`$eq`, `$ne`, `$in`, `$nin`, `$lt`, `$lte`,
 *   `$gt`, `$gte`, bare value = `$eq`) that only see fields with a metadata index, and the
 *   `returnMetadata` levels;
 * - the documented limits: topK ≤ 100, or ≤ 20 with values or full metadata; ids and namespaces
 *   ≤ 64 bytes; ≤ 1000 vectors per write; dimensions must match; metadata key rules;
 * - outages: `failNext` makes the next calls of one method reject, as the binding does when the
 *   service refuses a request.
 */
import { cosine } from "../../src/core/vector-math";

export interface InMemoryVectorizeOptions {
  dimensions: number;
  /** Metadata properties with a metadata index; filters on any other property match nothing. */
  metadataIndexes?: string[];
  /** When set, a mutation is applied before the query that follows this many queries after it. */
  visibleAfterQueries?: number;
}

interface Stored {
  id: string;
  values: Float32Array;
  namespace?: string;
  metadata?: Record<string, VectorizeVectorMetadata>;
}

interface Queued {
  mutationId: string;
  queriesSeen: number;
  apply: () => void;
}

const MAX_TOPK = 100;
const MAX_TOPK_WITH_DATA = 20;
const MAX_BATCH = 1000;
const MAX_NAME_BYTES = 64;
const MAX_METADATA_BYTES = 10 * 1024;
const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s).length;

export class InMemoryVectorize implements Vectorize {
  readonly dimensions: number;
  readonly metadataIndexes: ReadonlySet<string>;
  private readonly visibleAfterQueries: number;
  private readonly vectors = new Map<string, Stored>();
  private readonly queue: Queued[] = [];
  private lastMutation = "";
  private lastProcessedAt = 0;
  private readonly failures = new Map<string, number>();
  /** Every query made, for assertions on what the caller asked for. */
  readonly queries: { vector: number[]; options: VectorizeQueryOptions | undefined }[] = [];

  constructor(opts: InMemoryVectorizeOptions) {
    if (!Number.isInteger(opts.dimensions) || opts.dimensions <= 0) throw new RangeError("dimensions must be a positive integer");
    this.dimensions = opts.dimensions;
    this.metadataIndexes = new Set(opts.metadataIndexes ?? ["kind"]);
    this.visibleAfterQueries = opts.visibleAfterQueries ?? Number.POSITIVE_INFINITY;
  }

  /** Applies every queued mutation; returns how many there were. */
  settle(): number {
    const n = this.queue.length;
    this.applyReady(() => true);
    return n;
  }

  /** The next `times` calls of `method` reject without changing anything. */
  failNext(method: "upsert" | "insert" | "deleteByIds" | "query", times = 1): void {
    this.failures.set(method, (this.failures.get(method) ?? 0) + times);
  }

  private maybeFail(method: string): void {
    const left = this.failures.get(method) ?? 0;
    if (left <= 0) return;
    this.failures.set(method, left - 1);
    throw new Error(`VECTOR_${method.toUpperCase()}_ERROR: the service is unavailable`);
  }

  get pendingMutations(): number {
    return this.queue.length;
  }

  /** Whether an id is visible to queries right now (a test-side peek, not a binding method). */
  hasVisible(id: string): boolean {
    return this.vectors.has(id);
  }

  async describe(): Promise<VectorizeIndexInfo> {
    return {
      vectorCount: this.vectors.size,
      dimensions: this.dimensions,
      processedUpToDatetime: this.lastProcessedAt,
      // Typed as a number in workers-types although the service reports a UUID string.
      processedUpToMutation: this.lastMutation as unknown as number,
    };
  }

  async query(vector: VectorFloatArray | number[], options?: VectorizeQueryOptions): Promise<VectorizeMatches> {
    this.maybeFail("query");
    this.applyReady((q) => q.queriesSeen >= this.visibleAfterQueries);
    this.queries.push({ vector: Array.from(vector), options });
    try {
      return this.search(vector, options);
    } finally {
      for (const q of this.queue) q.queriesSeen++;
    }
  }

  async queryById(vectorId: string, options?: VectorizeQueryOptions): Promise<VectorizeMatches> {
    const found = this.vectors.get(vectorId);
    if (!found) return { matches: [], count: 0 };
    return this.query(found.values, options);
  }

  async insert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    this.maybeFail("insert");
    const copies = this.validateWrite(vectors);
    return this.enqueue(() => {
      // Insert keeps what exists; only new ids are added.
      for (const v of copies) if (!this.vectors.has(v.id)) this.vectors.set(v.id, v);
    });
  }

  async upsert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    this.maybeFail("upsert");
    const copies = this.validateWrite(vectors);
    return this.enqueue(() => {
      // Upsert replaces the whole record, metadata and namespace included; nothing is merged.
      for (const v of copies) this.vectors.set(v.id, v);
    });
  }

  async deleteByIds(ids: string[]): Promise<VectorizeAsyncMutation> {
    this.maybeFail("deleteByIds");
    if (ids.length > MAX_BATCH) throw new Error(`deleteByIds: at most ${MAX_BATCH} ids per call, got ${ids.length}`);
    for (const id of ids) this.validateName("id", id);
    const copy = [...ids];
    return this.enqueue(() => {
      for (const id of copy) this.vectors.delete(id);
    });
  }

  async getByIds(ids: string[]): Promise<VectorizeVector[]> {
    const out: VectorizeVector[] = [];
    for (const id of ids) {
      const v = this.vectors.get(id);
      if (v) out.push({ ...this.toVector(v, false, "all"), values: Array.from(v.values) });
    }
    return out;
  }

  private enqueue(apply: () => void): VectorizeAsyncMutation {
    const mutationId = crypto.randomUUID();
    this.queue.push({ mutationId, queriesSeen: 0, apply });
    if (this.visibleAfterQueries <= 0) this.applyReady(() => true);
    return { mutationId };
  }

  /** Mutations land in order: a later one never overtakes an earlier one that is not ready. */
  private applyReady(ready: (q: Queued) => boolean): void {
    while (this.queue.length > 0 && ready(this.queue[0]!)) {
      const q = this.queue.shift()!;
      q.apply();
      this.lastMutation = q.mutationId;
      this.lastProcessedAt = Date.now();
    }
  }

  private validateName(what: string, value: string): void {
    const n = bytes(value);
    if (n === 0 || n > MAX_NAME_BYTES) throw new Error(`vector ${what} must be 1..${MAX_NAME_BYTES} bytes, got ${n}`);
  }

  private validateWrite(vectors: VectorizeVector[]): Stored[] {
    if (vectors.length > MAX_BATCH) throw new Error(`at most ${MAX_BATCH} vectors per write, got ${vectors.length}`);
    return vectors.map((v) => {
      this.validateName("id", v.id);
      if (v.namespace !== undefined) this.validateName("namespace", v.namespace);
      if (v.values.length !== this.dimensions) {
        throw new Error(`vector ${v.id} has ${v.values.length} dimensions, index has ${this.dimensions}`);
      }
      if (!Array.from(v.values).every(Number.isFinite)) throw new Error(`vector ${v.id} has non-finite values`);
      if (v.metadata !== undefined) {
        for (const key of Object.keys(v.metadata)) {
          if (key === "" || key.includes(".") || key.includes('"') || key.startsWith("$")) {
            throw new Error(`invalid metadata key "${key}" on vector ${v.id}`);
          }
        }
        if (bytes(JSON.stringify(v.metadata)) > MAX_METADATA_BYTES) throw new Error(`metadata of vector ${v.id} exceeds 10 KiB`);
      }
      // Copied (and stored as float32, like the service) so later caller mutations cannot leak in.
      return {
        id: v.id,
        values: Float32Array.from(v.values),
        namespace: v.namespace,
        metadata: v.metadata === undefined ? undefined : structuredClone(v.metadata),
      };
    });
  }

  private search(vector: VectorFloatArray | number[], options: VectorizeQueryOptions = {}): VectorizeMatches {
    const topK = options.topK ?? 5;
    const returnValues = options.returnValues ?? false;
    const level: VectorizeMetadataRetrievalLevel =
      options.returnMetadata === true
        ? "all"
        : options.returnMetadata === false || options.returnMetadata === undefined
          ? "none"
          : options.returnMetadata;
    const cap = returnValues || level === "all" ? MAX_TOPK_WITH_DATA : MAX_TOPK;
    if (!Number.isInteger(topK) || topK < 1 || topK > cap) {
      throw new Error(
        `topK must be an integer in 1..${cap} ${cap === MAX_TOPK_WITH_DATA ? "when returning values or all metadata" : ""}, got ${topK}`.trim(),
      );
    }
    if (vector.length !== this.dimensions) throw new Error(`query vector has ${vector.length} dimensions, index has ${this.dimensions}`);
    if (options.namespace !== undefined) this.validateName("namespace", options.namespace);
    const q = Float32Array.from(vector);

    const scored: { v: Stored; score: number }[] = [];
    for (const v of this.vectors.values()) {
      if (options.namespace !== undefined && v.namespace !== options.namespace) continue;
      if (options.filter && !this.matchesFilter(v, options.filter)) continue;
      scored.push({ v, score: cosine(q, v.values) });
    }
    scored.sort((a, b) => b.score - a.score || (a.v.id < b.v.id ? -1 : 1));
    const matches = scored.slice(0, topK).map(({ v, score }) => ({ ...this.toVector(v, returnValues, level), score }));
    return { matches, count: matches.length };
  }

  private toVector(
    v: Stored,
    withValues: boolean,
    level: VectorizeMetadataRetrievalLevel,
  ): Omit<VectorizeVector, "values"> & { values?: number[] } {
    const out: Omit<VectorizeVector, "values"> & { values?: number[] } = { id: v.id };
    if (withValues) out.values = Array.from(v.values);
    if (v.namespace !== undefined) out.namespace = v.namespace;
    if (v.metadata !== undefined && level !== "none") {
      const md = structuredClone(v.metadata);
      if (level === "indexed") for (const key of Object.keys(md)) if (!this.metadataIndexes.has(key)) delete md[key];
      out.metadata = md;
    }
    return out;
  }

  private matchesFilter(v: Stored, filter: VectorizeVectorMetadataFilter): boolean {
    for (const [field, cond] of Object.entries(filter)) {
      const value = this.metadataIndexes.has(field) ? v.metadata?.[field] : undefined;
      if (!this.matchesCondition(value, cond)) return false;
    }
    return true;
  }

  private matchesCondition(value: VectorizeVectorMetadata | undefined, cond: VectorizeVectorMetadataFilter[string]): boolean {
    if (cond === null || typeof cond !== "object") return cond === null ? value === undefined : value === cond;
    for (const [op, operand] of Object.entries(cond)) {
      switch (op) {
        case "$eq":
          if (operand === null ? value !== undefined : value !== operand) return false;
          break;
        case "$ne":
          if (operand === null ? value === undefined : value === operand) return false;
          break;
        case "$in":
          if (!Array.isArray(operand)) throw new Error("$in expects an array");
          if (value === undefined || !operand.includes(value as never)) return false;
          break;
        case "$nin":
          if (!Array.isArray(operand)) throw new Error("$nin expects an array");
          if (value !== undefined && operand.includes(value as never)) return false;
          break;
        case "$lt":
        case "$lte":
        case "$gt":
        case "$gte": {
          if (value === undefined || typeof value !== typeof operand || Array.isArray(value)) return false;
          const a = value as string | number | boolean;
          const b = operand as string | number | boolean;
          const ok = op === "$lt" ? a < b : op === "$lte" ? a <= b : op === "$gt" ? a > b : a >= b;
          if (!ok) return false;
          break;
        }
        default:
          throw new Error(`unsupported filter operator ${op}`);
      }
    }
    return true;
  }
}
