import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { agents } from "../db/schema";
import { db } from "../db/client";
import { requireAgentAccess, requireScope } from "../http/auth";
import { badRequest } from "../http/problem";
import { decodeCursor, encodeCursor } from "../core/cursor";
import { agentFor } from "../services/agents";
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
      const { agentId } = c.req.valid("param");
      const key = requireAgentAccess(c.get("principal"), agentId, "write");
      const body = c.req.valid("json");
      const d = db(c.env);
      const where = and(eq(agents.tenantId, key.tenantId), eq(agents.agentId, agentId));
      const existing = await d.select().from(agents).where(where).get();
      if (existing) {
        if (body.displayName === undefined) return c.json(present(existing), 200);
        const updated = await d
          .update(agents)
          .set({ displayName: body.displayName, updatedAt: Date.now() })
          .where(where)
          .returning()
          .get();
        return c.json(present(updated), 200);
      }
      // Two concurrent PUTs race here; the primary key lets exactly one insert win.
      const created = await d
        .insert(agents)
        .values({ tenantId: key.tenantId, agentId, displayName: body.displayName ?? null })
        .onConflictDoNothing()
        .returning()
        .get();
      if (!created) return c.json(present((await d.select().from(agents).where(where).get())!), 200);
      await audit(c, { tenantId: key.tenantId, action: "agent.create", target: agentId });
      return c.json(present(created), 201);
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
      const { agent } = await agentFor(c, c.req.valid("param").agentId, "read");
      return c.json(present(agent), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/agents/{agentId}",
      tags: ["agents"],
      operationId: "deleteAgent",
      summary: "Delete an agent",
      description: "Deletes the agent and erases its memory: experiences, cases, episodes, Q-values and library versions in its Durable Object storage.",
      security,
      request: { params: AgentParams },
      responses: {
        200: jsonResponse(
          z.object({ agentId: z.string(), deleted: z.literal(true), storageDeleted: z.boolean() }).openapi("DeletedAgent"),
          "Deleted",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const { key, memory } = await agentFor(c, agentId, "admin");
      // Storage first: if erasing fails the agent row survives and the delete can be retried.
      const { storageDeleted } = await memory.destroy();
      await db(c.env)
        .delete(agents)
        .where(and(eq(agents.tenantId, key.tenantId), eq(agents.agentId, agentId)))
        .run();
      await audit(c, { tenantId: key.tenantId, action: "agent.delete", target: agentId });
      return c.json({ agentId, deleted: true as const, storageDeleted }, 200);
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
