import { call, newAgent, newTenant } from "../helpers";

/** A fresh tenant and agent, plus a caller bound to that agent's routes. */
export async function agentFixture() {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(method, `/v1/agents/${agentId}${path}`, { key: t.apiKey, body, headers });
  return { t, agentId, api };
}
