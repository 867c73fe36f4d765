import type { Env } from "../env";

export const memoryName = (tenantId: string, agentId: string) => `${tenantId}:${agentId}`;

export function memoryStub(env: Env, tenantId: string, agentId: string) {
  return env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId));
}

export type MemoryStub = ReturnType<typeof memoryStub>;
