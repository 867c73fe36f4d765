import { selectForDecay, selectOverCapacity } from "../../src/core/decay";
import type { MemoryContext } from "./context";
import type { Library } from "./library";

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  q: number;
  pinned: number;
  status: string;
  retrieved: number;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
}

/**
 * Archives (never deletes) faded and surplus experiences. Each pass is a library version, so an
 * over-eager sweep can be rolled back like any other change.
 */
export async function sweep(ctx: MemoryContext, library: Library, now: number) {
  const cfg = ctx.config();
  const rows = ctx.sql
    .exec<Row>("SELECT id, q, pinned, status, retrieved, created_at, updated_at, last_used_at FROM experiences WHERE status = 'active'")
    .toArray();
  const items = rows.map((r) => ({
    id: r.id,
    q: r.q,
    pinned: r.pinned === 1,
    status: r.status,
    uses: r.retrieved,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? r.created_at,
    updatedAt: r.updated_at,
  }));
  const decayed = cfg.decay.enabled ? selectForDecay(items, now, cfg.decay, cfg.decay.threshold) : [];
  const gone = new Set(decayed);
  const surplus = selectOverCapacity(
    items.map((i) => (gone.has(i.id) ? { ...i, status: "archived" } : i)),
    cfg.capacity,
  );
  const versions: number[] = [];
  if (decayed.length) {
    const r = await library.apply(
      decayed.map((id) => ({ op: "archive" as const, id })),
      { reason: `decay: ${decayed.length} experiences fell below retention ${cfg.decay.threshold}`, author: "system:decay" },
    );
    versions.push(r.version);
  }
  if (surplus.length) {
    const r = await library.apply(
      surplus.map((id) => ({ op: "archive" as const, id })),
      { reason: `capacity: ${surplus.length} lowest-utility experiences over the limit of ${cfg.capacity}`, author: "system:capacity" },
    );
    versions.push(r.version);
  }
  return { at: now, decayed, overCapacity: surplus, versions };
}

/** Retrievals older than this can no longer be rewarded; idempotency keys only need to outlive client retries. */
export const RETRIEVAL_RETENTION_MS = 30 * 86_400_000;
export const IDEMPOTENCY_RETENTION_MS = 7 * 86_400_000;

export function pruneLogs(ctx: MemoryContext, now: number) {
  const retrievals = ctx.sql.exec("DELETE FROM retrievals WHERE at < ?", now - RETRIEVAL_RETENTION_MS).rowsWritten;
  const idempotencyKeys = ctx.sql.exec("DELETE FROM idempotency WHERE at < ?", now - IDEMPOTENCY_RETENTION_MS).rowsWritten;
  return { retrievals, idempotencyKeys };
}
