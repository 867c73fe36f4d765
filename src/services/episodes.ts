import type { AttemptCreate, EpisodeCreate, EpisodeEnd } from "../core/episode-types";
import type { RetrieveRequest } from "../core/memory-types";
import { callMemory, type MemoryStub } from "./agent-memory";
import type { Deps } from "./deps";
import { countRetrieval, servedByPrompt, servedByRetrieve } from "./retrieval-counters";

/**
 * An agent's episode loop as the doors call it — start, log attempts, retrieve or build the prompt,
 * end — on the agent handle a door resolved for its caller (`agentMemoryFor`), so access checks
 * stay with the door and no door calls the agent's Durable Object itself. The memory's refusals
 * come back as domain errors (404 unknown episode, 409 …) that each door maps to its own shape.
 */
type Agent = { memory: MemoryStub };
type Caller = Agent & { key: { keyId: string; scope: string; tenantId: string }; agent: { agentId: string } };
type PromptRequest = Parameters<MemoryStub["prompt"]>[0];

/** A read-scoped caller changes nothing later retrievals depend on, and no episode credits what it was shown. */
const askerOf = (agent: Caller) => ({ keyId: agent.key.keyId, readOnly: agent.key.scope === "read" });

export async function startEpisode(agent: Agent, input: EpisodeCreate, idempotencyKey?: string) {
  return callMemory(() => agent.memory.createEpisode(input, idempotencyKey));
}

export async function logAttempt(agent: Agent, episodeId: string, attempt: AttemptCreate) {
  return callMemory(() => agent.memory.addAttempt(episodeId, attempt));
}

/**
 * Ends the episode. Ending is idempotent (a second end returns the first result and changes
 * nothing); `alreadyEnded` says whether this call found it ended already.
 */
export async function endEpisode(agent: Agent, episodeId: string, end: EpisodeEnd) {
  const before = await callMemory(() => agent.memory.getEpisode(episodeId));
  const episode = await callMemory(() => agent.memory.endEpisode(episodeId, end));
  return { episode, alreadyEnded: before.status === "ended" };
}

/** Retrieves; what the answer served is counted in the Worker's batch (src/services/retrieval-counters.ts). */
export async function retrieve(deps: Pick<Deps, "env" | "waitUntil">, agent: Caller, req: RetrieveRequest) {
  const asker = askerOf(agent);
  const answer = await callMemory(() => agent.memory.retrieve(req, asker));
  countRetrieval(deps, agent.key.tenantId, agent.agent.agentId, answer.retrievalId, servedByRetrieve(answer, asker.readOnly));
  return answer;
}

/** Builds the prompt block; what it served is counted like a retrieval's. */
export async function promptBlock(deps: Pick<Deps, "env" | "waitUntil">, agent: Caller, req: PromptRequest) {
  const asker = askerOf(agent);
  const block = await callMemory(() => agent.memory.prompt(req, asker));
  countRetrieval(deps, agent.key.tenantId, agent.agent.agentId, block.retrievalId, servedByPrompt(block, asker.readOnly));
  return block;
}
