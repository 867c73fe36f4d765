import { notFound, outcome } from "../core/errors";
import type { Job } from "../core/episode-types";
import { requireSystem } from "../core/principal";
import { llmConfigured, LlmNotConfiguredError } from "../llm";
import type { Caller, Deps } from "../platform/deps";
import { agentMemory, resilientMemory } from "../platform/objects/agent-access";

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
