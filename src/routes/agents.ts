import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { agents } from "../db/schema";
import { db } from "../db/client";
import { requireAgentAccess, requireScope } from "../http/auth";
import { badRequest } from "../http/problem";
import { decodeCursor, encodeCursor } from "../core/cursor";
import { agentFor, deleteAgent, putAgent } from "../services/agents";
import { audit } from "../services/audit";
import { AgentParams, PageQuery, timestamp } from "./schemas";

const AgentSchema = z
  .object({
    agentId: z.string(),
    displayName: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    lastActiveAt: timestamp.nullable(),
  })
  .openapi("Agent");

const PutAgentBody = z
  .object({ displayName: z.string().trim().min(1).max(200).nullable().optional() })
  .strict()
  .openapi("PutAgent");

type AgentRow = typeof agents.$inferSelect;
const present = (a: AgentRow) => ({
  agentId: a.agentId,
  displayName: a.displayName ?? null,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  lastActiveAt: a.lastActiveAt ?? null,
});

export const agentRoutes = router()
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      summary: "Create or update an agent",
      security,
      request: { params: AgentParams, ...jsonBody(PutAgentBody) },
      responses: {
        200: jsonResponse(AgentSchema, "Updated"),
        201: jsonResponse(AgentSchema, "Created"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const key = requireAgentAccess(c.get("principal"), agentId, "write");
      const { row, created } = await putAgent(c.env, key.tenantId, agentId, c.req.valid("json").displayName);
      if (!created) return c.json(present(row), 200);
      await audit(c, { tenantId: key.tenantId, action: "agent.create", target: agentId });
      return c.json(present(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      summary: "Get an agent",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(AgentSchema, "The agent"), ...commonErrors },
    }),
    async (c) => {
      const { agent } = await agentFor(c, c.req.valid("param").agentId, "read");
      return c.json(present(agent), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      summary: "Delete an agent: erase its memory, cases, episodes, jobs and vectors, and cancel its practice runs",
      security,
      request: { params: AgentParams },
      responses: {
        200: jsonResponse(
          z.object({ agentId: z.string(), deleted: z.literal(true), storageDeleted: z.boolean(), runsCancelled: z.number().int() }).openapi("DeletedAgent"),
          "Deleted",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const key = requireAgentAccess(c.get("principal"), agentId, "admin");
      const { storageDeleted, runsCancelled } = await deleteAgent(c.env, key.tenantId, agentId, c.get("logger"));
      await audit(c, { tenantId: key.tenantId, action: "agent.delete", target: agentId, detail: { runsCancelled } });
      return c.json({ agentId, deleted: true as const, storageDeleted, runsCancelled }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents",
      tags: ["agents"],
      summary: "List agents (cursor pagination, ordered by agent id)",
      security,
      request: { query: PageQuery },
      responses: {
        200: jsonResponse(z.object({ items: z.array(AgentSchema), nextCursor: z.string().nullable() }), "A page of agents"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const key = requireScope(c.get("principal"), "read");
      const { limit, cursor } = c.req.valid("query");
      let after: string | undefined;
      if (cursor) {
        const decoded = decodeCursor(cursor);
        if (!decoded || typeof decoded.a !== "string") {
          throw badRequest("The cursor is not valid.", [{ path: "query.cursor", message: "Not a cursor from this API" }]);
        }
        after = decoded.a;
      }
      const rows = await db(c.env)
        .select()
        .from(agents)
        .where(
          and(
            eq(agents.tenantId, key.tenantId),
            after ? gt(agents.agentId, after) : undefined,
            key.agentIds ? inArray(agents.agentId, key.agentIds) : undefined,
          ),
        )
        .orderBy(asc(agents.agentId))
        .limit(limit + 1)
        .all();
      const page = rows.slice(0, limit);
      const nextCursor = rows.length > limit ? encodeCursor({ a: page[page.length - 1]!.agentId }) : null;
      return c.json({ items: page.map(present), nextCursor }, 200);
    },
  );
