import { emptyReranker, RerankerStateSchema, train, type Features, type RerankerState } from "../../../src/core/reranker";
import type { MemoryContext } from "../storage/context";

/** The reason Library.rollback gives the version it commits. */
const ROLLBACK_REASON = /^rollback to version (\d+)$/;

/**
 * The re-ranker's state, versioned with the library: one row per library version in which it
 * changed. The state of a version without a row is that of the latest earlier row, unless a
 * rollback lies in between: then it is the state of the version rolled back to. Derived on read,
 * so a rollback restores the weights with no write of its own.
 */
export class RerankerStore {
  /** The state of the library version last read, since every retrieval asks for it. */
  private cached: { libraryVersion: number; state: RerankerState } | null = null;

  constructor(private readonly ctx: MemoryContext) {}

  private libraryVersion(): number {
    return this.ctx.sql.exec<{ v: number | null }>("SELECT max(version) AS v FROM library_versions").one().v ?? 0;
  }

  stateAt(version: number): RerankerState {
    const row = this.ctx.sql
      .exec<{ library_version: number; state: string }>(
        "SELECT library_version, state FROM retriever_state WHERE library_version <= ? ORDER BY library_version DESC LIMIT 1",
        version,
      )
      .toArray()[0];
    const since = row?.library_version ?? 0;
    const rollback = this.ctx.sql
      .exec<{ reason: string }>(
        "SELECT reason FROM library_versions WHERE version > ? AND version <= ? AND reason LIKE 'rollback to version %' ORDER BY version DESC LIMIT 1",
        since,
        version,
      )
      .toArray()[0];
    const target = rollback ? Number(ROLLBACK_REASON.exec(rollback.reason)?.[1]) : NaN;
    if (Number.isInteger(target) && target < version) return this.stateAt(target);
    if (!row) return emptyReranker();
    const parsed = RerankerStateSchema.safeParse(JSON.parse(row.state));
    return parsed.success ? parsed.data : emptyReranker();
  }

  current(): { libraryVersion: number; state: RerankerState } {
    const libraryVersion = this.libraryVersion();
    if (this.cached?.libraryVersion !== libraryVersion) this.cached = { libraryVersion, state: this.stateAt(libraryVersion) };
    return this.cached;
  }

  /** Drops the cached state (its transaction rolled back); the next read derives it again. */
  forgetCache(): void {
    this.cached = null;
  }

  private save(state: RerankerState): void {
    const libraryVersion = this.libraryVersion();
    this.ctx.sql.exec(
      "INSERT INTO retriever_state (library_version, state, updated_at) VALUES (?, ?, ?) ON CONFLICT(library_version) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
      libraryVersion,
      JSON.stringify(state),
      this.ctx.now(),
    );
    this.cached = { libraryVersion, state };
  }

  /** One online update from the items of one rewarded retrieval; runs inside the reward's transaction. */
  learn(examples: readonly { f: Features; label: 0 | 1 }[]): void {
    if (!examples.length) return;
    this.save(train(this.current().state, examples));
  }

  reset(): void {
    this.save(emptyReranker());
  }
}
