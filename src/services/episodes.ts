import type { AttemptCreate, EpisodeCreate, EpisodeEnd } from "../core/episode-types";
import type { RetrieveRequest } from "../core/memory-types";
import { callMemory, type MemoryStub } from "./agent-memory";
import type { Deps } from "./deps";
import { countRetrieval, servedByPrompt, servedByRetrieve } from "./retrieval-counters";
import { promptNearby, retrieveNearby, type ReadOptions } from "./edge-reads";

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
const readerOf = (agent: Caller) => ({ tenantId: agent.key.tenantId, agentId: agent.agent.agentId, ...askerOf(agent) });

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

/**
 * Retrieves, where the request landed when it may (src/services/edge-reads.ts); what the answer
 * served is counted in the Worker's batch (src/services/retrieval-counters.ts).
 */
export async function retrieve(deps: Pick<Deps, "env" | "waitUntil">, agent: Caller, req: RetrieveRequest) {
  const asker = askerOf(agent);
  const answer = await retrieveNearby(deps, readerOf(agent), req, () => callMemory(() => agent.memory.retrieve(req, asker)));
  countRetrieval(deps, agent.key.tenantId, agent.agent.agentId, answer.retrievalId, servedByRetrieve(answer, asker.readOnly));
  return answer;
}

/** Builds the prompt block, where the request landed when it may; what it served is counted like a retrieval's. */
export async function promptBlock(deps: Pick<Deps, "env" | "waitUntil">, agent: Caller, req: PromptRequest & ReadOptions) {
  const asker = askerOf(agent);
  const block = await promptNearby(deps, readerOf(agent), req, () => callMemory(() => agent.memory.prompt(req, asker)));
  countRetrieval(deps, agent.key.tenantId, agent.agent.agentId, block.retrievalId, servedByPrompt(block, asker.readOnly));
  return block;
}
