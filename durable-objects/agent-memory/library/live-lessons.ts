import { assessLesson } from "../../../src/core/poison";
import {
  DUPLICATE_SIMILARITY,
  lessonToStore,
  type LiveDecision,
  type LiveDecisionContext,
  type LiveInsight,
} from "../../../src/core/live-lesson";
import type { LibraryOperation } from "../../../src/core/memory-types";
import type { MemoryContext } from "../storage/context";
import type { Library } from "./library";
import type { Jobs } from "../episodes/jobs";
import type { ScreeningPolicy } from "../screening/screen";
import { experienceEmbedText } from "../storage/rows";
import { challenges, retiredOnEvidence } from "../rewards/probation-trials";

export interface SimilarExperience {
  id: string;
  text: string;
  sim: number;
  pinned: boolean;
}

export interface LiveLessonResult extends Record<string, string | number | null> {
  operation: LiveDecision["operation"];
  applied: "added" | "updated" | "archived" | "quarantined" | "none";
  experienceId: string | null;
  libraryVersion: number | null;
  reason: string;
}

/** Applies the outcome of live extraction to the library, enforcing the rules the LLM cannot be trusted with. */
export class LiveLessons {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
    private readonly jobs: Jobs,
  ) {}

  private readonly applying = new Map<string, Promise<LiveLessonResult>>();

  /** Compares like with like: the candidate is embedded the way stored experiences are (pattern, text, keywords). */
  /** A stored lesson (`id`) is compared by its own vector, so asking costs no embedding call. */
  async similar(
    lesson: { id?: string; text: string; pattern?: string | null; keywords?: string[] },
    k: number,
  ): Promise<SimilarExperience[]> {
    const vectors = this.ctx.vectors;
    const stored = lesson.id ? vectors.vectorOf(lesson.id) : null;
    const vec =
      stored ??
      (
        await vectors.embed([experienceEmbedText({ text: lesson.text, pattern: lesson.pattern ?? null, keywords: lesson.keywords ?? [] })])
      )[0];
    const hits = await vectors.search(vec!, "experience", k, -1);
    const out: SimilarExperience[] = [];
    for (const h of hits) {
      const row = this.library.row(h.id);
      if (row && row.status === "active") out.push({ id: h.id, text: row.text, sim: h.sim, pinned: row.pinned === 1 });
    }
    return out;
  }

  /**
   * One library version per job, marked with the job id in its own column, so a retry after a crash
   * between applying and marking the job done finds the version and does not apply it twice. A
   * redelivery that arrives while the job is still being applied (its checks are followed by
   * awaits) shares that run instead of passing the same checks.
   */
  apply(
    jobId: string,
    episodeId: string,
    candidate: LiveInsight,
    decision: LiveDecision,
    context: LiveDecisionContext,
  ): Promise<LiveLessonResult> {
    const running = this.applying.get(jobId);
    if (running) return running;
    const run = this.applyOnce(jobId, episodeId, candidate, decision, context).finally(() => this.applying.delete(jobId));
    this.applying.set(jobId, run);
    return run;
  }

  private async applyOnce(
    jobId: string,
    episodeId: string,
    candidate: LiveInsight,
    decision: LiveDecision,
    context: LiveDecisionContext,
  ): Promise<LiveLessonResult> {
    const prior = this.jobs.get(jobId);
    if (prior?.status === "done" && prior.result) return prior.result as unknown as LiveLessonResult;
    const tag = `(job ${jobId})`;
    // The marker is a column only the live learner writes: a reason quoting the tag (anyone's batch
    // can word its reason so) must not pass for this job's version and stop it from learning.
    const done = this.ctx.sql.exec<{ version: number }>("SELECT version FROM library_versions WHERE job_id = ?", jobId).toArray()[0];
    if (done) {
      const result: LiveLessonResult = {
        operation: decision.operation,
        applied: "none",
        experienceId: null,
        libraryVersion: done.version,
        reason: "already applied",
      };
      this.jobs.update(jobId, { status: "done", reason: "already applied", result });
      return result;
    }

    const text = lessonToStore(candidate, decision);
    const base = {
      pattern: candidate.pattern || null,
      keywords: candidate.keywords,
      when: candidate.when || null,
      source: "live" as const,
    };
    const provenance = { episodeId, note: decision.reason.slice(0, 500) };
    const reason = (what: string) => `live extraction from episode ${episodeId}: ${what} ${tag}`;
    const finish = (result: LiveLessonResult) => {
      this.jobs.update(jobId, { status: "done", reason: result.reason, result });
      return result;
    };

    const poison = assessLesson({
      text: [candidate.insight, text].join("\n"),
      pattern: candidate.pattern,
      keywords: candidate.keywords,
      when: candidate.when,
    });
    const unsafe = poison.quarantined
      ? poison.reasons.join(", ")
      : text && !context.review?.safe
        ? `safety review: ${context.review ? `${context.review.category}: ${context.review.reason}` : "not reviewed"}`
        : null;
    if (unsafe) {
      const r = await this.library.apply(
        [
          {
            op: "create",
            experience: { ...base, text: (poison.quarantined ? candidate.insight : text).slice(0, 600) || text, status: "quarantined" },
          },
        ],
        {
          reason: reason(`quarantined (${unsafe})`),
          author: "system:live",
          provenance,
          jobId,
          screening: { door: "live", internal: true, holdReason: unsafe },
        },
      );
      return finish({
        operation: decision.operation,
        applied: "quarantined",
        experienceId: r.experiences[0]!.id,
        libraryVersion: r.version,
        reason: `quarantined: ${unsafe}`,
      });
    }

    // The LLM may only touch what it was shown, never a pinned lesson; a refused target changes nothing.
    const named = decision.operation === "UPDATE" || decision.operation === "DELETE" ? decision.targetId : undefined;
    const target = named ? this.library.row(named) : null;
    const refused = !named
      ? null
      : !context.shownIds.includes(named)
        ? "was not among the lessons shown"
        : target?.pinned === 1
          ? "is pinned"
          : null;
    if (refused)
      return finish({
        operation: decision.operation,
        applied: "none",
        experienceId: null,
        libraryVersion: null,
        reason: `target ${named} ${refused}; nothing changed`,
      });
    const targetUsable = target !== null && target.status === "active";
    let ops: LibraryOperation[] = [];
    let applied: LiveLessonResult["applied"] = "none";
    let why = decision.reason;
    if (decision.operation === "UPDATE" && targetUsable && text) {
      ops = [
        {
          op: "update",
          id: target!.id,
          patch: {
            text,
            keywords: [...new Set([...JSON.parse(target!.keywords as string), ...candidate.keywords])].slice(0, 32),
            ...(base.when ? { when: base.when } : {}),
          },
        },
      ];
      applied = "updated";
    } else if (decision.operation === "DELETE" && targetUsable) {
      // Archived, not deleted: a wrong call by the LLM is undone by restoring the status.
      ops = [{ op: "archive", id: target!.id }];
      if (text) ops.push({ op: "create", experience: { ...base, text } });
      applied = "archived";
    } else if (
      decision.operation === "ADD" ||
      ((decision.operation === "UPDATE" || decision.operation === "DELETE") && !targetUsable && text)
    ) {
      const nearest = (await this.similar({ text, pattern: base.pattern, keywords: base.keywords }, 1))[0];
      const retired = retiredOnEvidence(this.ctx.sql, text);
      const rival = nearest && nearest.sim >= DUPLICATE_SIMILARITY && challenges(this.ctx.sql, episodeId, nearest, text);
      if (retired) {
        why = `the same text as ${retired}, which its trial in prompts retired`;
      } else if (nearest && nearest.sim >= DUPLICATE_SIMILARITY && !rival) {
        why = `duplicate of ${nearest.id} (similarity ${nearest.sim.toFixed(3)})`;
      } else {
        ops = [{ op: "create", experience: { ...base, text } }];
        applied = "added";
        if (rival) why = `${why}; a rival of ${nearest.id}, on probation and shown to this episode before its first try failed`;
      }
    }
    if (!ops.length)
      return finish({ operation: decision.operation, applied: "none", experienceId: null, libraryVersion: null, reason: why });
    // The worker had the text reviewed (context.review) before asking for this write. Rewritten text
    // is as new as an added lesson: the version puts it on probation (Library.tryCommit).
    const screening: ScreeningPolicy = { door: "live", internal: true, reviewed: true };
    // Jobs of one queue batch run side by side: two can find no duplicate while the other embeds. The
    // same text added meanwhile stops this one in the version's own transaction (two identical lessons
    // on probation would blur each other's trials).
    let sameText: string | null = null;
    const r = await this.library.commit(
      () => {
        sameText =
          applied === "added"
            ? (this.ctx.sql
                .exec<{ id: string }>("SELECT id FROM experiences WHERE status = 'active' AND text = ? LIMIT 1", text)
                .toArray()[0]?.id ?? null)
            : null;
        return sameText ? [] : this.library.resolve(ops, provenance, screening);
      },
      reason(applied),
      "system:live",
      undefined,
      { jobId, screening },
    );
    if (r.unchanged)
      return finish({
        operation: decision.operation,
        applied: "none",
        experienceId: null,
        libraryVersion: null,
        reason: `duplicate of ${sameText} (the same text, learned meanwhile)`,
      });
    const touched = r.experiences.find((e) => e.source === "live" && e.text === text) ?? r.experiences[0];
    return finish({
      operation: decision.operation,
      applied,
      experienceId: touched?.id ?? target?.id ?? null,
      libraryVersion: r.version,
      reason: why,
    });
  }
}
