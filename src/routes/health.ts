import { createRoute, z } from "@hono/zod-openapi";
import { router, jsonResponse } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { checkHealth } from "../use-cases/health";

const ServiceIndex = z
  .object({
    name: z.literal("Praxis"),
    description: z.string(),
    links: z.object({ docs: z.string(), openapi: z.string(), dashboard: z.string(), health: z.string(), mcp: z.string() }),
  })
  .openapi("ServiceIndex");

export const healthRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags: ["meta"],
      security: [],
      operationId: "getServiceIndex",
      summary: "Where to start",
      description:
        "What this service is and where its documentation, OpenAPI document, dashboard, health check and MCP endpoint are. A browser (Accept: text/html) is redirected to the docs.",
      responses: {
        200: jsonResponse(ServiceIndex, "Links to the service's entry points"),
        302: { description: "To /docs, for a browser" },
      },
    }),
    (c) => {
      if (c.req.header("accept")?.includes("text/html")) return c.redirect("/docs", 302);
      return c.json(
        {
          name: "Praxis" as const,
          description: "Experiential learning for LLM agents: lessons and past cases before acting, outcomes after.",
          links: { docs: "/docs", openapi: "/openapi.json", dashboard: "/dashboard", health: "/healthz", mcp: "/mcp" },
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      tags: ["meta"],
      security: [],
      operationId: "getHealth",
      summary: "Liveness",
      description:
        "Answers 200 when the Worker runs and D1 is reachable, 503 otherwise. Needs no key; for load balancers and uptime checks.",
      responses: {
        200: jsonResponse(z.object({ status: z.literal("ok"), d1: z.literal("ok"), time: z.string() }), "Healthy"),
        503: jsonResponse(z.object({ status: z.literal("degraded"), d1: z.string(), time: z.string() }), "D1 unreachable"),
      },
    }),
    async (c) => {
      const health = valueOf(await checkHealth(depsOf(c)));
      return health.status === "ok" ? c.json(health, 200) : c.json(health, 503);
    },
  );
