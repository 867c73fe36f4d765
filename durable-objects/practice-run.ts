import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import { migrateSchema } from "./schema-version";

const PRACTICE_RUN_SCHEMA: readonly string[] = [
  `CREATE TABLE run_state (id INTEGER PRIMARY KEY CHECK (id = 1), status TEXT NOT NULL, updated_at INTEGER NOT NULL);`,
];

/** One instance per Training-Free GRPO practice run; the run state machine is built on this storage. */
export class PracticeRun extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    let failure: unknown;
    void ctx.blockConcurrencyWhile(async () => {
      try {
        migrateSchema(ctx.storage, PRACTICE_RUN_SCHEMA);
      } catch (err) {
        failure = err;
      }
    });
    if (failure) throw failure;
  }

  async status(): Promise<{ status: string; updatedAt: number | null }> {
    const row = this.ctx.storage.sql
      .exec<{ status: string; updated_at: number }>("SELECT status, updated_at FROM run_state WHERE id = 1")
      .toArray()[0];
    return { status: row?.status ?? "idle", updatedAt: row?.updated_at ?? null };
  }
}
