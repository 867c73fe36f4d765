import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, gt, isNull, ne, sql, type SQL } from "drizzle-orm";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { apiKeys } from "../db/schema";
import { db } from "../db/client";
import { mintApiKey, sha256Hex } from "../core/api-key";
import { canManageKey, requireScope, type KeyPrincipal } from "../http/auth";
import { conflict, forbidden, notFound } from "../http/problem";
import { audit } from "../services/audit";
import { AgentIdSchema, ScopeSchema, queryLimit, timestamp } from "./schemas";
import { nameString } from "../core/text-rules";

const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the key, to recognise it" }),
    scope: ScopeSchema,
    agentIds: z.array(z.string()).nullable(),
    createdAt: timestamp,
    lastUsedAt: timestamp.nullable(),
    revokedAt: timestamp.nullable(),
  })
  .openapi("ApiKey");

const CreateKeyBody = z
  .object({
    name: nameString(120),
    scope: ScopeSchema,
    agentIds: z.array(AgentIdSchema).min(1).max(1000).optional().openapi({
      description: "Restrict the key to these agents; omit for all agents of the tenant",
    }),
  })
  .strict()
  .openapi("CreateKey");

const KeyIdParams = z.object({ id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" } }) });

type KeyRow = typeof apiKeys.$inferSelect;

const outsideReach = (admin: KeyPrincipal) =>
  forbidden(`This admin key is restricted to agents ${admin.agentIds!.join(", ")}; it manages only keys restricted to some of them.`);

/** The keys a restricted admin may see and manage: those whose every agent is one of its own. */
function withinReach(admin: KeyPrincipal): SQL | undefined {
  if (!admin.agentIds) return undefined;
  const own = sql.join(admin.agentIds.map((a) => sql`${a}`), sql`, `);
  return sql`(${apiKeys.agentIds} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${apiKeys.agentIds}) WHERE value NOT IN (${own})))`;
}
const present = (k: KeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scope: k.scope,
  agentIds: k.agentIds ?? null,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt ?? null,
  revokedAt: k.revokedAt ?? null,
});

export const keyRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/keys",
      tags: ["keys"],
      operationId: "createApiKey",
      summary: "Create an API key (admin)",
      description: "An admin key restricted to some agents can create only keys restricted to a subset of its agents.",
      security,
      request: jsonBody(CreateKeyBody),
      responses: {
        201: jsonResponse(KeySchema.extend({ apiKey: z.string() }).openapi("CreatedKey"), "Key created; `apiKey` is shown once"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const admin = requireScope(c.get("principal"), "admin");
      const body = c.req.valid("json");
      const agentIds = body.agentIds ? [...new Set(body.agentIds)] : null;
      if (!canManageKey(admin, agentIds)) throw outsideReach(admin);
      const minted = mintApiKey((n) => crypto.getRandomValues(new Uint8Array(n)));
      const row = await db(c.env)
        .insert(apiKeys)
        .values({
          id: minted.id,
          tenantId: admin.tenantId,
          name: body.name,
          prefix: minted.prefix,
          hash: await sha256Hex(minted.key),
          scope: body.scope,
          agentIds,
        })
        .returning()
        .get();
      await audit(c, { tenantId: admin.tenantId, action: "key.create", target: row.id, detail: { scope: row.scope } });
      return c.json({ ...present(row), apiKey: minted.key }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/keys",
      tags: ["keys"],
      operationId: "listApiKeys",
      summary: "List the tenant's API keys (admin); secrets are never returned",
      description: "An admin key restricted to some agents lists only the keys restricted to a subset of its agents.",
      security,
      request: {
        query: z.object({
          limit: queryLimit(200, 100),
          cursor: z.string().max(64).optional(),
        }),
      },
      responses: {
        200: jsonResponse(z.object({ items: z.array(KeySchema), nextCursor: z.string().nullable() }), "Keys"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const admin = requireScope(c.get("principal"), "admin");
      const { limit, cursor } = c.req.valid("query");
      const rows = await db(c.env)
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.tenantId, admin.tenantId), withinReach(admin), cursor ? gt(apiKeys.id, cursor) : undefined))
        .orderBy(asc(apiKeys.id))
        .limit(limit + 1)
        .all();
      const page = rows.slice(0, limit);
      return c.json({ items: page.map(present), nextCursor: rows.length > limit ? page[page.length - 1]!.id : null }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/keys/current",
      tags: ["keys"],
      operationId: "getCurrentApiKey",
      summary: "The key making this request: its tenant, scope and agents (any scope)",
      description: "Lets a client tell what a key may do (a read key changes nothing) before offering an action.",
      security,
      responses: { 200: jsonResponse(KeySchema.extend({ tenantId: z.string() }).openapi("CurrentApiKey"), "This key"), ...commonErrors },
    }),
    async (c) => {
      const self = requireScope(c.get("principal"), "read");
      const row = await db(c.env).select().from(apiKeys).where(eq(apiKeys.id, self.keyId)).get();
      if (!row) throw notFound("This key no longer exists.");
      return c.json({ ...present(row), tenantId: row.tenantId }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/keys/{id}",
      tags: ["keys"],
      operationId: "revokeApiKey",
      summary: "Revoke an API key",
      description: "Revokes a key of the tenant (admin scope). The key answers 401 from the next request on; the tenant's last unrestricted admin key cannot be revoked.",
      security,
      request: { params: KeyIdParams },
      responses: { 200: jsonResponse(KeySchema, "The revoked key"), ...commonErrors },
    }),
    async (c) => {
      const admin = requireScope(c.get("principal"), "admin");
      const { id } = c.req.valid("param");
      const d = db(c.env);
      const key = await d
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, admin.tenantId)))
        .get();
      if (!key) throw notFound(`API key '${id}' does not exist.`);
      if (!canManageKey(admin, key.agentIds ?? null)) throw outsideReach(admin);
      if (key.revokedAt) return c.json(present(key), 200);
      // Only an unrestricted admin key can do tenant-wide administration, so the last one must stay.
      if (key.scope === "admin" && !key.agentIds) {
        const otherAdmin = await d
          .select({ id: apiKeys.id })
          .from(apiKeys)
          .where(
            and(
              eq(apiKeys.tenantId, admin.tenantId),
              eq(apiKeys.scope, "admin"),
              isNull(apiKeys.agentIds),
              isNull(apiKeys.revokedAt),
              ne(apiKeys.id, id),
            ),
          )
          .get();
        if (!otherAdmin) throw conflict("This is the tenant's last active unrestricted admin key; create another one first.");
      }
      const revoked = await d
        .update(apiKeys)
        .set({ revokedAt: Date.now() })
        .where(eq(apiKeys.id, id))
        .returning()
        .get();
      await audit(c, { tenantId: admin.tenantId, action: "key.revoke", target: id });
      return c.json(present(revoked), 200);
    },
  );
