import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { audit } from "../services/audit";
import { createTenant as storeTenant, listTenants, tenantExists } from "../services/tenants";
import { activeTenantAdminKeys, keyById, rotateKeys } from "../services/keys";
import { notFound, unprocessable } from "../core/problem";
import { nameString } from "../core/text-rules";
import { PageQuery, timestamp } from "./schemas";

const CreateTenantBody = z
  .object({ name: nameString(120).openapi({ example: "Acme" }) })
  .strict()
  .openapi("CreateTenant");

const CreatedTenant = z
  .object({
    tenantId: z.string(),
    name: z.string(),
    apiKey: z.string().openapi({ description: "Admin-scoped key; shown once and never again" }),
    keyId: z.string(),
  })
  .openapi("CreatedTenant");

const TenantSchema = z
  .object({
    tenantId: z.string(),
    name: z.string(),
    createdAt: timestamp,
    activeKeys: z.number().int().openapi({ description: "Keys of the tenant not revoked" }),
    hasWebhookSecret: z.boolean(),
  })
  .openapi("Tenant");

export const RevokedKeySchema = z
  .object({
    id: z.string(),
    edgeCache: z.enum(["written", "pending"]).openapi({
      description: "`pending`: revoked in D1, the edge cache not written yet (the cron retries; DELETE /v1/keys/{id} retries now)",
    }),
  })
  .openapi("RevokedKey");

const RotateTenantKeyBody = z
  .object({
    keyId: z.string().min(1).max(64).optional().openapi({
      description: "The admin key to replace; omitted, every active unrestricted admin key of the tenant is replaced by one new key",
    }),
  })
  .strict()
  .openapi("RotateTenantKey");

const RotatedTenantKey = z
  .object({
    tenantId: z.string(),
    keyId: z.string(),
    apiKey: z.string().openapi({ description: "The new admin key; shown once and never again" }),
    revoked: z.array(RevokedKeySchema),
  })
  .openapi("RotatedTenantKey");

const TenantParams = z.object({ tenantId: z.string().min(1).max(64).openapi({ param: { name: "tenantId", in: "path" } }) });

export const tenantRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/tenants",
      tags: ["tenants"],
      operationId: "createTenant",
      summary: "Create a tenant",
      description: "Creates a tenant and its first unrestricted admin API key, which the response shows once. Needs the operator key (PRAXIS_ADMIN_KEY).",
      security,
      request: jsonBody(CreateTenantBody),
      responses: { 201: jsonResponse(CreatedTenant, "Tenant created"), ...commonErrors },
    }),
    async (c) => {
      const { name } = c.req.valid("json");
      const created = await storeTenant(c.env, name);
      await audit(c, { tenantId: created.tenantId, action: "tenant.create", target: created.tenantId, detail: { name } });
      return c.json(created, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/tenants",
      tags: ["tenants"],
      operationId: "listTenants",
      summary: "List tenants (operator)",
      description: "Every tenant, newest first, with cursor pagination. Needs the operator key (PRAXIS_ADMIN_KEY); no secret is returned.",
      security,
      request: { query: PageQuery },
      responses: { 200: jsonResponse(z.object({ items: z.array(TenantSchema), nextCursor: z.string().nullable() }), "A page"), ...commonErrors },
    }),
    async (c) => c.json(await listTenants(c.env, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/tenants/{tenantId}/keys/rotate",
      tags: ["tenants"],
      operationId: "rotateTenantAdminKey",
      summary: "Rotate a tenant's admin key (operator)",
      description:
        "Issues a new admin key and revokes the old one through the ordinary revocation (KV tombstone included); there is no grace period. Without `keyId`, every active unrestricted admin key of the tenant is replaced by one new unrestricted admin key: the way back in for a tenant whose key was lost or leaked. Needs the operator key.",
      security,
      request: { params: TenantParams, ...jsonBody(RotateTenantKeyBody) },
      responses: { 201: jsonResponse(RotatedTenantKey, "The new key; the old ones are revoked"), ...commonErrors },
    }),
    async (c) => {
      const { tenantId } = c.req.valid("param");
      const { keyId } = c.req.valid("json");
      if (!(await tenantExists(c.env, tenantId))) throw notFound(`Tenant '${tenantId}' does not exist.`);
      let old = await activeTenantAdminKeys(c.env, tenantId);
      let like: { name: string; scope: "admin"; agentIds: string[] | null; libraryIds: string[] | null } = {
        name: "admin key (rotated by the operator)",
        scope: "admin",
        agentIds: null,
        libraryIds: null,
      };
      if (keyId) {
        const key = await keyById(c.env, tenantId, keyId);
        if (!key || key.revokedAt != null) throw notFound(`Tenant '${tenantId}' has no active key '${keyId}'.`);
        if (key.scope !== "admin") throw unprocessable(`Key '${keyId}' has scope '${key.scope}'; the operator rotates admin keys (the tenant's admin rotates the others).`);
        old = [key];
        like = { name: key.name, scope: "admin", agentIds: key.agentIds ?? null, libraryIds: key.libraryIds ?? null };
      }
      const rotation = await rotateKeys(c.env, c.executionCtx, tenantId, like, old.map((k) => k.id));
      await audit(c, { tenantId, action: "key.rotate", target: rotation.created.id, detail: { revoked: rotation.revoked.map((r) => r.id) } });
      return c.json({ tenantId, keyId: rotation.created.id, apiKey: rotation.apiKey, revoked: rotation.revoked }, 201);
    },
  );
