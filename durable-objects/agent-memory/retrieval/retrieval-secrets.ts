import {
  newRetrievalSecret,
  tokenExpiry,
  verifyRetrieval,
  type RetrievalClaims,
  type RetrievalSecret,
  type TokenRefusal,
} from "../../../src/core/retrieval-token";
import { DomainError } from "../../../src/core/errors";
import type { MemoryContext } from "../storage/context";

/** How long one secret signs before a new one takes over (old ones keep verifying what they signed). */
export const ROTATE_AFTER_MS = 90 * 86_400_000;

const REFUSED: Record<TokenRefusal, string> = {
  malformed: "is not a retrieval token",
  "unknown-secret": "was not issued by this agent",
  "bad-signature": "was not issued by this agent (its signature does not match)",
  expired: "has expired (a retrieval can be rewarded for the agent's retention.retrievalsDays)",
};

type Held = RetrievalSecret & { createdAt: number };

/**
 * The agent's retrieval secrets (see src/core/retrieval-token.ts). The first is made on first use;
 * the newest signs, and once it is ROTATE_AFTER_MS old a new one replaces it. A replaced secret
 * verifies until every token it signed has expired (`keep_until`), then the sweep drops it.
 * They live only here and in the snapshot the object hands the Workers, which sign with the newest.
 */
export class RetrievalSecrets {
  private cached: Held[] | null = null;

  constructor(private readonly ctx: MemoryContext) {}

  /** Newest first. */
  private held(): Held[] {
    return (this.cached ??= this.ctx.sql
      .exec<{ id: string; key: ArrayBuffer; created_at: number }>(
        "SELECT id, key, created_at FROM retrieval_secrets ORDER BY created_at DESC, id",
      )
      .toArray()
      .map((r) => ({ id: r.id, key: new Uint8Array(r.key), createdAt: r.created_at })));
  }

  /** The secret that signs new tokens, made or rotated here when due. */
  signing(): RetrievalSecret {
    const now = this.ctx.now();
    const newest = this.held()[0];
    if (newest && now - newest.createdAt < ROTATE_AFTER_MS) return { id: newest.id, key: newest.key };
    const fresh = newRetrievalSecret();
    this.ctx.storage.transactionSync(() => {
      if (newest)
        this.ctx.sql.exec(
          "UPDATE retrieval_secrets SET keep_until = ? WHERE id = ?",
          tokenExpiry(now, this.ctx.config().retention.retrievalsDays),
          newest.id,
        );
      this.ctx.sql.exec("INSERT INTO retrieval_secrets (id, key, created_at) VALUES (?, ?, ?)", fresh.id, fresh.key, now);
    });
    this.cached = null;
    return fresh;
  }

  /** The claims of a token this agent issued, else a 422 saying why not (a refused token changes nothing). */
  async verify(token: string): Promise<RetrievalClaims> {
    const v = await verifyRetrieval(this.held(), token, this.ctx.now());
    if (v.ok) return v.claims;
    throw DomainError.unprocessable(`The retrievalId ${REFUSED[v.reason]}.`, [{ path: ["retrievalId"], message: REFUSED[v.reason] }]);
  }

  /** Drops secrets no unexpired token can name; run by the sweep. */
  prune(now: number): number {
    const n = this.ctx.sql.exec("DELETE FROM retrieval_secrets WHERE keep_until < ?", now).rowsWritten;
    if (n) this.cached = null;
    return n;
  }
}
