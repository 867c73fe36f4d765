import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security, unprocessableFields } from "../http/openapi";
import {
  CompareCreateSchema,
  ComparisonViewSchema,
  EvaluationCreateSchema,
  EvaluationStatusSchema,
  EvaluationViewSchema,
  IntervalSchema,
} from "../core/evaluation/types";
import { compareLibraries, getComparison, getEvaluation, listEvaluations, startEvaluation } from "../use-cases/evaluations";
import { depsOf, valueOf } from "../doors/use-case";
import { AgentParams, IdempotencyHeader, markReplay, PageQuery, timestamp } from "./schemas";

const base = "/v1/agents/{agentId}/evaluations";
const EvaluationParams = AgentParams.extend({
  evaluationId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "evaluationId", in: "path" } }),
});
const ComparisonParams = AgentParams.extend({
  comparisonId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "comparisonId", in: "path" } }),
});

const EvaluationListItem = z.object({
  evaluationId: z.string(),
  datasetId: z.string(),
  status: EvaluationStatusSchema,
  accuracy: z.number().nullable(),
  interval: IntervalSchema.nullable(),
  error: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const evaluationRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["evaluations"],
      operationId: "startEvaluation",
      summary: "Start an evaluation",
      description: "Evaluate a library on a dataset split: the policy answers every task `samples` times with the library injected.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(EvaluationCreateSchema.openapi("EvaluationCreate")) },
      responses: { 202: jsonResponse(z.object({ evaluationId: z.string() }), "Accepted; poll the evaluation"), ...commonErrors },
    }),
    async (c) => {
      const input = {
        agentId: c.req.valid("param").agentId,
        evaluation: c.req.valid("json"),
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      };
      const r = valueOf(await startEvaluation(depsOf(c), c.get("principal"), input));
      markReplay(c, r.replayed);
      return c.json({ evaluationId: r.evaluationId }, 202);
    },
    unprocessableFields("verifier"),
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/compare`,
      tags: ["evaluations"],
      operationId: "compareLibraries",
      summary: "Compare two libraries",
      description: "Compare two libraries: two evaluations with the same tasks, samples and seed, answered with an id to poll.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(CompareCreateSchema.openapi("ComparisonCreate")) },
      responses: {
        202: jsonResponse(
          z.object({ comparisonId: z.string(), evaluations: z.object({ a: z.string(), b: z.string() }) }),
          "Accepted; poll the comparison",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = {
        agentId: c.req.valid("param").agentId,
        comparison: c.req.valid("json"),
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      };
      const r = valueOf(await compareLibraries(depsOf(c), c.get("principal"), input));
      markReplay(c, r.replayed);
      return c.json({ comparisonId: r.comparisonId, evaluations: r.evaluations }, 202);
    },
    unprocessableFields("verifier"),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/compare/{comparisonId}`,
      tags: ["evaluations"],
      operationId: "getComparison",
      summary: "Get a comparison",
      description:
        "A comparison: both accuracies and, once both evaluations completed, the paired difference (b − a) with its 95% interval.",
      security,
      request: { params: ComparisonParams },
      responses: { 200: jsonResponse(ComparisonViewSchema.openapi("Comparison"), "The comparison"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getComparison(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["evaluations"],
      operationId: "listEvaluations",
      summary: "List evaluations",
      description: "Evaluations of the agent, newest first, with accuracy once completed.",
      security,
      request: { params: AgentParams, query: PageQuery },
      responses: {
        200: jsonResponse(z.object({ items: z.array(EvaluationListItem), nextCursor: z.string().nullable() }), "A page of evaluations"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await listEvaluations(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{evaluationId}`,
      tags: ["evaluations"],
      operationId: "getEvaluation",
      summary: "Get an evaluation",
      description: "An evaluation: status, accuracy with its 95% interval, per-task mean rewards, tokens and cost.",
      security,
      request: { params: EvaluationParams },
      responses: { 200: jsonResponse(EvaluationViewSchema.openapi("Evaluation"), "The evaluation"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getEvaluation(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  );
