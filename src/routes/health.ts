import { createRoute, z } from "@hono/zod-openapi";
import { router, jsonResponse } from "../http/openapi";

export const healthRoutes = router().openapi(
  createRoute({
    method: "get",
    path: "/healthz",
    tags: ["meta"],
    security: [],
    operationId: "getHealth",
    summary: "Liveness",
    description: "Answers 200 when the Worker runs and D1 is reachable, 503 otherwise. Needs no key; for load balancers and uptime checks.",
    responses: {
      200: jsonResponse(z.object({ status: z.literal("ok"), d1: z.literal("ok"), time: z.string() }), "Healthy"),
      503: jsonResponse(z.object({ status: z.literal("degraded"), d1: z.string(), time: z.string() }), "D1 unreachable"),
    },
  }),
  async (c) => {
    const time = new Date().toISOString();
    try {
      await c.env.DB.prepare("SELECT 1").first();
      return c.json({ status: "ok" as const, d1: "ok" as const, time }, 200);
    } catch (err) {
      return c.json({ status: "degraded" as const, d1: String(err), time }, 503);
    }
  },
);
