import type { Deps } from "../platform/deps";
import { resilientMemory } from "../platform/objects/agent-access";

/**
 * An agent's own upkeep, asked through the jobs queue (never by a client): the sweep its alarm
 * plans (time-outs, fading, retention) and re-embedding its memories after the embedder changed.
 */
type AgentRef = { tenantId: string; agentId: string };

export async function sweepAgent(deps: Pick<Deps, "env">, input: AgentRef & { at: number }) {
  return resilientMemory(deps.env, input.tenantId, input.agentId).sweep({ at: input.at });
}

/** One batch of re-embedding with `model`; `remaining` says whether another batch is due, `stale` that the model changed meanwhile. */
export async function reembedBatch(deps: Pick<Deps, "env">, input: AgentRef & { model: string }) {
  return resilientMemory(deps.env, input.tenantId, input.agentId).reembed({ model: input.model });
}
