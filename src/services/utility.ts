import type { AgentConfig, AgentConfigPatch } from "../core/agent-config";
import { callMemory, type MemoryStub } from "./agent-memory";

/** What retrieval has learned about utility, and the knobs that weigh it, for one agent's memory. */
type Agent = { memory: MemoryStub };

/** Q-value analytics; with `history`, each ranked memory's Q history too. */
export async function utilityAnalytics(agent: Agent, opts: { top: number; window: number; buckets: number; history: boolean }) {
  const { history, ...query } = opts;
  const a = await callMemory(() => agent.memory.analytics(query));
  if (!history) return { analytics: a, history: null };
  const ids = [...new Set([...a.top, ...a.bottom].map((m) => m.id))];
  const entries = await Promise.all(ids.map(async (id) => [id, (await callMemory(() => agent.memory.getExperience(id))).qHistory ?? []] as const));
  return { analytics: a, history: Object.fromEntries(entries) };
}

export async function agentConfig(agent: Agent): Promise<AgentConfig> {
  return callMemory(() => agent.memory.getConfig());
}

export async function patchAgentConfig(agent: Agent, patch: AgentConfigPatch): Promise<AgentConfig> {
  return callMemory(() => agent.memory.patchConfig(patch));
}

/** Rewards memories directly: Q ← Q + α(reward − Q) for each. */
export async function rewardMemories(agent: Agent, memoryIds: string[], reward: number) {
  return callMemory(() => agent.memory.reward({ memoryIds, reward }));
}
