import { convergence, emaUpdate, qStats, rewardFor } from "../../../src/core/q-learning";
import { sharedRef } from "../../../src/core/shared-lessons";
import type { Analytics, MemoryKind, RewardRequest, RewardResult } from "../../../src/core/memory-types";
import { DomainError } from "../../../src/core/errors";
import type { MemoryContext } from "../storage/context";
import type { RecordResult } from "../storage/idempotency";
import type { Library } from "../library/library";
import { creditedOfClaims, creditedOfRow, type CreditedRetrieval, type RetrievalRow, type RewardedRetrieval } from "./reward-learning";
import type { RetrievalClaims } from "../../../src/core/retrieval-token";
import type { ProbationTrials } from "./probation-trials";

const Q_HISTORY_KEEP = 50;
const TABLE: Record<MemoryKind, string> = { experience: "experiences", case: "cases" };

interface Target {
  id: string;
  kind: MemoryKind;
  /** Only shown as part of the whole library, never selected for the task: learns only when cited. */
  citeOnly: boolean;
  /** A shared library's lesson (`id` is its sharedRef): the reward moves this agent's own Q for it. */
  shared?: { libraryId: string; lessonId: string };
}

/** A reward plus the `[G#]` labels the agent quoted in its answer, which count as citations. */
export type RewardInput = RewardRequest & { quotedLabels?: string[] };

interface RewardedColumns extends Record<string, SqlStorageValue> {
  reward_request: string | null;
  reward_result: string | null;
}

/**
 * What tells a replay of a retrieval's reward from a second outcome: the request as validated (its
 * fields in schema order), a token standing as its retrieval's id.
 */
const rewardKey = (req: RewardInput, token?: RetrievalClaims) => JSON.stringify(token ? { ...req, retrievalId: token.id } : req);

