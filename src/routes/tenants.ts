import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { apiKeys, tenants } from "../db/schema";
import { db } from "../db/client";
import { mintApiKey, sha256Hex } from "../core/api-key";
import { audit } from "../services/audit";
import { nameString } from "../core/text-rules";

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

const createTenant = createRoute({
  method: "post",
  path: "/v1/tenants",
  tags: ["tenants"],
  operationId: "createTenant",
  summary: "Create a tenant",
  description: "Creates a tenant and its first unrestricted admin API key, which the response shows once. Needs the operator key (PRAXIS_ADMIN_KEY).",
  security,
  request: jsonBody(CreateTenantBody),
  responses: { 201: jsonResponse(CreatedTenant, "Tenant created"), ...commonErrors },
});

export const tenantRoutes = router().openapi(createTenant, async (c) => {
  const { name } = c.req.valid("json");
  const tenantId = `t_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
  const minted = mintApiKey((n) => crypto.getRandomValues(new Uint8Array(n)));
  const d = db(c.env);
  await d.batch([
    d.insert(tenants).values({ id: tenantId, name }),
    d.insert(apiKeys).values({
      id: minted.id,
      tenantId,
      name: "initial admin key",
      prefix: minted.prefix,
      hash: await sha256Hex(minted.key),
      scope: "admin",
    }),
  ]);
  await audit(c, { tenantId, action: "tenant.create", target: tenantId, detail: { name } });
  return c.json({ tenantId, name, apiKey: minted.key, keyId: minted.id }, 201);
});
