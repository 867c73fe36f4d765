import type { Env } from "../env";
import { notFound, unwrap, type Outcome } from "../core/errors";
import { llmConfigured, LlmNotConfiguredError } from "../llm";

export const memoryName = (tenantId: string, agentId: string) => `${tenantId}:${agentId}`;

export function memoryStub(env: Env, tenantId: string, agentId: string) {
  return env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId));
}

export type MemoryStub = ReturnType<typeof memoryStub>;

/** A DO call's value; its domain error (as the object returned it) is thrown again as a DomainError. */
export async function callMemory<T>(call: () => Promise<Outcome<T>>): Promise<T> {
  return unwrap((await call()) as Outcome<T>);
}

/**
 * Queues a live-extraction job again. The job is looked up first, so an unknown id (or one of
 * another agent) is a 404 whatever the deployment; only then does a missing LLM answer 503.
 */
export async function retryLiveJob(env: Env, agent: { key: { tenantId: string }; agent: { agentId: string }; memory: MemoryStub }, jobId: string) {
  const found = await callMemory(() => agent.memory.getJob(jobId));
  if (!found.episodeId) throw notFound(`Job '${jobId}' has no episode to extract from.`);
  if (!llmConfigured(env)) throw new LlmNotConfiguredError();
  const job = (await callMemory(() => agent.memory.finishJob(jobId, "queued", "queued again by request")))!;
  await env.JOBS.send({ type: "live.extract", tenantId: agent.key.tenantId, agentId: agent.agent.agentId, episodeId: found.episodeId, jobId });
  return job;
}
