import type { Deps } from "./deps";
import { callMemory, memoryStub } from "./agent-memory";

/**
 * An agent's own upkeep, asked through the jobs queue (never by a client): the sweep its alarm
 * plans (time-outs, fading, retention) and re-embedding its memories after the embedder changed.
 */
type AgentRef = { tenantId: string; agentId: string };

export async function sweepAgent(deps: Pick<Deps, "env">, input: AgentRef & { at: number }) {
  return callMemory(() => memoryStub(deps.env, input.tenantId, input.agentId).sweep(input.at));
}

/** One batch of re-embedding with `model`; `remaining` says whether another batch is due, `stale` that the model changed meanwhile. */
export async function reembedBatch(deps: Pick<Deps, "env">, input: AgentRef & { model: string }) {
  return memoryStub(deps.env, input.tenantId, input.agentId).reembed(input.model);
}
