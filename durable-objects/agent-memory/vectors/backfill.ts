import type { VectorizeVectorIndex } from "../../../src/adapters/vector-indexes/vectorize";
import type { VectorItems } from "./types";

/** Vectors uploaded per alarm while an agent moves its memories to Vectorize: one bounded step, well inside an alarm's limits. */
export const BACKFILL_CHUNK = 500;
/** A chunk Vectorize refused is tried again after this. */
const RETRY_MS = 60_000;
/** Stored while the move is under way: a `vectors` rowid (the last one uploaded), then `settle:<ms>` once all are sent. */
const backfillKey = (model: string) => `vector_backfill:${model}`;
const SETTLE = "settle:";

interface Row extends Record<string, SqlStorageValue> {
  rowid: number;
  item_id: string;
  kind: string;
  vec: ArrayBuffer;
  updated_at: number;
}

export interface BackfillDeps {
  remote: VectorizeVectorIndex;
  items: VectorItems;
  /** Bytes of one vector of the model (rows of another size are not the model's vectors). */
  bytes: number;
  now(): number;
  /** Vectorize's slow tail: sent vectors are served from it only after this long. */
  settleMs: number;
  /** Marks items whose change may have reached Vectorize before the chunk did: they are published again. */
  requeue(ids: string[]): void;
}

/**
 * Moving an agent's vectors to Vectorize, in bounded chunks driven by the object's alarm; the
 * agent keeps serving from its local index until every vector is sent and Vectorize has had time to
 * apply them. Progress is the last uploaded `vectors` rowid, stored after each chunk: a restart
 * resumes there, and a chunk uploaded again after a crash overwrites the same ids (a vector's id is
 * a hash of the agent and the item), so nothing is duplicated. Writes made meanwhile go through the
 * vector outbox like any write to a remote index, so an item changed behind the cursor is not lost.
 */
export class VectorBackfill {
  private retryAt = 0;

  constructor(
    private readonly sql: SqlStorage,
    private readonly model: string,
    private readonly chunk = BACKFILL_CHUNK,
  ) {}

  start(): void {
    this.write("0");
  }

  private read(): string | undefined {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", backfillKey(this.model)).toArray()[0]?.value;
  }

  private write(value: string): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      backfillKey(this.model),
      value,
    );
  }

  /** True until the move is complete: the local index serves meanwhile. */
  get active(): boolean {
    return this.read() !== undefined;
  }

  /** When the next step is due, or null when there is nothing to move. */
  dueAt(now: number, settleMs: number): number | null {
    const state = this.read();
    if (state === undefined) return null;
    if (state.startsWith(SETTLE)) return Number(state.slice(SETTLE.length)) + settleMs;
    return Math.max(now, this.retryAt);
  }

  /**
   * One step: the next chunk (or, once all are sent and settled, the end of the move). Returns
   * true when the move has just completed, so the caller switches to the remote index.
   */
  async step(deps: BackfillDeps): Promise<boolean> {
    const state = this.read();
    if (state === undefined) return false;
    if (state.startsWith(SETTLE)) {
      if (deps.now() < Number(state.slice(SETTLE.length)) + deps.settleMs) return false;
      this.sql.exec("DELETE FROM meta WHERE key = ?", backfillKey(this.model));
      return true;
    }
    const rows = this.sql
      .exec<Row>(
        "SELECT rowid, item_id, kind, vec, updated_at FROM vectors WHERE model = ? AND length(vec) = ? AND rowid > ? ORDER BY rowid LIMIT ?",
        this.model,
        deps.bytes,
        Number(state),
        this.chunk,
      )
      .toArray();
    if (!rows.length) {
      this.write(`${SETTLE}${deps.now()}`);
      return false;
    }
    const active = deps.items.activeKinds(rows.map((r) => r.item_id));
    const sent = rows.filter((r) => active.has(r.item_id));
    try {
      await deps.remote.backfill(sent.map((r) => ({ id: r.item_id, kind: r.kind, vector: new Float32Array(r.vec) })));
    } catch {
      this.retryAt = deps.now() + RETRY_MS;
      return false;
    }
    // A write or delete made while the chunk was uploading may have reached Vectorize first, and the
    // chunk then overwrote it with the older vector: those items are published again.
    const now = new Map(
      this.sql
        .exec<{ item_id: string; updated_at: number }>(
          "SELECT item_id, updated_at FROM vectors WHERE model = ? AND item_id IN (SELECT value FROM json_each(?))",
          this.model,
          JSON.stringify(sent.map((r) => r.item_id)),
        )
        .toArray()
        .map((r) => [r.item_id, r.updated_at]),
    );
    const stillActive = deps.items.activeKinds(sent.map((r) => r.item_id));
    const overtaken = sent.filter((r) => now.get(r.item_id) !== r.updated_at || !stillActive.has(r.item_id)).map((r) => r.item_id);
    if (overtaken.length) deps.requeue(overtaken);
    this.write(String(rows.at(-1)!.rowid));
    return false;
  }
}
