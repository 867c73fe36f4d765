export const memoryName = (tenantId: string, agentId: string) => `${tenantId}:${agentId}`;
