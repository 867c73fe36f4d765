import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { bearer, tenantPrincipal } from "../core/principal";
import type { ToolContext } from "./tool";
import { registerEpisodeTools } from "./tools/episodes";
import { registerUtilityTools } from "./tools/utility";
import { registerMemoryTools } from "./tools/memory";
import { registerPracticeTools } from "./tools/practice";
import { registerAgentTools } from "./tools/agents";
import { registerLibraryTools } from "./tools/libraries";

/** What a model is told when it connects: the loop the tools are for, in the order to call them. */
export const INSTRUCTIONS = `Praxis is an agent's memory of what worked. Its lessons are short rules learned from earlier \
episodes and practice; each has a Q-value that rises when using it led to success and falls when it led to failure.

For every task, follow this loop:
1. start_episode { agentId, task } — returns an episodeId (\`agentId:ep_…\`); pass it to every later call.
2. get_prompt { agentId, query, episodeId } for a block to put in your context (lessons as \`[G#]. …\` lines, then \
similar past cases), or pull_experiences { agentId, query, episodeId } for ranked lessons with their ids.
3. Work on the task. After each try, log_attempt { episodeId, description, success, error? }.
4. end_episode { episodeId, result, success, citedIds? } once. Quote the [G#] labels of the lessons you used in \
result, or pass their labels or ids as citedIds: only cited lessons learn from the outcome. Ending is idempotent.

list_agents shows the agents this key can use; create_agent makes one. add_experience stores a lesson directly; \
memory_qvalue_analytics shows which lessons help; start_practice and practice_status run deliberate practice on a dataset. \
list_libraries shows the tenant's shared libraries; share_experience copies a lesson that helped into one, for the agents that subscribe to it.`;

/** The tools of one request: each closes over the request, so every call runs as its API key. */
export function createMcpServer(c: ToolContext) {
  // The explicit validator avoids Ajv, which compiles schemas with `new Function` (no eval in workerd).
  const server = new McpServer(
    { name: "praxis", version: "0.1.0" },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  registerAgentTools(server, c);
  registerEpisodeTools(server, c);
  registerUtilityTools(server, c);
  registerMemoryTools(server, c);
  registerPracticeTools(server, c);
  registerLibraryTools(server, c);
  return server;
}

/**
 * Serves one MCP request statelessly: 2026-07-28 clients on the per-request path, 2025-era clients
 * through the SDK's stateless fallback, both from a fresh server. The key was verified by the same
 * middleware as REST; its identity also rides along as the SDK's auth info.
 */
export function serveMcp(c: ToolContext, maxRequestBodySize: number) {
  const key = tenantPrincipal(c.get("principal"));
  const handler = createMcpHandler(() => createMcpServer(c), {
    maxRequestBodySize,
    onerror: (err) => c.get("logger").warn("mcp request rejected", { err: err.message }),
  });
  return handler.fetch(c.req.raw, {
    authInfo: {
      token: bearer(c.req.header("authorization")),
      clientId: key.keyId,
      scopes: [key.scope],
      extra: { tenantId: key.tenantId, agentIds: key.agentIds },
    },
  });
}
