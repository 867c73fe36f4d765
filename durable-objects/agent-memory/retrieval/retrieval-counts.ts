import type { CounterBatch } from "../../../src/core/retrieval-counts";
import type { MemoryContext } from "../storage/context";
import { parseSharedRef } from "../../../src/core/shared-lessons";
import type { Subscriptions } from "../sharing/subscriptions";

/** How long a counter batch's id is remembered: far longer than a Worker retries one. */
export const COUNTER_BATCH_MEMORY_MS = 86_400_000;

/**
 * Applies a batch of token retrievals' use counters from a Worker (src/platform/edge/retrieval-counters.ts),
 * once per batch id however often it arrives: `retrieved` grows, `lastUsedAt` never moves back, and
 * the agent's per-day count of token retrievals grows. Ids of memories gone since are skipped. A
 * shared lesson (its sharedRef) counts in the agent's own state of it, never in the library.
 */
export function applyCounterBatch(
  ctx: MemoryContext,
  shared: Pick<Subscriptions<never>, "recordUse">,
  batch: CounterBatch,
): { applied: boolean } {
  return ctx.storage.transactionSync(() => {
    if (ctx.sql.exec("SELECT 1 FROM counter_batches WHERE id = ?", batch.id).toArray().length) return { applied: false };
    ctx.sql.exec("INSERT INTO counter_batches (id, at) VALUES (?, ?)", batch.id, ctx.now());
    const now = ctx.now();
    for (const item of batch.items) {
      const ref = parseSharedRef(item.id);
      if (ref) {
        shared.recordUse([{ ...ref, n: item.n, lastUsedAt: item.lastUsedAt }], now);
        continue;
      }
      ctx.sql.exec(
        `UPDATE ${item.kind === "experience" ? "experiences" : "cases"} SET retrieved = retrieved + ?, last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?`,
        item.n,
        item.lastUsedAt,
        item.id,
      );
    }
    for (const d of batch.retrievals) {
      ctx.sql.exec("INSERT INTO token_retrievals (day, n) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET n = n + excluded.n", d.day, d.n);
    }
    return { applied: true };
  });
}
