import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { createEventEndpoint, deleteEventEndpoint, listEventDeliveries, listEventEndpoints } from "../use-cases/events";
import { EVENT_TYPES } from "../core/events";
import { PageQuery, timestamp } from "./schemas";

const EventTypeSchema = z.enum(EVENT_TYPES);

const EndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(EventTypeSchema),
    description: z.string().nullable(),
    createdAt: timestamp,
  })
  .openapi("EventEndpoint");

const CreateEndpointBody = z
  .object({
    url: z.string().min(1).max(2048).openapi({ example: "https://example.com/praxis-events" }),
    events: z.array(EventTypeSchema).min(1).max(EVENT_TYPES.length),
    description: z.string().max(200).optional(),
  })
  .strict()
  .openapi("CreateEventEndpoint");

const DeliverySchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: EventTypeSchema,
    status: z.enum(["pending", "sending", "retrying", "delivered", "failed"]),
    attempts: z.number().int(),
    attemptLog: z.array(
      z.object({
        at: timestamp,
        status: z.number().int().optional().openapi({ description: "The receiver's HTTP status" }),
        error: z.string().optional(),
      }),
    ),
    createdAt: timestamp,
    deliveredAt: timestamp.nullable(),
  })
  .openapi("EventDelivery");

const EndpointParams = z.object({
  endpointId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "endpointId", in: "path" } }),
});

export const eventRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/events/endpoints",
      tags: ["events"],
      operationId: "createEventEndpoint",
      summary: "Subscribe a URL to events (unrestricted admin)",
      description:
        "Praxis POSTs each event of the chosen types to the URL, signed with the tenant's webhook secret like the session-end webhook (`X-Praxis-Signature: t=…,v1=…`), with `X-Praxis-Event-Id` (the same on a retry: deduplicate on it) and `X-Praxis-Event-Type`. A 2xx is a delivery; a 5xx, 408, 429 or a network failure is retried with backoff; other answers are final. The URL must be one Praxis may call (https and public in production); it is checked again at each delivery.",
      security,
      request: jsonBody(CreateEndpointBody),
      responses: { 201: jsonResponse(EndpointSchema, "The endpoint"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await createEventEndpoint(depsOf(c), c.get("principal"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/events/endpoints",
      tags: ["events"],
      operationId: "listEventEndpoints",
      summary: "List the tenant's event endpoints (unrestricted admin)",
      description: "Every URL the tenant subscribed to events, newest first, with the event types each receives (at most 10 per tenant).",
      security,
      responses: { 200: jsonResponse(z.object({ items: z.array(EndpointSchema) }), "Endpoints, newest first"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await listEventEndpoints(depsOf(c), c.get("principal"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/events/endpoints/{endpointId}",
      tags: ["events"],
      operationId: "deleteEventEndpoint",
      summary: "Remove an event endpoint (unrestricted admin)",
      description: "Deliveries not yet made to it end as `failed`; its delivery log stays.",
      security,
      request: { params: EndpointParams },
      responses: { 204: { description: "Removed" }, ...commonErrors },
    }),
    async (c) => {
      valueOf(await deleteEventEndpoint(depsOf(c), c.get("principal"), c.req.valid("param")));
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/events/deliveries",
      tags: ["events"],
      operationId: "listEventDeliveries",
      summary: "The delivery log (unrestricted admin)",
      description:
        "Each event sent to each endpoint, newest first, with its status and every attempt (time, the receiver's status, the error).",
      security,
      request: {
        query: PageQuery.extend({
          endpointId: z.string().min(1).max(64).optional(),
          eventId: z.string().min(1).max(200).optional(),
        }),
      },
      responses: {
        200: jsonResponse(z.object({ items: z.array(DeliverySchema), nextCursor: z.string().nullable() }), "A page"),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await listEventDeliveries(depsOf(c), c.get("principal"), c.req.valid("query"))), 200),
  );
