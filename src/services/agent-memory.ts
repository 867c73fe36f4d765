import type { Env } from "../env";
import { unwrap, type Outcome } from "../core/errors";

export const memoryName = (tenantId: string, agentId: string) => `${tenantId}:${agentId}`;

export function memoryStub(env: Env, tenantId: string, agentId: string) {
  return env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId));
}

export type MemoryStub = ReturnType<typeof memoryStub>;

/** A DO call's value; its domain error (as the object returned it) is thrown again as a DomainError. */
export async function callMemory<T>(call: () => Promise<Outcome<T>>): Promise<T> {
  return unwrap((await call()) as Outcome<T>);
}
