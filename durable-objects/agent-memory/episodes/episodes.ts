import type {
  Attempt,
  AttemptCreate,
  Episode,
  EpisodeCreate,
  EpisodeEnd,
  EpisodeResult,
  EpisodeRetrieval,
  SessionEnd,
} from "../../../src/core/episode-types";
import type { EpisodeDatasetQuery, EpisodeForDataset } from "../../../src/core/practice/dataset-types";
import { redactSecrets } from "../../../src/core/redact";
import { assessInsight } from "../../../src/core/poison";
import { debracketCitations, quotedLabels } from "../../../src/core/library-block";
import type { LiveLessonResult } from "../library/live-lessons";
import { FEATURES, type FeatureName } from "../../../src/core/reranker";
import { decodeCursor, pageOf } from "../../../src/core/cursor";
import { DomainError } from "../../../src/core/errors";
import { chunks, nextSeq, parseJson, placeholders, type MemoryContext } from "../storage/context";
import type { Cases } from "./cases";
import type { Utility } from "../rewards/utility";
import type { Jobs } from "./jobs";
import type { IdempotencyStore } from "../storage/idempotency";
import {
  attemptOut,
  claimedEnd,
  cleanError,
  endOf,
  preview,
  taskAttempts,
  traceSummary,
  type AttemptRow,
  type EpisodeRow,
  type ExtractionInput,
} from "./episode-rows";

/**
 * Episodes are the unit of live learning: the attempts an agent made at one task and how it
 * ended. Ending one rewards what it retrieved, stores it as a case, and queues extraction when
 * it holds both failure and success; ending one `abandoned` does none of these. Every step is idempotent, so ending again (or retrying after
 * a crash mid-way) returns the first result and changes nothing.
 */
