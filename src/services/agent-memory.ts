import type { Env } from "../env";
import { decodeMemoryError } from "../../durable-objects/memory-error";
import { ProblemError } from "../http/problem";

export const memoryName = (tenantId: string, agentId: string) => `${tenantId}:${agentId}`;

export function memoryStub(env: Env, tenantId: string, agentId: string) {
  return env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId));
}

export type MemoryStub = ReturnType<typeof memoryStub>;

/** Runs an RPC call and turns the Durable Object's domain errors back into problems. */
export async function callMemory<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const decoded = decodeMemoryError(err);
    if (!decoded) throw err;
    if (decoded.kind === "not-found") throw new ProblemError(404, "not-found", decoded.detail);
    if (decoded.kind === "conflict") throw new ProblemError(409, "conflict", decoded.detail);
    throw new ProblemError(422, "unprocessable", decoded.detail, { errors: decoded.errors });
  }
}
