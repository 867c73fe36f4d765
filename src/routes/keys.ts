import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { mintApiKey, sha256Hex } from "../core/api-key";
import { canManageKey, requireScope, type KeyPrincipal } from "../http/auth";
import { conflict, forbidden, notFound, ProblemError, unprocessable } from "../core/problem";
import { audit } from "../services/audit";
import { createKey, keyById, listKeys, revokeKey, rotateKeys, type KeyRow } from "../services/keys";
import { unknownLibraries } from "../services/libraries";
import { LibraryIdSchema } from "../core/shared-lessons";
import { RevokedKeySchema } from "./tenants";
import { AgentIdSchema, ScopeSchema, queryLimit, timestamp } from "./schemas";
import { nameString } from "../core/text-rules";

const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the key, to recognise it" }),
    scope: ScopeSchema,
    agentIds: z.array(z.string()).nullable(),
    libraryIds: z.array(z.string()).nullable().openapi({ description: "The shared libraries the key may use; null for every library of the tenant" }),
    createdAt: timestamp,
    lastUsedAt: timestamp.nullable(),
    revokedAt: timestamp.nullable(),
    edgeCache: z.enum(["written", "pending"]).optional().openapi({
      description: "In a revocation's answer: `written` once the edge cache that every location reads holds the revocation",
    }),
  })
  .openapi("ApiKey");

const CreateKeyBody = z
  .object({
    name: nameString(120),
    scope: ScopeSchema,
    agentIds: z.array(AgentIdSchema).min(1).max(1000).optional().openapi({
      description: "Restrict the key to these agents; omit for all agents of the tenant",
    }),
    libraryIds: z.array(LibraryIdSchema).min(1).max(1000).optional().openapi({
      description: "Restrict the key to these shared libraries of the tenant; omit for all of them. Independent of agentIds: a key restricted only to libraries still uses every agent.",
    }),
  })
  .strict()
  .openapi("CreateKey");

const KeyIdParams = z.object({ id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" } }) });

const outsideReach = (admin: KeyPrincipal) => {
  const reach = [admin.agentIds && `agents ${admin.agentIds.join(", ")}`, admin.libraryIds && `libraries ${admin.libraryIds.join(", ")}`].filter(Boolean).join(" and ");
  return forbidden(`This admin key is restricted to ${reach}; it manages only keys restricted to some of them.`);
};

const present = (k: KeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scope: k.scope,
  agentIds: k.agentIds ?? null,
  libraryIds: k.libraryIds ?? null,
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
      description:
        "An admin key restricted to some agents (or libraries) can create only keys restricted to a subset of its agents (or libraries). Every library in `libraryIds` must exist in the tenant (422 otherwise).",
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
      const libraryIds = body.libraryIds ? [...new Set(body.libraryIds)] : null;
      if (!canManageKey(admin, agentIds, libraryIds)) throw outsideReach(admin);
      const unknown = libraryIds ? await unknownLibraries(c.env, admin.tenantId, libraryIds) : [];
      if (unknown.length) {
        const fields = unknown.map((id) => ({ path: `libraryIds.${body.libraryIds!.indexOf(id)}`, message: "No such library" }));
        throw unprocessable(`The tenant has no library ${unknown.join(", ")}.`, fields);
      }
      const minted = mintApiKey((n) => crypto.getRandomValues(new Uint8Array(n)));
      const row = await createKey(c.env, c.executionCtx, {
        id: minted.id,
        tenantId: admin.tenantId,
        name: body.name,
        prefix: minted.prefix,
        hash: await sha256Hex(minted.key),
        scope: body.scope,
        agentIds,
        libraryIds,
      });
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
      description: "An admin key restricted to some agents (or libraries) lists only the keys restricted to a subset of its agents (or libraries).",
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
      const rows = await listKeys(c.env, admin, limit, cursor);
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
      summary: "The key making this request: its tenant, scope, agents and libraries (any scope)",
      description: "Lets a client tell what a key may do (a read key changes nothing) before offering an action.",
      security,
      responses: { 200: jsonResponse(KeySchema.extend({ tenantId: z.string() }).openapi("CurrentApiKey"), "This key"), ...commonErrors },
    }),
    async (c) => {
      const self = requireScope(c.get("principal"), "read");
      const row = await keyById(c.env, self.tenantId, self.keyId);
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
      const key = await keyById(c.env, admin.tenantId, id);
      if (!key) throw notFound(`API key '${id}' does not exist.`);
      if (!canManageKey(admin, key.agentIds ?? null, key.libraryIds ?? null)) throw outsideReach(admin);
      const result = await revokeKey(c.env, c.executionCtx, admin.tenantId, id);
      if (!result.ok && result.reason === "not-found") throw notFound(`API key '${id}' does not exist.`);
      // Only an unrestricted admin key can do tenant-wide administration, so the last one must stay.
      if (!result.ok) throw conflict("This is the tenant's last active unrestricted admin key; create another one first.");
      if (!key.revokedAt) await audit(c, { tenantId: admin.tenantId, action: "key.revoke", target: id });
      // Revoked in D1 either way; the answer says whether every isolate's cache has it yet.
      if (result.edgeCache === "pending") {
        throw new ProblemError(
          503,
          "service-unavailable",
          "The key is revoked, but the change has not reached the edge cache yet: other locations may accept the key until it does. The write is retried every few minutes until it lands; repeating the request retries it now.",
          { headers: { "retry-after": "2" }, revoked: true, edgeCache: "pending" },
        );
      }
      return c.json({ ...present(result.row), edgeCache: result.edgeCache }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/keys/{id}/rotate",
      tags: ["keys"],
      operationId: "rotateApiKey",
      summary: "Rotate an API key (admin)",
      description:
        "Issues a new key with the same name, scope, agents and libraries, and revokes the old one (KV tombstone included; no grace period, so deploy the new key first where you can, then rotate). An admin may rotate its own key: the answer carries the new one. The tenant's last unrestricted admin key can be rotated, since the new key replaces it.",
      security,
      request: { params: KeyIdParams },
      responses: {
        201: jsonResponse(KeySchema.extend({ apiKey: z.string(), revoked: RevokedKeySchema }).openapi("RotatedKey"), "The new key; `apiKey` is shown once"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const admin = requireScope(c.get("principal"), "admin");
      const { id } = c.req.valid("param");
      const key = await keyById(c.env, admin.tenantId, id);
      if (!key || key.revokedAt != null) throw notFound(`API key '${id}' does not exist or is revoked.`);
      if (!canManageKey(admin, key.agentIds ?? null, key.libraryIds ?? null)) throw outsideReach(admin);
      const rotation = await rotateKeys(c.env, c.executionCtx, admin.tenantId, key, [id]);
      const revoked = rotation.revoked[0];
      // Revoked by a concurrent request between the read above and the rotation: the new key stands alone.
      if (!revoked) throw conflict(`API key '${id}' was revoked while it was being rotated; the new key '${rotation.created.id}' is active, revoke it if it is not wanted.`);
      await audit(c, { tenantId: admin.tenantId, action: "key.rotate", target: rotation.created.id, detail: { revoked: id } });
      return c.json({ ...present(rotation.created), apiKey: rotation.apiKey, revoked }, 201);
    },
  );
