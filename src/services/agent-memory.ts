import type { Env } from "../env";
import type { MemoryOutcome } from "../../durable-objects/memory-error";
import { ProblemError } from "../core/problem";
import { BudgetExceededError, toProblem } from "../llm";

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
