import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { AnalyticsSchema, AnalyticsTopSchema, RewardRequestSchema, RewardResultSchema } from "../core/memory-types";
import { depsOf, valueOf } from "../doors/use-case";
import { reportReward, utilityAnalytics } from "../use-cases/rewards";
import { AgentParams, IdempotencyHeader, markReplay, queryNumber } from "./schemas";

export const rewardRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/rewards",
      tags: ["utility"],
      operationId: "reportReward",
      summary: "Report an outcome",
      description: "Report an outcome: Q ← Q + α(r − Q) for the retrieved (or cited) memories.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(RewardRequestSchema.openapi("RewardRequest")) },
      responses: { 200: jsonResponse(RewardResultSchema.openapi("RewardResult"), "Updated Q-values"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), reward: c.req.valid("json"), idempotencyKey: c.req.valid("header")["idempotency-key"] };
      const result = valueOf(await reportReward(depsOf(c), c.get("principal"), input));
      markReplay(c, result.replayed);
      return c.json(result, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/analytics",
      tags: ["utility"],
      operationId: "getAnalytics",
      summary: "Q-value analytics",
      description: "Q distribution, top/bottom memories, convergence, retrieval/citation counts, success rates.",
      security,
      request: {
        params: AgentParams,
        query: z.object({
          top: queryNumber(AnalyticsTopSchema).default(10),
          window: queryNumber(z.number().int().min(1).max(10_000)).default(100),
          buckets: queryNumber(z.number().int().min(2).max(50)).default(10),
        }),
      },
      responses: { 200: jsonResponse(AnalyticsSchema.openapi("Analytics"), "Analytics"), ...commonErrors },
    }),
    async (c) => {
      return c.json(
        valueOf(await utilityAnalytics(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })).analytics,
        200,
      );
    },
  );
