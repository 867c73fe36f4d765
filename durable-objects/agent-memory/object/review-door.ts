import type { MemoryKind } from "../../../src/core/memory-types";
import type { Job } from "../../../src/core/episode-types";
import type { LiveDecision, LiveDecisionContext, LiveInsight } from "../../../src/core/live-lesson";
import { AgentMemoryBase } from "./base-object";
import type { ReviewVerdict } from "../screening/quarantine";
import { applyWhen, lessonsWithoutWhen } from "../upkeep/when-backfill";

/**
 * The RPC methods of an agent's object for held entries and the work that runs beside its
 * clients: the quarantine and its safety review, the `when` writer, live extraction's jobs.
 * AgentMemory (durable-objects/agent-memory.ts) inherits them; its contract classifies them.
 */
export abstract class ReviewDoor extends AgentMemoryBase {
  async listQuarantine(opts: { kind?: MemoryKind; status?: "quarantined" | "pending"; limit: number; cursor?: string }) {
    return this.rpc(() => this.rooms.quarantine.list(opts));
  }

  async getQuarantined({ id }: { id: string }) {
    return this.rpc(() => this.rooms.quarantine.get(id));
  }

  /** Callers check that the key is admin-scoped. */
  async releaseQuarantined({ id, author }: { id: string; author: string }) {
    return this.rpc(() => this.rooms.quarantine.release(id, author));
  }

  /** Callers check that the key is admin-scoped. */
  async deleteQuarantined({ id, author }: { id: string; author: string }) {
    return this.rpc(() => this.rooms.quarantine.remove(id, author));
  }

  /** The next pending entries for the safety reviewer (src/learning/screening-review.ts). */
  async pendingReviews({ limit }: { limit: number }) {
    return this.rpc(() => ({ items: this.rooms.quarantine.pending(limit), remaining: this.rooms.quarantine.countPending() }));
  }

  async applyReviews({ verdicts }: { verdicts: ReviewVerdict[] }) {
    return this.rpc(() => this.rooms.quarantine.applyReviews(verdicts));
  }

  /** Lessons the background job may write a `when` for (src/learning/when-writer.ts). */
  async lessonsWithoutWhen({ limit }: { limit: number }) {
    return this.rpc(() => lessonsWithoutWhen(this.mem, limit));
  }

  async applyWhen({ written, asked }: { written: { id: string; text: string; when: string }[]; asked: { id: string; text: string }[] }) {
    return this.rpc(() => applyWhen(this.mem, this.rooms.library, written, asked));
  }

  /** Learned phrases waiting for the same safety review (src/learning/screening-review.ts). */
  async pendingPhraseReviews({ limit }: { limit: number }) {
    return this.rpc(() => ({
      items: this.rooms.retrieval.usage.pendingPhrases(limit),
      remaining: this.rooms.retrieval.usage.countPendingPhrases(),
    }));
  }

  async applyPhraseReviews({ verdicts }: { verdicts: { itemId: string; text: string; safe: boolean }[] }) {
    return this.rpc(() => this.rooms.retrieval.usage.applyPhraseReviews(verdicts));
  }

  async listJobs({ limit, status }: { limit: number; status?: string | undefined }) {
    return this.rpc(() => this.rooms.jobs.list(limit, status));
  }

  /** Marks a live-extraction job running and hands the worker what the LLM needs. */
  async startLiveJob({ jobId, episodeId, incarnation }: { jobId: string; episodeId: string; incarnation?: string | undefined }) {
    return this.rpc(() => {
      this.sameIncarnation(incarnation, `job ${jobId}`);
      const job = this.rooms.jobs.get(jobId) ?? this.rooms.jobs.ensure(jobId, "live.extract", episodeId).job;
      if (job.status === "done" || job.status === "skipped") return { job, input: null };
      return {
        job: this.rooms.jobs.update(jobId, { status: "running", attempt: true })!,
        input: this.rooms.episodes.extractionInput(episodeId),
      };
    });
  }

  async finishJob({
    jobId,
    status,
    reason,
    result,
    incarnation,
  }: {
    jobId: string;
    status: Job["status"];
    reason: string;
    result?: Job["result"] | undefined;
    incarnation?: string | undefined;
  }) {
    return this.rpc(
      () =>
        this.sameIncarnation(incarnation, `job ${jobId}`) ??
        this.rooms.jobs.update(jobId, { status, reason, ...(result !== undefined ? { result } : {}) }),
    );
  }

  async similarExperiences({
    lesson,
    k,
  }: {
    lesson: { id?: string | undefined; text: string; pattern?: string | null | undefined; keywords?: string[] | undefined };
    k: number;
  }) {
    return this.rpc(() => this.rooms.lessons.similar(lesson, k));
  }

  async applyLiveLesson({
    jobId,
    episodeId,
    candidate,
    decision,
    context,
    incarnation,
  }: {
    jobId: string;
    episodeId: string;
    candidate: LiveInsight;
    decision: LiveDecision;
    context: LiveDecisionContext;
    incarnation?: string | undefined;
  }) {
    return this.rpc(
      () => this.sameIncarnation(incarnation, `job ${jobId}`) ?? this.rooms.lessons.apply(jobId, episodeId, candidate, decision, context),
    );
  }
}
