import { outcome } from "../core/errors";
import type { KeyPrincipal } from "../core/principal";
import type { RetrieveRequest } from "../core/retrieval-types";
import type { Caller, Deps } from "../platform/deps";
import { agentMemory, agentWithRow, type Memory } from "../platform/objects/agent-access";
import { countRetrieval, servedByPrompt, servedByRetrieve } from "../platform/edge/retrieval-counters";
import { promptNearby, retrieveNearby, type ReadOptions } from "../platform/edge/read-pipeline";

/**
 * Reading an agent's memory for a task — ranked items, or the block to put in a prompt — and what
 * retrieval has learned from rewards. REST (retrieve, getPrompt, the retriever) and MCP
 * (pull_experiences, get_prompt) answer through these, so a change to how retrieval is served lands here once.
 */
export type PromptRequest = Parameters<Memory["prompt"]>[0]["request"];

/** A read-scoped caller changes nothing later retrievals depend on, and no episode credits what it was shown. */
const askerOf = (key: KeyPrincipal) => ({ keyId: key.keyId, readOnly: key.scope === "read" });

/**
 * Retrieves where the request landed when it may (platform/edge/read-pipeline: the agent's snapshot, within
 * the staleness bound), else through the object; what the answer served is counted in the Worker's
 * batch (src/platform/edge/retrieval-counters.ts), not written per read.
 */
export const retrieve = (deps: Deps, caller: Caller, input: { agentId: string; request: RetrieveRequest }) =>
  outcome(async () => {
    const { key, memory } = agentMemory(deps, caller, input.agentId, "read");
    const asker = askerOf(key);
    const reader = { tenantId: key.tenantId, agentId: input.agentId, ...asker };
    const answer = await retrieveNearby(deps, reader, input.request, () => memory.retrieve({ request: input.request, asker }));
    countRetrieval(deps, key.tenantId, input.agentId, answer.retrievalId, servedByRetrieve(answer, asker.readOnly));
    return answer;
  });

/** Builds the prompt block, where the request landed when it may; what it served is counted like a retrieval's. */
export const buildPrompt = (deps: Deps, caller: Caller, input: { agentId: string; request: PromptRequest & ReadOptions }) =>
  outcome(async () => {
    const { key, memory } = agentMemory(deps, caller, input.agentId, "read");
    const asker = askerOf(key);
    const reader = { tenantId: key.tenantId, agentId: input.agentId, ...asker };
    const block = await promptNearby(deps, reader, input.request, () => memory.prompt({ request: input.request, asker }));
    countRetrieval(deps, key.tenantId, input.agentId, block.retrievalId, servedByPrompt(block, asker.readOnly));
    return block;
  });

/** The re-ranker's state and the size of usage memory. */
export const getRetriever = (deps: Deps, caller: Caller, input: { agentId: string }) =>
  outcome(async () => {
    const { memory } = await agentWithRow(deps, caller, input.agentId, "read");
    return memory.getRetriever();
  });

/** Forgets what retrieval learned from rewards; Q-values and the library stay. */
export const resetRetriever = (deps: Deps, caller: Caller, input: { agentId: string }) =>
  outcome(async () => {
    const { memory } = await agentWithRow(deps, caller, input.agentId, "write");
    return memory.resetRetriever();
  });
