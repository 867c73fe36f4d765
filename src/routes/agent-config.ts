import { createRoute } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { AgentConfigPatchSchema, AgentConfigSchema, configPatchUrls } from "../core/agent-config";
import { assertCallableUrls } from "../http/callable-urls";
import { agentFor } from "../services/agents";
import { callMemory } from "../services/agent-memory";
import { AgentParams } from "./schemas";

const Config = AgentConfigSchema.openapi("AgentConfig");
const ConfigPatch = AgentConfigPatchSchema.openapi("AgentConfigPatch");

export const agentConfigRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/config",
      tags: ["agents"],
      summary: "The agent's retrieval, utility and decay settings (defaults until patched)",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(Config, "Current configuration"), ...commonErrors },
    }),
    async (c) => {
      const { memory } = await agentFor(c, c.req.valid("param").agentId, "read");
      return c.json(await callMemory(() => memory.getConfig()), 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/v1/agents/{agentId}/config",
      tags: ["agents"],
      summary: "Change some settings; nested objects merge field by field",
      security,
      request: { params: AgentParams, ...jsonBody(ConfigPatch) },
      responses: { 200: jsonResponse(Config, "Updated configuration"), ...commonErrors },
    }),
    async (c) => {
      const { memory } = await agentFor(c, c.req.valid("param").agentId, "write");
      const patch = c.req.valid("json");
      assertCallableUrls(c.env, configPatchUrls(patch));
      return c.json(await callMemory(() => memory.patchConfig(patch)), 200);
    },
  );
