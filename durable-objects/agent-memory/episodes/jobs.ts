import type { Job } from "../../../src/core/episode-types";
import type { MemoryContext } from "../storage/context";

interface JobRow extends Record<string, SqlStorageValue> {
  id: string;
  type: string;
  status: string;
  reason: string | null;
  episode_id: string | null;
  attempts: number;
  result: string | null;
  created_at: number;
  updated_at: number;
}

const out = (r: JobRow): Job => ({
  id: r.id,
  type: r.type,
  status: r.status as Job["status"],
  reason: r.reason,
  episodeId: r.episode_id,
  attempts: r.attempts,
  result: r.result ? JSON.parse(r.result) : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Background work recorded per agent so `GET …/jobs` can say what happened and why. */
export class Jobs {
  constructor(private readonly ctx: MemoryContext) {}

  /** Creates the job unless it exists; ids are natural keys, so a retried trigger never queues twice. */
  ensure(id: string, type: string, episodeId: string | null): { job: Job; created: boolean } {
    const existing = this.get(id);
    if (existing) return { job: existing, created: false };
    const now = this.ctx.now();
    this.ctx.sql.exec(
      "INSERT INTO jobs (id, type, status, episode_id, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?)",
      id,
      type,
      episodeId,
      now,
      now,
    );
    return { job: this.get(id)!, created: true };
  }

  get(id: string): Job | null {
    const row = this.ctx.sql.exec<JobRow>("SELECT * FROM jobs WHERE id = ?", id).toArray()[0];
    return row ? out(row) : null;
  }

  update(id: string, patch: { status: Job["status"]; reason?: string | null; result?: Job["result"]; attempt?: boolean }): Job | null {
    this.ctx.sql.exec(
      `UPDATE jobs SET status = ?, reason = ?, result = coalesce(?, result), attempts = attempts + ?, updated_at = ? WHERE id = ?`,
      patch.status,
      patch.reason ?? null,
      patch.result === undefined ? null : JSON.stringify(patch.result),
      patch.attempt ? 1 : 0,
      this.ctx.now(),
      id,
    );
    return this.get(id);
  }

  list(limit: number, status?: string): Job[] {
    return this.ctx.sql
      .exec<JobRow>(
        `SELECT * FROM jobs ${status ? "WHERE status = ?" : ""} ORDER BY created_at DESC, id LIMIT ?`,
        ...(status ? [status, limit] : [limit]),
      )
      .toArray()
      .map(out);
  }
}