export class Episodes {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly cases: Cases,
    private readonly utility: Utility,
    private readonly jobs: Jobs,
    private readonly idempotency: IdempotencyStore,
    private readonly enqueueExtraction: (episodeId: string, jobId: string) => Promise<void>,
  ) {}

  private readonly ending = new Map<string, Promise<Episode>>();

  private row(id: string): EpisodeRow {
    const row = this.ctx.sql.exec<EpisodeRow>("SELECT * FROM episodes WHERE id = ?", id).toArray()[0];
    if (!row) throw DomainError.notFound(`Episode '${id}' does not exist.`);
    return row;
  }

  private attempts(id: string): Attempt[] {
    return this.ctx.sql.exec<AttemptRow>("SELECT * FROM attempts WHERE episode_id = ? ORDER BY n", id).toArray().map(attemptOut);
  }

  /** The attempts of several episodes in one query, by episode. */
  private attemptsOf(ids: string[]): Map<string, Attempt[]> {
    const by = new Map<string, Attempt[]>();
    for (const part of chunks(ids)) {
      for (const a of this.ctx.sql.exec<AttemptRow>(
        `SELECT * FROM attempts WHERE episode_id IN (${placeholders(part.length)}) ORDER BY episode_id, n`,
        ...part,
      )) {
        const list = by.get(a.episode_id) ?? [];
        list.push(attemptOut(a));
        by.set(a.episode_id, list);
      }
    }
    return by;
  }

  private out(row: EpisodeRow, withAttempts = true): Episode {
    return {
      id: row.id,
      task: row.task,
      metadata: parseJson<Episode["metadata"]>(row.metadata, null),
      sessionId: row.session_id,
      status: row.status as Episode["status"],
      outcome: row.outcome as Episode["outcome"],
      score: row.score,
      answer: row.answer,
      attempts: withAttempts ? this.attempts(row.id) : [],
      result: this.resultNow(parseJson<EpisodeResult | null>(row.result, null)),
      createdAt: row.created_at,
      endedAt: row.ended_at,
    };
  }

  get(id: string): Episode {
    return this.out(this.row(id));
  }

  /**
   * The result as it stands now, not as it was when the episode ended: whether its case is held
   * (and why), and what its extraction job did once it ran.
   */
  private resultNow(result: EpisodeResult | null): EpisodeResult | null {
    if (!result) return null;
    const stored = result.caseId
      ? this.ctx.sql
          .exec<{ status: string; reason: string | null }>(
            "SELECT c.status, q.reason FROM cases c LEFT JOIN quarantine q ON q.item_id = c.id WHERE c.id = ?",
            result.caseId,
          )
          .toArray()[0]
      : undefined;
    const job = result.jobId ? this.jobs.get(result.jobId) : null;
    const done = job?.status === "done" ? (job.result as Partial<LiveLessonResult> | null) : null;
    return {
      ...result,
      case: stored
        ? { id: result.caseId!, status: stored.status as NonNullable<EpisodeResult["case"]>["status"], reason: stored.reason }
        : null,
      extraction: job ? (job.status === "retrying" ? "running" : job.status) : result.extraction,
      taught:
        job && (job.status === "done" || job.status === "skipped" || job.status === "failed")
          ? {
              lessonIds: done?.experienceId && done.applied !== "none" ? [done.experienceId] : [],
              operation: done?.operation ?? null,
              libraryVersion: done?.libraryVersion ?? null,
              reason: done?.reason ?? job.reason,
            }
          : null,
    };
  }

  /** The `[G#]` labels the episode's retrievals showed: what its answer and attempts may cite. */
  private shownLabels(id: string): Set<string> {
    const shown = new Set<string>();
    for (const r of this.ctx.sql.exec<{ items: string }>("SELECT items FROM retrievals WHERE episode_id = ?", id).toArray())
      for (const item of JSON.parse(r.items) as { label?: string | null }[]) if (item.label) shown.add(item.label);
    return shown;
  }

  /** The episode's retrievals, oldest first, each with what it returned as it was ranked then. */
  retrievals(id: string): EpisodeRetrieval[] {
    this.row(id);
    return this.ctx.sql
      .exec<{ id: string; at: number; query: string; phase: string | null; lambda: number; items: string; reward_request: string | null }>(
        "SELECT id, at, query, phase, lambda, items, reward_request FROM retrievals WHERE episode_id = ? ORDER BY at, id",
        id,
      )
      .toArray()
      .map((r) => ({
        retrievalId: r.id,
        at: r.at,
        query: r.query,
        phase: r.phase as EpisodeRetrieval["phase"],
        lambda: r.lambda,
        items: (
          JSON.parse(r.items) as {
            id: string;
            kind: EpisodeRetrieval["items"][number]["kind"];
            label: string | null;
            score: number | null;
            citeOnly?: boolean;
            f?: number[];
          }[]
        ).map((i) => ({
          id: i.id,
          kind: i.kind,
          label: i.label,
          score: i.score,
          shownWithLibrary: i.citeOnly === true,
          signals: i.f ? (Object.fromEntries(FEATURES.map((name, k) => [name, i.f![k] ?? 0])) as Record<FeatureName, number>) : null,
        })),
        rewarded: r.reward_request !== null,
      }));
  }

  create(input: EpisodeCreate, sessionId: string | null = null): Episode {
    const id = this.ctx.newId("ep");
    this.ctx.sql.exec(
      "INSERT INTO episodes (id, seq, task, metadata, session_id, status, created_at) VALUES (?, ?, ?, ?, ?, 'open', ?)",
      id,
      nextSeq(this.ctx.sql, "episode"),
      redactSecrets(input.task),
      input.metadata ? JSON.stringify(input.metadata) : null,
      sessionId,
      this.ctx.now(),
    );
    return this.get(id);
  }

  addAttempt(id: string, input: AttemptCreate): Attempt {
    const ep = this.row(id);
    if (ep.status !== "open" || ep.outcome !== null)
      throw DomainError.conflict(`Episode '${id}' has ended; attempts can no longer be added.`);
    const n = this.ctx.sql.exec<{ n: number | null }>("SELECT max(n) AS n FROM attempts WHERE episode_id = ?", id).one().n ?? 0;
    const tools = (input.toolCalls ?? []).map((t) => (t.error ? `${t.name} ✗ ${cleanError(t.error)}` : t.name));
    const error = cleanError(input.error ?? input.toolCalls?.find((t) => t.error)?.error);
    this.ctx.sql.exec(
      "INSERT INTO attempts (episode_id, n, description, ok, error, tool_calls, infrastructure, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      id,
      n + 1,
      redactSecrets(input.description),
      input.ok ? 1 : 0,
      error,
      JSON.stringify(tools),
      input.infrastructure ? 1 : 0,
      this.ctx.now(),
    );
    return this.attempts(id).find((a) => a.n === n + 1)!;
  }

  /**
   * One end wins. Concurrent ends (a retry, a webhook redelivery, the sweep's timeout) share the
   * run already under way, and the first end's input is stored with its reward, so an end resumed
   * after a crash finishes the way it began: one reward, one case, one extraction enqueued.
   */
  async end(id: string, input: EpisodeEnd): Promise<Episode> {
    const running = this.ending.get(id);
    if (running) return running;
    const ep = this.row(id);
    if (ep.status === "ended") return this.out(ep);
    const run = this.finish(ep, ep.outcome === null ? input : claimedEnd(ep)).finally(() => this.ending.delete(id));
    this.ending.set(id, run);
    return run;
  }

  private async finish(ep: EpisodeRow, input: EpisodeEnd): Promise<Episode> {
    const id = ep.id;
    const answer = input.answer ? redactSecrets(input.answer) : null;
    if (input.outcome === "abandoned") return this.abandon(id, input, answer);
    const quoted = input.answer ? quotedLabels(input.answer) : [];
    const request = {
      episodeId: id,
      outcome: input.outcome,
      ...(input.score !== undefined ? { quality: input.score } : {}),
      ...(input.citedIds ? { citedIds: input.citedIds } : {}),
      ...(quoted.length ? { quotedLabels: quoted } : {}),
    };
    const { value: reward } = await this.idempotency.run(id, "episode.reward", request, async (record) =>
      this.utility.reward(request, (result) => {
        record(result);
        this.ctx.sql.exec(
          "UPDATE episodes SET outcome = ?, score = ?, answer = ?, cited = ? WHERE id = ?",
          input.outcome,
          input.score ?? null,
          answer,
          input.citedIds ? JSON.stringify(input.citedIds) : null,
          id,
        );
      }),
    );
    const attempts = taskAttempts(this.attempts(id));
    // The answer and attempts are the agent's account of its work: the labels it was shown and
    // cites were read above (the reward); the case, which later prompts show, keeps them harmless.
    const shown = this.shownLabels(id);
    const { case: stored } = await this.cases.create(
      {
        task: ep.task,
        traceSummary: traceSummary(attempts, shown),
        answer: answer === null ? null : debracketCitations(answer, shown),
        reward: reward.reward,
        toolsUsed: [...new Set(attempts.flatMap((a) => a.toolCalls.map((t) => t.split(" ")[0]!)))],
        episodeId: id,
      },
      undefined,
      { door: "episode" },
    );
    const failed = attempts.some((a) => !a.ok);
    const succeeded = attempts.some((a) => a.ok) || input.outcome === "success";
    let jobId: string | null = null;
    if (failed && succeeded) {
      const { job, created } = this.jobs.ensure(`job_extract_${id}`, "live.extract", id);
      jobId = job.id;
      // Only a crash can leave a queued job whose message may not have been sent: send it again.
      if (created || job.status === "queued") await this.enqueueExtraction(id, job.id);
    }
    const result: EpisodeResult = {
      reward: reward.reward,
      rewarded: reward.updated.map((u) => ({ id: u.id, q: u.q })),
      caseId: stored.id,
      extraction: jobId ? "queued" : "not-needed",
      jobId,
    };
    this.ctx.sql.exec(
      "UPDATE episodes SET status = 'ended', result = ?, ended_at = ? WHERE id = ? AND status = 'open'",
      JSON.stringify(result),
      this.ctx.now(),
      id,
    );
    return this.get(id);
  }

  /**
   * Work that stopped for a reason outside the task says nothing about the task or about what was
   * retrieved for it: no reward reaches a lesson or the retriever, no case is built from attempts
   * that may hold nothing but the infrastructure's error, and no extraction runs.
   */
  private abandon(id: string, input: EpisodeEnd, answer: string | null): Episode {
    const result: EpisodeResult = { reward: 0, rewarded: [], caseId: null, extraction: "not-needed", jobId: null };
    this.ctx.sql.exec(
      "UPDATE episodes SET outcome = 'abandoned', score = NULL, answer = ?, cited = ?, status = 'ended', result = ?, ended_at = ? WHERE id = ? AND status = 'open'",
      answer,
      input.citedIds ? JSON.stringify(input.citedIds) : null,
      JSON.stringify(result),
      this.ctx.now(),
      id,
    );
    return this.get(id);
  }

  list(limit: number, cursor?: string, status?: "open" | "ended"): { items: Episode[]; nextCursor: string | null } {
    let before = Number.MAX_SAFE_INTEGER;
    if (cursor) {
      const c = decodeCursor(cursor);
      if (!c || typeof c.s !== "number")
        throw DomainError.unprocessable("The cursor is not valid.", [{ path: ["cursor"], message: "Not a cursor from this API" }]);
      before = c.s;
    }
    const rows = this.ctx.sql
      .exec<EpisodeRow>(
        `SELECT * FROM episodes WHERE seq < ? ${status ? "AND status = ?" : ""} ORDER BY seq DESC LIMIT ?`,
        ...(status ? [before, status, limit + 1] : [before, limit + 1]),
      )
      .toArray();
    const page = pageOf(rows, limit, (last) => ({ s: last.seq }));
    const attempts = this.attemptsOf(page.items.map((r) => r.id));
    return {
      items: page.items.map((r) => ({ ...this.out(r, false), attempts: attempts.get(r.id) ?? [] })),
      nextCursor: page.nextCursor,
    };
  }

  /** A finished session from an agent platform, through the same pipeline; a repeated session id changes nothing. */
  async ingestSession(session: SessionEnd): Promise<{ episode: Episode; duplicate: boolean }> {
    const existing = this.ctx.sql.exec<EpisodeRow>("SELECT * FROM episodes WHERE session_id = ?", session.sessionId).toArray()[0];
    if (existing) {
      // A crash after creation but before ending leaves it open; finishing it here completes the retry.
      if (existing.status === "open") await this.end(existing.id, endOf(session));
      return { episode: this.get(existing.id), duplicate: true };
    }
    const ep = this.create({ task: session.task, metadata: { source: "session-end-webhook" } }, session.sessionId);
    for (const event of session.events) {
      if (event.type !== "tool_call") continue;
      const args = preview(event.input);
      this.addAttempt(ep.id, {
        description: `${event.name}(${args})${event.error ? "" : ` → ${preview(event.result, 120)}`}`.slice(0, 4000),
        ok: event.error === undefined,
        ...(event.error !== undefined ? { error: event.error } : {}),
      });
    }
    return { episode: await this.end(ep.id, endOf(session)), duplicate: false };
  }

  /**
   * Open episodes older than the TTL end as `timeout` through the normal end path. One that a
   * client is ending meanwhile ends the client's way; one that fails stays open for the next sweep
   * rather than stopping this one.
   */
  async endStale(now: number, ttlMs: number): Promise<{ timedOut: string[]; failed: string[] }> {
    const stale = this.ctx.sql
      .exec<{ id: string }>("SELECT id FROM episodes WHERE status = 'open' AND created_at < ? ORDER BY created_at LIMIT 200", now - ttlMs)
      .toArray()
      .map((r) => r.id);
    const timedOut: string[] = [];
    const failed: string[] = [];
    for (const id of stale) {
      try {
        if ((await this.end(id, { outcome: "timeout" })).outcome === "timeout") timedOut.push(id);
      } catch {
        failed.push(id);
      }
    }
    return { timedOut, failed };
  }

  /** Ended episodes for a practice dataset, most recently ended first. */
  forDataset(q: EpisodeDatasetQuery): EpisodeForDataset[] {
    return this.screenedForDataset(q).episodes;
  }

  /**
   * Episodes become practice tasks and their answers ground truth, so only admitted text goes: an
   * episode whose case is held (quarantined or awaiting review) or whose task and answer the filter
   * flags is withheld, and said so, never silently left out. An abandoned episode is no task
   * outcome at all (neither a failure to remedy nor a success whose answer is ground truth).
   */
  screenedForDataset(q: EpisodeDatasetQuery): { episodes: EpisodeForDataset[]; withheld: { episodeId: string; reason: string }[] } {
    const outcomes = q.outcomes ?? [];
    const rows = this.ctx.sql
      .exec<{
        id: string;
        task: string;
        outcome: string;
        answer: string | null;
        ended_at: number;
        case_status: string | null;
        case_answer: string | null;
        held: string | null;
      }>(
        `SELECT e.id, e.task, e.outcome, e.answer, e.ended_at, c.status AS case_status, c.answer AS case_answer, qr.reason AS held
         FROM episodes e LEFT JOIN cases c ON c.episode_id = e.id LEFT JOIN quarantine qr ON qr.item_id = c.id
         WHERE e.status = 'ended' AND e.outcome != 'abandoned' AND e.ended_at >= ?
         ${outcomes.length ? `AND e.outcome IN (${placeholders(outcomes.length)})` : ""} ORDER BY e.ended_at DESC, e.seq DESC LIMIT ?`,
        q.since ?? 0,
        ...outcomes,
        q.limit,
      )
      .toArray();
    const episodes: EpisodeForDataset[] = [];
    const withheld: { episodeId: string; reason: string }[] = [];
    for (const r of rows) {
      // Ground truth is the answer as its case keeps it: the citations of labels it was shown, harmless.
      const answer = r.answer === null ? null : debracketCitations(r.answer, this.shownLabels(r.id));
      const caseAdmitted = (r.case_status === "active" || r.case_status === "archived") && r.case_answer === answer;
      const verdict = caseAdmitted ? null : assessInsight([r.task, answer ?? ""].join("\n"), { chat: true });
      const reason =
        r.case_status === "quarantined" || r.case_status === "pending"
          ? `its case is ${r.case_status}${r.held ? `: ${r.held}` : ""}`
          : verdict?.quarantined
            ? `content filter: ${verdict.reasons.join(", ")}`
            : null;
      if (reason) withheld.push({ episodeId: r.id, reason });
      else episodes.push({ id: r.id, task: r.task, outcome: r.outcome, answer, endedAt: r.ended_at });
    }
    return { episodes, withheld };
  }

  extractionInput(id: string): ExtractionInput {
    const ep = this.row(id);
    const attempts = taskAttempts(this.attempts(id));
    return {
      episodeId: id,
      task: ep.task,
      outcome: ep.outcome,
      answer: ep.answer,
      failures: attempts.filter((a) => !a.ok).map((a) => ({ description: a.description, error: a.error })),
      successes: attempts.filter((a) => a.ok).map((a) => ({ description: a.description })),
    };
  }
}
