import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { createApiKey, currentApiKey, listApiKeys, revokeApiKey, rotateApiKey } from "../use-cases/api-keys";
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
    libraryIds: z
      .array(z.string())
      .nullable()
      .openapi({ description: "The shared libraries the key may use; null for every library of the tenant" }),
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
      description:
        "Restrict the key to these shared libraries of the tenant; omit for all of them. Independent of agentIds: a key restricted only to libraries still uses every agent.",
    }),
  })
  .strict()
  .openapi("CreateKey");

const KeyIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
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
    async (c) => c.json(valueOf(await createApiKey(depsOf(c), c.get("principal"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/keys",
      tags: ["keys"],
      operationId: "listApiKeys",
      summary: "List the tenant's API keys (admin); secrets are never returned",
      description:
        "An admin key restricted to some agents (or libraries) lists only the keys restricted to a subset of its agents (or libraries).",
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
    async (c) => c.json(valueOf(await listApiKeys(depsOf(c), c.get("principal"), c.req.valid("query"))), 200),
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
    async (c) => c.json(valueOf(await currentApiKey(depsOf(c), c.get("principal"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/keys/{id}",
      tags: ["keys"],
      operationId: "revokeApiKey",
      summary: "Revoke an API key",
      description:
        "Revokes a key of the tenant (admin scope). The key answers 401 from the next request on; the tenant's last unrestricted admin key cannot be revoked.",
      security,
      request: { params: KeyIdParams },
      responses: { 200: jsonResponse(KeySchema, "The revoked key"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await revokeApiKey(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
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
        201: jsonResponse(
          KeySchema.extend({ apiKey: z.string(), revoked: RevokedKeySchema }).openapi("RotatedKey"),
          "The new key; `apiKey` is shown once",
        ),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await rotateApiKey(depsOf(c), c.get("principal"), c.req.valid("param"))), 201),
  );
