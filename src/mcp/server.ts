import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { bearer, tenantPrincipal } from "../http/auth";
import type { ToolContext } from "./tool";
import { registerEpisodeTools } from "./tools/episodes";
import { registerUtilityTools } from "./tools/utility";
import { registerMemoryTools } from "./tools/memory";
import { registerPracticeTools } from "./tools/practice";

/** The tools of one request: each closes over the request, so every call runs as its API key. */
export function createMcpServer(c: ToolContext) {
  // The explicit validator avoids Ajv, which compiles schemas with `new Function` (no eval in workerd).
  const server = new McpServer({ name: "praxis", version: "0.1.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  registerEpisodeTools(server, c);
  registerUtilityTools(server, c);
  registerMemoryTools(server, c);
  registerPracticeTools(server, c);
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
    authInfo: { token: bearer(c.req.header("authorization")), clientId: key.keyId, scopes: [key.scope], extra: { tenantId: key.tenantId, agentIds: key.agentIds } },
  });
}
