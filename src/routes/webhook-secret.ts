import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonResponse, security } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { deleteWebhookSecret, rotateWebhookSecret } from "../use-cases/tenants";

const CreatedSecret = z
  .object({
    secret: z.string().openapi({
      description: "The tenant's webhook signing secret; shown once and never again",
      example: "whsec_3q2-7wX0…",
    }),
    createdAt: z.number().int().openapi({ description: "Unix epoch milliseconds" }),
    rotated: z.boolean().openapi({ description: "True when this replaced an existing secret (which stops working at once)" }),
  })
  .openapi("WebhookSecret");

export const webhookSecretRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/webhook-secret",
      tags: ["webhooks"],
      operationId: "rotateWebhookSecret",
      summary: "Create or rotate the tenant's webhook secret (unrestricted admin); the secret is shown once",
      description:
        "Session-end webhooks (`POST /v1/hooks/session-end`) are signed with this secret. Creating a new one replaces " +
        "the old one immediately: deliveries signed with the old secret are refused from the next request on.",
      security,
      responses: { 201: jsonResponse(CreatedSecret, "The new secret"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await rotateWebhookSecret(depsOf(c), c.get("principal"))), 201),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/webhook-secret",
      tags: ["webhooks"],
      operationId: "deleteWebhookSecret",
      summary: "Remove the webhook secret",
      description: "Remove the tenant's webhook secret (unrestricted admin); session-end webhooks are refused afterwards.",
      security,
      responses: {
        200: jsonResponse(z.object({ deleted: z.literal(true) }), "Removed"),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await deleteWebhookSecret(depsOf(c), c.get("principal"))), 200),
  );
