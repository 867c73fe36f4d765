import { encodeCode } from "../../../src/core/int8-matrix";
import { CodeScan } from "../../../src/core/ranking/code-scan";
import int8Scan from "../../../src/adapters/vector-indexes/int8-scan.wasm";
import { chunks, placeholders, type MemoryContext } from "../storage/context";

/** `when` texts embedded per retrieval at most: a bulk import catches up over a few retrievals, never in one. */
const EMBED_BATCH = 64;

interface Index {
  model: string;
  /** The active lessons' `when` codes under this embedder. */
  scan: CodeScan;
}

/**
 * The embeddings of lessons' `when` texts (the situations a lesson applies to), which the vector
 * channel scores beside the lesson's own vector. Writes only mark a `when` as changed (triggers
 * fill when_pending); the next retrieval embeds what is marked, a batch at a time, so no write
 * path waits on the embedder for it. Until then the `when` is found by its lexical column alone.
 */
export class Situations {
  private index: Index | null = null;

  constructor(private readonly ctx: MemoryContext) {}

  private current(): Index {
    const model = this.ctx.vectors.model;
    if (this.index?.model === model) return this.index;
    const index: Index = { model, scan: new CodeScan(int8Scan) };
    // CROSS JOIN keeps `when_vectors` the outer loop: the lessons with a `when`, not every active lesson probed for one.
    for (const r of this.ctx.sql.exec<{ item_id: string; code: ArrayBuffer }>(
      "SELECT w.item_id, w.code FROM when_vectors w CROSS JOIN experiences e ON e.id = w.item_id WHERE w.model = ? AND e.status = 'active'",
      model,
    )) {
      index.scan.set(r.item_id, new Uint8Array(r.code));
    }
    // Every `when` has a vector or a pending row; vectors of another embedder are embedded again, as retrievals come.
    this.ctx.sql.exec("INSERT OR IGNORE INTO when_pending (item_id) SELECT item_id FROM when_vectors WHERE model != ?", model);
    this.index = index;
    return index;
  }

  /** Whether any lesson has (or had, until the next refresh) a `when`: two primary-key probes, so the lexical channel can skip its column. */
  get any(): boolean {
    return this.ctx.sql.exec("SELECT 1 FROM when_vectors UNION ALL SELECT 1 FROM when_pending LIMIT 1").toArray().length > 0;
  }

  /**
   * Embeds the next batch of `when` texts written since the last call; an embedder failure leaves
   * them for the next. A lesson that is not active leaves the index but keeps its stored vector,
   * which it gets back without an embedding call when it is active again with the same `when`.
   */
  async refresh(): Promise<void> {
    const index = this.current();
    const ids = this.ctx.sql
      .exec<{ item_id: string }>("SELECT item_id FROM when_pending LIMIT ?", EMBED_BATCH)
      .toArray()
      .map((r) => r.item_id);
    if (!ids.length) return;
    const before = this.whenOf(ids);
    const stored = this.storedOf(ids, index.model);
    const wanted = [...new Set([...before.values()].filter((w) => w.active && stored.get(w.id)?.text !== w.text).map((w) => w.text))];
    let vecs: Float32Array[];
    try {
      vecs = wanted.length ? await this.ctx.vectors.embed(wanted) : [];
    } catch {
      return;
    }
    if (this.index !== index || this.ctx.vectors.model !== index.model) return;
    const embedded = new Map(wanted.map((t, i) => [t, vecs[i]!]));
    const placed: [string, Uint8Array | null][] = [];
    this.ctx.storage.transactionSync(() => {
      // Read again after the await: a `when` changed meanwhile stays pending for its own embedding.
      const now = this.whenOf(ids);
      const kept = this.storedOf(ids, index.model);
      for (const id of ids) {
        const w = now.get(id);
        if (w === undefined) {
          this.ctx.sql.exec("DELETE FROM when_vectors WHERE item_id = ?", id);
          placed.push([id, null]);
        } else if (!w.active) {
          placed.push([id, null]);
        } else if (kept.get(id)?.text === w.text) {
          placed.push([id, kept.get(id)!.code]);
        } else {
          const vec = embedded.get(w.text);
          if (!vec) continue;
          const code = encodeCode(vec);
          this.ctx.sql.exec(
            "INSERT INTO when_vectors (item_id, model, text, code) VALUES (?, ?, ?, ?) ON CONFLICT(item_id) DO UPDATE SET model = excluded.model, text = excluded.text, code = excluded.code",
            id,
            index.model,
            w.text,
            code,
          );
          placed.push([id, code]);
        }
        this.ctx.sql.exec("DELETE FROM when_pending WHERE item_id = ?", id);
      }
    });
    for (const [id, code] of placed) {
      if (code) index.scan.set(id, code);
      else index.scan.delete(id);
    }
  }

  /** The stored vectors of these lessons under this embedder, with the text each was made from. */
  private storedOf(ids: readonly string[], model: string): Map<string, { text: string; code: Uint8Array }> {
    const out = new Map<string, { text: string; code: Uint8Array }>();
    for (const chunk of chunks([...ids])) {
      for (const r of this.ctx.sql.exec<{ item_id: string; text: string; code: ArrayBuffer }>(
        `SELECT item_id, text, code FROM when_vectors WHERE model = ? AND item_id IN (${placeholders(chunk.length)})`,
        model,
        ...chunk,
      )) {
        out.set(r.item_id, { text: r.text, code: new Uint8Array(r.code) });
      }
    }
    return out;
  }

  private whenOf(ids: readonly string[]): Map<string, { id: string; text: string; active: boolean }> {
    const out = new Map<string, { id: string; text: string; active: boolean }>();
    for (const chunk of chunks([...ids])) {
      for (const r of this.ctx.sql.exec<{ id: string; when_text: string; status: string }>(
        `SELECT id, when_text, status FROM experiences WHERE id IN (${placeholders(chunk.length)}) AND when_text IS NOT NULL`,
        ...chunk,
      )) {
        out.set(r.id, { id: r.id, text: r.when_text, active: r.status === "active" });
      }
    }
    return out;
  }

  /** Lessons whose `when` has a similarity of at least `threshold` to the query, the best `k`. */
  similar(query: Float32Array, k: number, threshold: number): Map<string, number> {
    return this.current().scan.similar(query, threshold, k);
  }

  /** The `when` similarity of these lessons (absent for one without an embedded `when`). */
  similarities(query: Float32Array, ids: readonly string[]): Map<string, number> {
    return this.current().scan.similarities(query, ids);
  }

  /** The active lessons' `when` codes under the active embedder, as the channel scans them. */
  codes(): { id: string; code: Uint8Array }[] {
    return this.current().scan.entries();
  }

  /** The `when` codes of those of these lessons the channel scans. */
  codesOf(ids: readonly string[]): { id: string; code: Uint8Array }[] {
    const scan = this.current().scan;
    return ids.flatMap((id) => scan.entry(id) ?? []);
  }

  /** Whether `when` texts still wait for their embedding. */
  get pending(): boolean {
    return this.ctx.sql.exec("SELECT 1 FROM when_pending LIMIT 1").toArray().length > 0;
  }

  /** Drops the in-memory index (its transaction rolled back, or the embedder changed); the next retrieval reads it again. */
  forgetCache(): void {
    this.index = null;
  }
}
