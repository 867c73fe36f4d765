import { sha256Hex } from "../../../src/core/api-key";
import { DomainError } from "../../../src/core/errors";
import type { MemoryContext } from "./context";

/**
 * Stores a write's result under its key. The write calls it with the value it then resolves with,
 * inside the transaction that makes its change (or, when it changes nothing, wherever it decides so).
 */
export type RecordResult<T> = (value: T) => void;

/**
 * Idempotency-Key support, the one mechanism for every write of the agent. The result is stored
 * under the key (scoped by operation) in the same transaction as the change it guards, so no crash
 * can leave a change without its record (a retry would apply it twice). A retry with the same body
 * replays the stored result; the same key with a different body is a conflict. Requests with one
 * key run one at a time, since a write may yield (embedding) between its check and its commit.
 * Failures store nothing: a failed write changed nothing, so retrying it is safe.
 */
export class IdempotencyStore {
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(private readonly ctx: MemoryContext) {}

  async run<T>(
    key: string | undefined,
    operation: string,
    request: unknown,
    write: (record: RecordResult<unknown>) => Promise<T>,
  ): Promise<{ value: T; replayed: boolean }> {
    if (!key) return { value: await write(() => undefined), replayed: false };
    const scoped = `${operation}:${key}`;
    const hash = await sha256Hex(JSON.stringify(request));
    // Re-read after every wait: checking the map and claiming it must happen without a yield between.
    for (let running = this.inflight.get(scoped); running; running = this.inflight.get(scoped)) await running.catch(() => undefined);
    const prior = this.ctx.sql
      .exec<{ request_hash: string; response: string }>("SELECT request_hash, response FROM idempotency WHERE key = ?", scoped)
      .toArray()[0];
    if (prior) {
      if (prior.request_hash !== hash) throw DomainError.conflict("This Idempotency-Key was already used with a different request body.");
      return { value: JSON.parse(prior.response) as T, replayed: true };
    }
    let recorded = false;
    const pending = write((value) => {
      this.ctx.sql.exec(
        "INSERT INTO idempotency (key, request_hash, response, at) VALUES (?, ?, ?, ?)",
        scoped,
        hash,
        JSON.stringify(value),
        this.ctx.now(),
      );
      recorded = true;
    });
    this.inflight.set(scoped, pending);
    try {
      const value = await pending;
      if (!recorded) throw new Error(`${operation} committed without recording its Idempotency-Key`);
      return { value, replayed: false };
    } finally {
      this.inflight.delete(scoped);
    }
  }
}
