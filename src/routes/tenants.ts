import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { audit } from "../services/audit";
import { createTenant as storeTenant } from "../services/tenants";
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
  const created = await storeTenant(c.env, name);
  await audit(c, { tenantId: created.tenantId, action: "tenant.create", target: created.tenantId, detail: { name } });
  return c.json(created, 201);
});
