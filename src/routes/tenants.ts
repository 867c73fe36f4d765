import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { createTenant, listTenants } from "../use-cases/tenants";
import { rotateTenantAdminKey } from "../use-cases/api-keys";
import { nameString } from "../core/text-rules";
import { PageQuery, timestamp } from "./schemas";

const CreateTenantBody = z
  .object({
    name: nameString(120).openapi({ example: "Acme" }),
    allowDuplicateName: z.boolean().optional().openapi({
      description:
        "Create the tenant even when another tenant has this name; without it such a create answers 409 naming the existing tenant",
    }),
  })
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

const TenantParams = z.object({
  tenantId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "tenantId", in: "path" } }),
});

export const tenantRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/tenants",
      tags: ["tenants"],
      operationId: "createTenant",
      summary: "Create a tenant",
      description:
        "Creates a tenant and its first unrestricted admin API key, which the response shows once. A name another tenant already has answers 409 (`conflict`, the existing tenant's id in `tenantId`) unless `allowDuplicateName` is true. Needs the operator key (PRAXIS_ADMIN_KEY).",
      security,
      request: jsonBody(CreateTenantBody),
      responses: { 201: jsonResponse(CreatedTenant, "Tenant created"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await createTenant(depsOf(c), c.get("principal"), c.req.valid("json"))), 201),
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
      responses: {
        200: jsonResponse(z.object({ items: z.array(TenantSchema), nextCursor: z.string().nullable() }), "A page"),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await listTenants(depsOf(c), c.get("principal"), c.req.valid("query"))), 200),
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
    async (c) =>
      c.json(valueOf(await rotateTenantAdminKey(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("json") })), 201),
  );
