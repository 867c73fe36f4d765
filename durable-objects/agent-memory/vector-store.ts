import type { Embedder } from "../../src/adapters/embedder";
import type { VectorHit, VectorIndex } from "../../src/adapters/vector-index";
import type { MemoryKind } from "../../src/core/memory-types";
import { chunks, placeholders } from "./context";

interface VectorRow extends Record<string, SqlStorageValue> {
  item_id: string;
  kind: string;
  vec: ArrayBuffer;
  updated_at: number;
}

/**
 * The agent's vectors: SQLite is the source of truth (so nothing is lost on eviction), the index
 * answers similarity queries. Only vectors of the active embedder's model are ever loaded or
 * compared; items without one are matched lexically until the re-embed job reaches them.
 */
export class VectorStore {
  private missing = new Map<MemoryKind, Set<string>>();
  /** Set when publishing to the index failed after a commit; the next search reloads from SQLite. */
  private outOfDate: unknown = null;

  constructor(
    private readonly sql: SqlStorage,
    readonly embedder: Embedder,
    readonly index: VectorIndex & { seedPending?: (items: { id: string; vector: Float32Array; kind: string; writtenAt: number }[]) => void },
    private readonly now: () => number,
    private readonly pendingWindowMs = 120_000,
  ) {}

  get model(): string {
    return this.embedder.model;
  }

  /** Loads active items' vectors of the current model into the index (local) or its pending set (vectorize). */
  async load(): Promise<void> {
    this.refreshMissing();
    const activeFilter = `(v.kind = 'experience' AND EXISTS (SELECT 1 FROM experiences e WHERE e.id = v.item_id AND e.status = 'active'))
      OR (v.kind = 'case' AND EXISTS (SELECT 1 FROM cases c WHERE c.id = v.item_id AND c.status = 'active'))`;
    if (this.index.kind === "local") {
      const rows = this.sql.exec<VectorRow>(
        `SELECT v.item_id, v.kind, v.vec, v.updated_at FROM vectors v WHERE v.model = ? AND (${activeFilter})`,
        this.model,
      );
      const batch: { id: string; vector: Float32Array; kind: string }[] = [];
      for (const r of rows) batch.push({ id: r.item_id, kind: r.kind, vector: new Float32Array(r.vec) });
      await this.index.upsert(batch);
    } else if (this.index.seedPending) {
      const rows = this.sql
        .exec<VectorRow>(
          `SELECT v.item_id, v.kind, v.vec, v.updated_at FROM vectors v WHERE v.model = ? AND v.updated_at > ? AND (${activeFilter})`,
          this.model,
          this.now() - this.pendingWindowMs,
        )
        .toArray();
      this.index.seedPending(rows.map((r) => ({ id: r.item_id, kind: r.kind, vector: new Float32Array(r.vec), writtenAt: r.updated_at })));
    }
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.length ? this.embedder.embed(texts) : [];
  }

  /** Writes inside the caller's transaction; call `publish` after it commits. Older models' vectors go. */
  writeSync(itemId: string, kind: MemoryKind, vector: Float32Array): void {
    this.sql.exec("DELETE FROM vectors WHERE item_id = ? AND model <> ?", itemId, this.model);
    this.sql.exec(
      `INSERT INTO vectors (item_id, kind, model, vec, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(item_id, model) DO UPDATE SET vec = excluded.vec, updated_at = excluded.updated_at, kind = excluded.kind`,
      itemId,
      kind,
      this.model,
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
      this.now(),
    );
    this.missing.get(kind)?.delete(itemId);
  }

  deleteSync(itemId: string): void {
    this.sql.exec("DELETE FROM vectors WHERE item_id = ?", itemId);
    for (const set of this.missing.values()) set.delete(itemId);
  }

  /**
   * Makes committed vectors of these items searchable (or unsearchable when inactive). It runs
   * after the SQLite transaction has committed, so a failure here must not fail the request (a
   * retry would apply the change twice): the index is marked out of date and rebuilt from SQLite
   * before the next search.
   */
  async publish(active: string[], inactive: string[]): Promise<void> {
    try {
      await this.publishNow(active, inactive);
    } catch (err) {
      this.outOfDate = err;
    }
  }

  private async publishNow(active: string[], inactive: string[]): Promise<void> {
    if (inactive.length) await this.index.remove(inactive);
    if (!active.length) return;
    const items: { id: string; vector: Float32Array; kind: string }[] = [];
    for (const chunk of chunks(active)) {
      const rows = this.sql.exec<VectorRow>(
        `SELECT item_id, kind, vec, updated_at FROM vectors WHERE model = ? AND item_id IN (${placeholders(chunk.length)})`,
        this.model,
        ...chunk,
      );
      for (const r of rows) items.push({ id: r.item_id, kind: r.kind, vector: new Float32Array(r.vec) });
    }
    if (items.length) await this.index.upsert(items);
    const embedded = new Set(items.map((i) => i.id));
    for (const id of active) {
      if (embedded.has(id)) continue;
      const kind = this.sql.exec<{ k: string }>("SELECT 'experience' AS k FROM experiences WHERE id = ? UNION SELECT 'case' FROM cases WHERE id = ?", id, id).toArray()[0]?.k;
      if (kind) this.missingSet(kind as MemoryKind).add(id);
    }
  }

  private missingSet(kind: MemoryKind): Set<string> {
    let set = this.missing.get(kind);
    if (!set) this.missing.set(kind, (set = new Set()));
    return set;
  }

  /** Recomputes which active items lack a vector of the current model (at load and after re-embedding). */
  refreshMissing(): void {
    for (const kind of ["experience", "case"] as const) this.missing.set(kind, new Set(this.missingFromSql(kind)));
  }

  /** Active items without a current-model vector; kept in memory so retrieval does not scan for them. */
  missingIds(kind: MemoryKind): string[] {
    return [...this.missingSet(kind)];
  }

  async search(vector: Float32Array, kind: MemoryKind, topK: number, minSim: number): Promise<VectorHit[]> {
    if (this.outOfDate) {
      this.outOfDate = null;
      await this.load();
    }
    return this.index.query(vector, { topK, minSim, kind });
  }

  modelOf(itemId: string): string | null {
    const row = this.sql
      .exec<{ model: string }>("SELECT model FROM vectors WHERE item_id = ? ORDER BY model = ? DESC LIMIT 1", itemId, this.model)
      .toArray()[0];
    return row?.model ?? null;
  }

  private missingFromSql(kind: MemoryKind, limit = 1_000_000): string[] {
    const table = kind === "experience" ? "experiences" : "cases";
    return this.sql
      .exec<{ id: string }>(
        `SELECT t.id FROM ${table} t WHERE t.status = 'active'
         AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item_id = t.id AND v.model = ?) ORDER BY t.seq LIMIT ?`,
        this.model,
        limit,
      )
      .toArray()
      .map((r) => r.id);
  }
}

