import { createRoute } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { AgentConfigPatchSchema, AgentConfigSchema } from "../core/agent-config";
import { depsOf, valueOf } from "../doors/use-case";
import { getAgentConfig, updateAgentConfig } from "../use-cases/agent-config";
import { AgentParams } from "./schemas";

const Config = AgentConfigSchema.openapi("AgentConfig");
const ConfigPatch = AgentConfigPatchSchema.openapi("AgentConfigPatch");

export const agentConfigRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/config",
      tags: ["agents"],
      operationId: "getAgentConfig",
      summary: "Get an agent's settings",
      description: "The agent's retrieval, utility, decay, retention and embedder settings; defaults until patched.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(Config, "Current configuration"), ...commonErrors },
    }),
    async (c) => {
      return c.json(valueOf(await getAgentConfig(depsOf(c), c.get("principal"), c.req.valid("param"))), 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/v1/agents/{agentId}/config",
      tags: ["agents"],
      operationId: "updateAgentConfig",
      summary: "Change an agent's settings",
      description:
        "Changes some settings; nested objects merge field by field. Changing the embedder re-embeds the agent's memories in the background. Choosing the `openai` embedder needs an admin key: it spends the deployment's key, and its requests count in the tenant's daily token budget.",
      security,
      request: { params: AgentParams, ...jsonBody(ConfigPatch) },
      responses: { 200: jsonResponse(Config, "Updated configuration"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), patch: c.req.valid("json") };
      return c.json(valueOf(await updateAgentConfig(depsOf(c), c.get("principal"), input)), 200);
    },
  );
