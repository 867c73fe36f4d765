import { DAY_MS, nextFadeAt, selectForDecay, selectOverCapacity } from "../../../src/core/decay";
import { dayOf } from "../../../src/core/retrieval-counts";
import { chunks, placeholders, type MemoryContext } from "../storage/context";
import { COUNTER_BATCH_MEMORY_MS } from "../retrieval/retrieval-counts";
import type { Cases } from "../episodes/cases";
import type { Library } from "../library/library";

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
  const kept = cfg.decay.enabled ? items.filter((i) => !gone.has(i.id) && !surplus.includes(i.id)) : [];
  return {
    at: now,
    decayed,
    overCapacity: surplus,
    versions,
    nextFadeAt: kept.length ? nextFadeAt(kept, cfg.decay, cfg.decay.threshold) : null,
  };
}

/** Idempotency keys only need to outlive client retries. */
export const IDEMPOTENCY_RETENTION_MS = 7 * DAY_MS;
/** Cases and episodes are deleted in bounded batches; the next sweep (minutes later) takes the rest. */
export const PRUNE_BATCH = 200;

const FINISHED_JOBS = "('done', 'skipped', 'failed')";
const UNFINISHED_JOBS = "('queued', 'running', 'retrying')";
/** Episodes an active experience names as its source (live lessons record `provenance.episodeId`). */
const SOURCE_EPISODES = `SELECT json_extract(provenance, '$.episodeId') FROM experiences
  WHERE status = 'active' AND json_extract(provenance, '$.episodeId') IS NOT NULL`;

const cutoff = (now: number, days: number | null) => (days === null ? null : now - days * DAY_MS);

/** `pruneLogs` deletes cases not used since this (the later of creation and last use). */
const CASE_AGE = "max(created_at, coalesce(last_used_at, 0))";
const PRUNABLE_CASES = `(episode_id IS NULL OR episode_id NOT IN (${SOURCE_EPISODES}))`;
const PRUNABLE_EPISODES = `status = 'ended'
  AND id NOT IN (SELECT episode_id FROM jobs WHERE status IN ${UNFINISHED_JOBS} AND episode_id IS NOT NULL)
  AND id NOT IN (${SOURCE_EPISODES})`;

/**
 * When `pruneLogs` next has something to delete: the oldest prunable record of each kind plus its
 * retention, by the same conditions pruneLogs applies. Null when nothing will ever be due.
 */
export function pruneDueAt(ctx: MemoryContext): number | null {
  const r = ctx.config().retention;
  const oldest = (days: number | null, sql: string): number | null => {
    if (days === null) return null;
    const t = ctx.sql.exec<{ t: number | null }>(sql).one().t;
    return t === null ? null : t + days * DAY_MS;
  };
  const dues = [
    oldest(r.retrievalsDays, "SELECT min(at) AS t FROM retrievals"),
    oldest(r.jobsDays, `SELECT min(updated_at) AS t FROM jobs WHERE status IN ${FINISHED_JOBS}`),
    oldest(r.casesDays, `SELECT min(${CASE_AGE}) AS t FROM cases WHERE ${PRUNABLE_CASES}`),
    oldest(r.episodesDays, `SELECT min(ended_at) AS t FROM episodes WHERE ${PRUNABLE_EPISODES}`),
    oldest(IDEMPOTENCY_RETENTION_MS / DAY_MS, "SELECT min(at) AS t FROM idempotency"),
    oldest(r.retrievalsDays, `SELECT (min(day) + 1) * ${DAY_MS} AS t FROM token_retrievals`),
    oldest(COUNTER_BATCH_MEMORY_MS / DAY_MS, "SELECT min(at) AS t FROM counter_batches"),
    oldest(0, "SELECT min(expires_at) AS t FROM rewarded_tokens"),
    oldest(0, "SELECT min(keep_until) AS t FROM retrieval_secrets"),
  ].filter((t): t is number => t !== null);
  return dues.length ? Math.min(...dues) : null;
}

/**
 * Deletes history past the agent's retention settings (see RetentionConfigSchema): retrieval
 * records, finished jobs, unused cases, ended episodes with their attempts, and old idempotency keys.
 */
export async function pruneLogs(ctx: MemoryContext, cases: Cases, now: number) {
  const r = ctx.config().retention;
  const before = {
    retrievals: cutoff(now, r.retrievalsDays),
    jobs: cutoff(now, r.jobsDays),
    cases: cutoff(now, r.casesDays),
    episodes: cutoff(now, r.episodesDays),
  };
  const retrievals = before.retrievals === null ? 0 : ctx.sql.exec("DELETE FROM retrievals WHERE at < ?", before.retrievals).rowsWritten;
  const jobs =
    before.jobs === null
      ? 0
      : ctx.sql.exec(`DELETE FROM jobs WHERE status IN ${FINISHED_JOBS} AND updated_at < ?`, before.jobs).rowsWritten;
  const idempotencyKeys = ctx.sql.exec("DELETE FROM idempotency WHERE at < ?", now - IDEMPOTENCY_RETENTION_MS).rowsWritten;
  // Token retrievals: a rewarded token's one outcome is kept until the token expires, a
  // counter batch's id past any retry of it, the per-day counts as long as retrievals are kept.
  const rewardedTokens = ctx.sql.exec("DELETE FROM rewarded_tokens WHERE expires_at < ?", now).rowsWritten;
  ctx.sql.exec("DELETE FROM counter_batches WHERE at < ?", now - COUNTER_BATCH_MEMORY_MS);
  if (before.retrievals !== null) ctx.sql.exec("DELETE FROM token_retrievals WHERE day < ?", dayOf(before.retrievals));

  const staleCases =
    before.cases === null
      ? []
      : ctx.sql
          .exec<{ id: string }>(
            `SELECT id FROM cases WHERE ${CASE_AGE} < ? AND ${PRUNABLE_CASES} ORDER BY ${CASE_AGE}, id LIMIT ?`,
            before.cases,
            PRUNE_BATCH,
          )
          .toArray()
          .map((c) => c.id);
  // Through Cases.delete, so the vectors leave the index too.
  for (const id of staleCases) await cases.delete(id, { door: "episode", internal: true });

  const staleEpisodes =
    before.episodes === null
      ? []
      : ctx.sql
          .exec<{ id: string }>(
            `SELECT id FROM episodes WHERE ended_at < ? AND ${PRUNABLE_EPISODES} ORDER BY ended_at, id LIMIT ?`,
            before.episodes,
            PRUNE_BATCH,
          )
          .toArray()
          .map((e) => e.id);
  let attempts = 0;
  ctx.storage.transactionSync(() => {
    for (const ids of chunks(staleEpisodes)) {
      attempts += ctx.sql.exec(`DELETE FROM attempts WHERE episode_id IN (${placeholders(ids.length)})`, ...ids).rowsWritten;
      ctx.sql.exec(`DELETE FROM episodes WHERE id IN (${placeholders(ids.length)})`, ...ids);
    }
  });
  return { retrievals, rewardedTokens, jobs, idempotencyKeys, cases: staleCases.length, episodes: staleEpisodes.length, attempts };
}