/** Utility learning: rewards move Q-values by EMA; analytics read them back. */
export class Utility {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
    private readonly retrieval: RewardedRetrieval,
    private readonly trials: ProbationTrials,
  ) {}

  private kindOf(id: string): MemoryKind | null {
    if (this.ctx.sql.exec("SELECT 1 FROM experiences WHERE id = ?", id).toArray().length) return "experience";
    if (this.ctx.sql.exec("SELECT 1 FROM cases WHERE id = ?", id).toArray().length) return "case";
    return null;
  }

  /**
   * What the reward applies to, the labels each item was shown under (labels shift as the library
   * changes) and the retrievals it credits. Each retrieval takes one outcome: the same reward again
   * is a replay of the first (returned as `replay`), a different one a conflict, and an episode's
   * reward credits only those of its retrievals no reward took yet and no read-scoped key made.
   * A token (verified by the caller) carries its retrieval; its one outcome is kept in rewarded_tokens.
   */
  private targets(
    req: RewardInput,
    token?: RetrievalClaims,
  ): { targets: Target[]; byLabel: Map<string, string[]>; retrievals: CreditedRetrieval[]; replay?: RewardResult } {
    const seen = new Map<string, Target>();
    const retrievals: CreditedRetrieval[] = [];
    const byLabel = new Map<string, string[]>();
    const addItems = (items: CreditedRetrieval["items"]) => {
      for (const item of items) {
        const citeOnly = item.citeOnly === true && (seen.get(item.id)?.citeOnly ?? true);
        const shared = item.libraryId ? { libraryId: item.libraryId, lessonId: item.id.slice(item.libraryId.length + 1) } : undefined;
        seen.set(item.id, { id: item.id, kind: item.kind, citeOnly, ...(shared ? { shared } : {}) });
        if (item.label) byLabel.set(item.label, [...(byLabel.get(item.label) ?? []), item.id]);
      }
    };
    const columns = "id, query, query_code, items, key_id, episode_id, read_only, trial, reward_request, reward_result";
    if (req.retrievalId) {
      let credited: CreditedRetrieval;
      let taken: RewardedColumns | undefined;
      if (token) {
        credited = creditedOfClaims(token);
        taken = this.ctx.sql
          .exec<RewardedColumns>("SELECT reward_request, reward_result FROM rewarded_tokens WHERE id = ?", token.id)
          .toArray()[0];
      } else {
        const row = this.ctx.sql
          .exec<RetrievalRow & RewardedColumns>(`SELECT ${columns} FROM retrievals WHERE id = ?`, req.retrievalId)
          .toArray()[0];
        if (!row) throw DomainError.notFound(`Retrieval '${req.retrievalId}' does not exist.`);
        credited = creditedOfRow(row);
        taken = row;
      }
      if (taken && taken.reward_request !== null) {
        if (taken.reward_request === rewardKey(req, token) && taken.reward_result)
          return { targets: [], byLabel, retrievals, replay: { ...(JSON.parse(taken.reward_result) as RewardResult), replayed: true } };
        throw DomainError.conflict(
          `Retrieval '${credited.id}' has taken its outcome already (one reward per retrieval); a different one cannot follow.`,
        );
      }
      addItems(credited.items);
      retrievals.push(credited);
    } else if (req.episodeId) {
      const rows = this.ctx.sql
        .exec<RetrievalRow>(
          `SELECT ${columns} FROM retrievals WHERE episode_id = ? AND read_only = 0 AND reward_request IS NULL ORDER BY at`,
          req.episodeId,
        )
        .toArray()
        .map(creditedOfRow);
      // An episode that exists but retrieved nothing is a reward for no items; one never seen is a mistake to report.
      if (
        !rows.length &&
        !this.ctx.sql.exec("SELECT 1 FROM episodes WHERE id = ?", req.episodeId).toArray().length &&
        !this.ctx.sql.exec("SELECT 1 FROM retrievals WHERE episode_id = ?", req.episodeId).toArray().length
      ) {
        throw DomainError.notFound(`Episode '${req.episodeId}' does not exist and no retrieval names it.`);
      }
      for (const row of rows) addItems(row.items);
      retrievals.push(...rows);
    } else {
      const unknown: string[] = [];
      for (const id of req.memoryIds ?? []) {
        const kind = this.kindOf(id);
        if (!kind) unknown.push(id);
        else seen.set(id, { id, kind, citeOnly: false });
      }
      if (unknown.length) {
        throw DomainError.unprocessable(
          `Unknown memory ids: ${unknown.join(", ")}`,
          unknown.map((id) => ({ path: ["memoryIds"], message: `'${id}' does not exist` })),
        );
      }
    }
    return { targets: [...seen.values()], byLabel, retrievals };
  }

  /**
   * Applies one reward; `record` runs inside the transaction of the Q updates, with their result.
   * `teacher` is the rewarding key: what it teaches each memory's usage is capped per hour.
   * `token`: the claims of `req.retrievalId` when it is a token, verified by the caller.
   */
  reward(req: RewardInput, record?: RecordResult<RewardResult>, teacher?: string, token?: RetrievalClaims): RewardResult {
    const { targets, byLabel, retrievals, replay } = this.targets(req, token);
    if (replay) return this.ctx.storage.transactionSync(() => (record?.(replay), replay));
    const labelIds = (s: string) => byLabel.get(/^\[?([GS]\d+)\]?$/.exec(s)?.[1] ?? "") ?? [];
    // A shared lesson is shown under its own id beside its library's; citing that id cites it.
    const sharedByLessonId = new Map<string, string[]>();
    for (const t of targets)
      if (t.shared) sharedByLessonId.set(t.shared.lessonId, [...(sharedByLessonId.get(t.shared.lessonId) ?? []), t.id]);
    const idsOf = (id: string) => (labelIds(id).length ? labelIds(id) : (sharedByLessonId.get(id) ?? [id]));
    const quoted = (req.quotedLabels ?? []).flatMap(labelIds);
    const cited = req.citedIds || quoted.length ? new Set([...(req.citedIds ?? []).flatMap(idsOf), ...quoted]) : null;
    if (cited) {
      const targetIds = new Set(targets.map((t) => t.id));
      const stray = [...cited].filter((id) => !targetIds.has(id));
      if (stray.length) {
        throw DomainError.unprocessable(
          "citedIds must be among the rewarded items",
          stray.map((id) => ({ path: ["citedIds"], message: `'${id}' was not retrieved or named` })),
        );
      }
    }
    let r: number;
    try {
      r = rewardFor(req, this.ctx.config().rewardMapping);
    } catch (err) {
      throw DomainError.unprocessable(err instanceof Error ? err.message : String(err));
    }
    const alpha = this.ctx.config().alpha;
    const now = this.ctx.now();
    try {
      return this.applyReward(req, { targets, retrievals, teacher, token }, cited, r, alpha, now, record);
    } catch (err) {
      // The transaction rolled back what usage memory wrote; its in-memory centroids must follow.
      this.retrieval.forgetCaches();
      throw err;
    }
  }

  private applyReward(
    req: RewardInput,
    what: { targets: Target[]; retrievals: CreditedRetrieval[]; teacher: string | undefined; token: RetrievalClaims | undefined },
    cited: Set<string> | null,
    r: number,
    alpha: number,
    now: number,
    record?: RecordResult<RewardResult>,
  ): RewardResult {
    return this.ctx.storage.transactionSync(() => {
      const updated: RewardResult["updated"] = [];
      const uncited: string[] = [];
      const skipped: string[] = [];
      for (const t of what.targets) {
        if (t.shared) {
          if (t.citeOnly && !cited?.has(t.id)) continue;
          const citedHere = cited ? cited.has(t.id) : null;
          const moved = this.retrieval.rewardShared({ ...t.shared, citeOnly: t.citeOnly }, { r, alpha, now, cited: citedHere });
          if (moved)
            updated.push({
              id: t.shared.lessonId,
              libraryId: t.shared.libraryId,
              kind: t.kind,
              qBefore: moved.qBefore,
              q: moved.q,
              cited: cited !== null,
            });
          else if (citedHere === false) uncited.push(t.shared.lessonId);
          continue;
        }
        const table = TABLE[t.kind];
        const row = this.ctx.sql.exec<{ q: number; status: string }>(`SELECT q, status FROM ${table} WHERE id = ?`, t.id).toArray()[0];
        if (!row) continue;
        if (t.citeOnly && !cited?.has(t.id)) continue;
        // Held for review, quarantined or archived: a reward cannot buy it standing while it is out.
        if (row.status !== "active") {
          skipped.push(t.id);
          continue;
        }
        if (cited && !cited.has(t.id)) {
          this.ctx.sql.exec(`UPDATE ${table} SET uncited = uncited + 1 WHERE id = ?`, t.id);
          uncited.push(t.id);
          continue;
        }
        const q = emaUpdate(row.q, r, alpha);
        this.ctx.sql.exec(
          `UPDATE ${table} SET q = ?, successes = successes + ?, failures = failures + ?, cited = cited + ?, retrieved = retrieved + ?, last_used_at = ? WHERE id = ?`,
          q,
          r > 0 ? 1 : 0,
          r < 0 ? 1 : 0,
          cited ? 1 : 0,
          t.citeOnly ? 1 : 0,
          now,
          t.id,
        );
        this.ctx.sql.exec(
          "INSERT INTO q_history (item_id, at, q, delta, reward, episode_id, retrieval_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
          t.id,
          now,
          q,
          q - row.q,
          r,
          req.episodeId ?? what.retrievals[0]?.episodeId ?? null,
          what.token?.id ?? req.retrievalId ?? null,
        );
        this.ctx.sql.exec(
          `DELETE FROM q_history WHERE item_id = ? AND seq <= (SELECT seq FROM q_history WHERE item_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
          t.id,
          t.id,
          Q_HISTORY_KEEP,
        );
        updated.push({ id: t.id, kind: t.kind, qBefore: row.q, q, cited: cited !== null });
      }
      this.trials.record(what.retrievals, this.firstTrySuccess(req, r, what.retrievals));
      this.retrieval.learn(what.retrievals, {
        reward: r,
        updated: new Set(updated.map((u) => (u.libraryId ? sharedRef(u.libraryId, u.id) : u.id))),
        cited: cited !== null,
        teacher: what.teacher,
      });
      const result: RewardResult = { reward: r, updated, uncited, ...(skipped.length ? { skipped } : {}), replayed: false };
      const key = rewardKey(req, what.token);
      const stored = JSON.stringify(result);
      if (what.token)
        this.ctx.sql.exec(
          "INSERT INTO rewarded_tokens (id, expires_at, reward_request, reward_result) VALUES (?, ?, ?, ?)",
          what.token.id,
          what.token.expiresAt,
          key,
          stored,
        );
      else
        for (const ret of what.retrievals)
          this.ctx.sql.exec("UPDATE retrievals SET reward_request = ?, reward_result = ? WHERE id = ?", key, stored, ret.id);
      record?.(result);
      return result;
    });
  }

  /**
   * What a lesson on probation is judged by: the task succeeded, and its episode (when the reward
   * has one) recorded no failed attempt at the task. An episode that got there after failing is the
   * failure a lesson is meant to spare.
   */
  private firstTrySuccess(req: RewardInput, r: number, retrievals: readonly CreditedRetrieval[]): boolean {
    if (!(req.outcome ? req.outcome === "success" : r > 0)) return false;
    const episodeId = req.episodeId ?? retrievals.find((x) => x.episodeId)?.episodeId;
    return (
      !episodeId ||
      !this.ctx.sql.exec("SELECT 1 FROM attempts WHERE episode_id = ? AND ok = 0 AND infrastructure = 0 LIMIT 1", episodeId).toArray()
        .length
    );
  }

  analytics(opts: { top: number; window: number; buckets: number }): Analytics {
    const sql = this.ctx.sql;
    const qs = (table: string) =>
      sql
        .exec<{ q: number }>(`SELECT q FROM ${table} WHERE status = 'active'`)
        .toArray()
        .map((r) => r.q);
    const deltas = sql
      .exec<{ delta: number }>("SELECT delta FROM q_history ORDER BY seq DESC LIMIT ?", opts.window)
      .toArray()
      .map((r) => r.delta)
      .reverse();
    const ranked = (order: "DESC" | "ASC") =>
      sql
        .exec<{ id: string; seq: number; text: string; q: number; retrieved: number; cited: number }>(
          `SELECT id, seq, text, q, retrieved, cited FROM experiences WHERE status = 'active' ORDER BY q ${order}, seq LIMIT ?`,
          opts.top,
        )
        .toArray()
        .map(({ seq, ...r }) => ({ ...r, label: this.library.labelOf(seq) }));
    const rate = (s: number, f: number) => (s + f ? s / (s + f) : null);
    const bySource = sql
      .exec<{ source: string; items: number; s: number; f: number }>(
        "SELECT source, count(*) AS items, sum(successes) AS s, sum(failures) AS f FROM experiences WHERE status = 'active' GROUP BY source ORDER BY source",
      )
      .toArray()
      .map((r) => ({ source: r.source, items: r.items, successes: r.s, failures: r.f, successRate: rate(r.s, r.f) }));
    const byTag = sql
      .exec<{ tag: string; items: number; s: number; f: number }>(
        `SELECT j.value AS tag, count(*) AS items, sum(e.successes) AS s, sum(e.failures) AS f
         FROM experiences e, json_each(e.tags) j WHERE e.status = 'active' GROUP BY j.value ORDER BY j.value`,
      )
      .toArray()
      .map((r) => ({ tag: r.tag, items: r.items, successes: r.s, failures: r.f, successRate: rate(r.s, r.f) }));
    const byOrigin = sql
      .exec<{ origin: string; items: number; s: number; f: number }>(
        `SELECT json_extract(provenance, '$.origin') AS origin, count(*) AS items, sum(successes) AS s, sum(failures) AS f FROM experiences
         WHERE status = 'active' AND json_extract(provenance, '$.origin') IS NOT NULL GROUP BY origin ORDER BY origin`,
      )
      .toArray()
      .map((r) => ({ origin: r.origin, items: r.items, successes: r.s, failures: r.f, successRate: rate(r.s, r.f) }));
    const totals = sql
      .exec<{ retrieved: number | null; cited: number | null; uncited: number | null }>(
        `SELECT sum(retrieved) AS retrieved, sum(cited) AS cited, sum(uncited) AS uncited FROM
         (SELECT retrieved, cited, uncited FROM experiences UNION ALL SELECT retrieved, cited, uncited FROM cases)`,
      )
      .one();
    const counts = (table: string) =>
      sql
        .exec<{ status: string; n: number }>(`SELECT status, count(*) AS n FROM ${table} GROUP BY status`)
        .toArray()
        .reduce<Record<string, number>>((acc, r) => ((acc[r.status] = r.n), acc), {});
    return {
      experiences: { counts: counts("experiences"), q: qStats(qs("experiences"), opts.buckets) },
      cases: { counts: counts("cases"), q: qStats(qs("cases"), opts.buckets) },
      top: ranked("DESC"),
      bottom: ranked("ASC"),
      convergence: { window: opts.window, updates: deltas.length, meanAbsDeltaQ: convergence(deltas, opts.window) },
      // Token retrievals are counted by day (flushed from the Workers), recorded ones by their rows: both pruned by retention.
      retrievals: sql
        .exec<{ n: number }>("SELECT (SELECT count(*) FROM retrievals) + (SELECT coalesce(sum(n), 0) FROM token_retrievals) AS n")
        .one().n,
      citations: { cited: totals.cited ?? 0, uncited: totals.uncited ?? 0, retrievedItems: totals.retrieved ?? 0 },
      successRate: { bySource, byTag, byOrigin },
      libraryVersion: this.library.currentVersion(),
    };
  }
}
