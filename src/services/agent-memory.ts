import type { Env } from "../env";
import type { MemoryOutcome } from "../../durable-objects/memory-error";
import { ProblemError } from "../core/problem";
import { BudgetExceededError, llmConfigured, LlmNotConfiguredError, toProblem } from "../llm";

export const memoryName = (tenantId: string, agentId: string) => `${tenantId}:${agentId}`;

export function memoryStub(env: Env, tenantId: string, agentId: string) {
  return env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId));
}

export type MemoryStub = ReturnType<typeof memoryStub>;

/** Unwraps a DO outcome, turning its domain errors into problems (403, 404, 409, 422, 503). */
export async function callMemory<T>(call: () => Promise<MemoryOutcome<T>>): Promise<T> {
  const result = (await call()) as MemoryOutcome<T>;
  if (result.ok) return result.value;
  const e = result.error;
  if (e.kind === "not-found") throw new ProblemError(404, "not-found", e.detail);
  if (e.kind === "conflict") throw new ProblemError(409, "conflict", e.detail, e.retryable ? { retryable: true } : {});
  if (e.kind === "forbidden") throw new ProblemError(403, "forbidden", e.detail);
  if (e.kind === "budget-exceeded" && e.budget) {
    throw toProblem(new BudgetExceededError("", e.budget.budget, e.budget.used, e.budget.resetsAt))!;
  }
  if (e.kind === "embedder-not-configured") {
    throw new ProblemError(503, "embedder-not-configured", e.detail, { settings: e.errors.map((x) => x.path) });
  }
  throw new ProblemError(422, "unprocessable", e.detail, e.errors.length ? { errors: e.errors } : {});
}

/**
 * Queues a live-extraction job again. The job is looked up first, so an unknown id (or one of
 * another agent) is a 404 whatever the deployment; only then does a missing LLM answer 503.
 */
export async function retryLiveJob(env: Env, agent: { key: { tenantId: string }; agent: { agentId: string }; memory: MemoryStub }, jobId: string) {
  const found = await callMemory(() => agent.memory.getJob(jobId));
  if (!found.episodeId) throw new ProblemError(404, "not-found", `Job '${jobId}' has no episode to extract from.`);
  if (!llmConfigured(env)) throw toProblem(new LlmNotConfiguredError())!;
  const job = (await callMemory(() => agent.memory.finishJob(jobId, "queued", "queued again by request")))!;
  await env.JOBS.send({ type: "live.extract", tenantId: agent.key.tenantId, agentId: agent.agent.agentId, episodeId: found.episodeId, jobId });
  return job;
}
