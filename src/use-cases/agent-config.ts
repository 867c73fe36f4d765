import { outcome } from "../core/errors";
import { configPatchUrls, type AgentConfigPatch } from "../core/agent-config";
import type { Caller, Deps } from "../platform/deps";
import { agentWithRow } from "../platform/objects/agent-access";
import { assertCallableUrls } from "../platform/checks/callable-urls";

/** An agent's settings: retrieval, utility, decay, retention and embedder. */
type AgentRef = { agentId: string };

export const getAgentConfig = (deps: Deps, caller: Caller, input: AgentRef) =>
  outcome(async () => {
    const { memory } = await agentWithRow(deps, caller, input.agentId, "read");
    return memory.getConfig();
  });

/** Changes some settings; nested objects merge field by field. A new embedder re-embeds the agent's memories in the background. */
export const updateAgentConfig = (deps: Deps, caller: Caller, input: AgentRef & { patch: AgentConfigPatch }) =>
  outcome(async () => {
    const { patch } = input;
    // The openai embedder spends the operator's key (and the tenant's budget) on every write and read.
    const { memory } = await agentWithRow(deps, caller, input.agentId, patch.embedder?.provider === "openai" ? "admin" : "write");
    assertCallableUrls(deps.env, configPatchUrls(patch));
    return memory.patchConfig(patch);
  });
