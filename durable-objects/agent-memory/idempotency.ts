import { sha256Hex } from "../../src/core/api-key";
import { MemoryError } from "../memory-error";
import type { MemoryContext } from "./context";

/**
 * Idempotency-Key support for the agent's write endpoints. The first successful result is stored
 * under the key (scoped by operation) and replayed for a retry with the same body; the same key
 * with a different body is a conflict. Concurrent requests with one key wait for the first, since
 * a write may yield (embedding) between its check and its commit. Failures are not stored: a
 * failed write changed nothing, so retrying it is safe.
 */
export class IdempotencyStore {
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(private readonly ctx: MemoryContext) {}

  async run<T>(key: string | undefined, operation: string, request: unknown, fn: () => Promise<T>): Promise<{ value: T; replayed: boolean }> {
    if (!key) return { value: await fn(), replayed: false };
    const scoped = `${operation}:${key}`;
    const hash = await sha256Hex(JSON.stringify(request));
    await this.inflight.get(scoped)?.catch(() => undefined);
    const prior = this.ctx.sql
      .exec<{ request_hash: string; response: string }>("SELECT request_hash, response FROM idempotency WHERE key = ?", scoped)
      .toArray()[0];
    if (prior) {
      if (prior.request_hash !== hash) throw MemoryError.conflict("This Idempotency-Key was already used with a different request body.");
      return { value: JSON.parse(prior.response) as T, replayed: true };
    }
    const pending = fn();
    this.inflight.set(scoped, pending);
    try {
      const value = await pending;
      this.ctx.sql.exec(
        "INSERT OR REPLACE INTO idempotency (key, request_hash, response, at) VALUES (?, ?, ?, ?)",
        scoped, hash, JSON.stringify(value), this.ctx.now(),
      );
      return { value, replayed: false };
    } finally {
      this.inflight.delete(scoped);
    }
  }
}
