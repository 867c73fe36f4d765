import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { deleteAgent, getAgent, listAgents, upsertAgent } from "../use-cases/agents";
import { AgentSchema as CoreAgentSchema } from "../core/agent-types";
import { AgentParams, PageQuery } from "./schemas";
import { nameString } from "../core/text-rules";

const AgentSchema = CoreAgentSchema.openapi("Agent");

const PutAgentBody = z
  .object({ displayName: nameString(200).nullable().optional() })
  .strict()
  .openapi("PutAgent");

export const agentRoutes = router()
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      operationId: "upsertAgent",
      summary: "Create or update an agent",
      description: "Creates the agent, or updates its display name. Safe to repeat: a second PUT with the same body changes nothing.",
      security,
      request: { params: AgentParams, ...jsonBody(PutAgentBody) },
      responses: {
        200: jsonResponse(AgentSchema, "Updated"),
        201: jsonResponse(AgentSchema, "Created"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { agent, created } = valueOf(
        await upsertAgent(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("json") }),
      );
      return created ? c.json(agent, 201) : c.json(agent, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      operationId: "getAgent",
      summary: "Get an agent",
      description: "The agent's id, display name and creation time. Another tenant's agent answers 404, like a missing one.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(AgentSchema, "The agent"), ...commonErrors },
    }),
    async (c) => {
      return c.json(valueOf(await getAgent(depsOf(c), c.get("principal"), c.req.valid("param"))), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      operationId: "deleteAgent",
      summary: "Delete an agent",
      description:
        "Deletes the agent: erases its memory (experiences, cases, episodes, Q-values, library versions, jobs) and its vectors, cancels its practice runs and evaluations; every later call for it answers 404.",
      security,
      request: { params: AgentParams },
      responses: {
        200: jsonResponse(
          z
            .object({
              agentId: z.string(),
              deleted: z.literal(true),
              storageDeleted: z.boolean(),
              runsCancelled: z.number().int(),
              evaluationsCancelled: z.number().int(),
            })
            .openapi("DeletedAgent"),
          "Deleted",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      return c.json(valueOf(await deleteAgent(depsOf(c), c.get("principal"), c.req.valid("param"))), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents",
      tags: ["agents"],
      operationId: "listAgents",
      summary: "List agents",
      description: "The tenant's agents ordered by agent id, with cursor pagination. A key limited to some agents sees only those.",
      security,
      request: { query: PageQuery },
      responses: {
        200: jsonResponse(z.object({ items: z.array(AgentSchema), nextCursor: z.string().nullable() }), "A page of agents"),
        ...commonErrors,
      },
    }),
    async (c) => {
      return c.json(valueOf(await listAgents(depsOf(c), c.get("principal"), c.req.valid("query"))), 200);
    },
  );
