import { notFound, outcome } from "../core/errors";
import type { Job } from "../core/episode-types";
import type { JobMessage } from "../core/job-messages";
import { requireSystem } from "../core/principal";
import { llmConfigured, LlmNotConfiguredError } from "../llm";
import type { Caller, Deps } from "../platform/deps";
import { agentMemory, resilientMemory } from "../platform/objects/agent-access";
import { runLiveExtraction } from "../learning/live-extraction";
import { runScreeningReview } from "../learning/screening-review";
import { runWhenWriter } from "../learning/when-writer";

/**
 * The background jobs of an agent's live loop (lesson extraction from an ended episode): listed and
 * queued again for a client, failures recorded for the queue consumer.
 */
type AgentRef = { agentId: string };

/** Recent jobs, newest first, optionally of one status. */
export const listJobs = (deps: Deps, caller: Caller, input: AgentRef & { limit: number; status?: Job["status"] | undefined }) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "read");
    return { items: await memory.listJobs({ limit: input.limit, status: input.status }) };
  });

/**
 * Queues a live-extraction job again. The job is looked up first, so an unknown id (or one of
 * another agent) is not-found whatever the deployment; only then does a missing LLM refuse it.
 */
export const retryJob = (deps: Deps, caller: Caller, input: AgentRef & { jobId: string }) =>
  outcome(async () => {
    const { key, memory } = agentMemory(deps, caller, input.agentId, "write");
    const { jobId } = input;
    const found = await memory.getJob({ jobId });
    if (!found.episodeId) throw notFound(`Job '${jobId}' has no episode to extract from.`);
    if (!llmConfigured(deps.env)) throw new LlmNotConfiguredError();
    const job = (await memory.finishJob({ jobId, status: "queued", reason: "queued again by request" }))!;
    await deps.env.JOBS.send({ type: "live.extract", tenantId: key.tenantId, agentId: input.agentId, episodeId: found.episodeId, jobId });
    return job;
  });

/**
 * Records a failed attempt of a live-extraction job on the job's page: `retrying` while the queue
 * will deliver it again, `failed` for the last. Asked by the queue consumer for the message's own
 * agent (its incarnation guards against an agent created again since); never throws, as the
 * failure being recorded is what the consumer reports.
 */
export const recordJobFailure = (
  deps: Pick<Deps, "env">,
  caller: Caller,
  job: { tenantId: string; agentId: string; jobId: string; incarnation?: string | undefined; final: boolean; reason: string },
) =>
  outcome(async () => {
    requireSystem(caller);
    await resilientMemory(deps.env, job.tenantId, job.agentId)
      .finishJob({
        jobId: job.jobId,
        status: job.final ? "failed" : "retrying",
        reason: job.reason.slice(0, 1000),
        incarnation: job.incarnation,
      })
      .catch(() => undefined);
  });

type Learning = Pick<Deps, "env" | "logger">;
/** The agent's memory a learner works on, handed to it as its port (src/learning/ports.ts). */
const memoryOf = (deps: Learning, agent: { tenantId: string; agentId: string }) => resilientMemory(deps.env, agent.tenantId, agent.agentId);

/** `live.extract`: lessons drawn from an ended episode that held both failure and success. */
export const extractLiveLessons = (deps: Learning, caller: Caller, job: Extract<JobMessage, { type: "live.extract" }>) =>
  outcome(async () => {
    requireSystem(caller);
    return runLiveExtraction(job, memoryOf(deps, job), deps.env, deps.logger);
  });

/** `admission.review`: the LLM safety review of entries and learned phrases that wait for it. */
export const reviewPendingEntries = (deps: Learning, caller: Caller, job: Extract<JobMessage, { type: "admission.review" }>) =>
  outcome(async () => {
    requireSystem(caller);
    return runScreeningReview(job, memoryOf(deps, job), deps.env, deps.logger);
  });

/** `lesson.when`: the situations (`when`) written for lessons that have none. */
export const writeLessonSituations = (deps: Learning, caller: Caller, job: Extract<JobMessage, { type: "lesson.when" }>) =>
  outcome(async () => {
    requireSystem(caller);
    return runWhenWriter(job, memoryOf(deps, job), deps.env, deps.logger);
  });
