import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { MemoryFilterSchema, PromptBudgetSchema } from "../core/memory-types";
import {
  ConsistencySchema,
  MinVersionSchema,
  PromptBlockSchema,
  RetrieveRequestSchema,
  RetrieveResponseSchema,
} from "../core/retrieval-types";
import { queryJson } from "../core/query-params";
import { PhaseSchema } from "../core/scoring";
import { depsOf, valueOf } from "../doors/use-case";
import { buildPrompt, retrieve } from "../use-cases/retrieval";
import { AgentParams, MinVersionHeader, queryNumber } from "./schemas";
import { idString } from "../core/text-rules";

const PromptQuery = z.object({
  query: z.string().trim().min(1).max(8000).optional(),
  budgetTokens: queryNumber(PromptBudgetSchema).default(1500),
  phase: PhaseSchema.optional(),
  episodeId: idString(128).optional(),
  maxCases: queryNumber(z.number().int().min(0).max(20)).default(3),
  filter: queryJson(MemoryFilterSchema)
    .optional()
    .describe(
      'A retrieval filter as JSON (the `filter` of POST …/retrieve), e.g. `{"tags":["billing"],"metadata":{"customer":"acme"}}`: only the lessons and cases it matches enter the block',
    ),
  minVersion: queryNumber(MinVersionSchema).optional(),
  consistency: ConsistencySchema.optional(),
});

/** The request's own `minVersion`, else the one its `X-Praxis-Min-Version` header names. */
function withMinVersion<T extends { minVersion?: number | undefined }>(
  request: T,
  header: { "x-praxis-min-version"?: number | undefined },
): T {
  const fromHeader = header["x-praxis-min-version"];
  return request.minVersion === undefined && fromHeader !== undefined ? { ...request, minVersion: fromHeader } : request;
}

export const retrieveRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/retrieve",
      tags: ["retrieval"],
      operationId: "retrieve",
      summary: "Retrieve lessons and cases",
      description: "Utility-ranked retrieval: similarity filter (phase A), then z-scored blend of similarity and Q (phase B).",
      security,
      request: { params: AgentParams, headers: MinVersionHeader, ...jsonBody(RetrieveRequestSchema.openapi("RetrieveRequest")) },
      responses: {
        200: jsonResponse(RetrieveResponseSchema.openapi("RetrieveResponse"), "Ranked items with explanations"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), request: withMinVersion(c.req.valid("json"), c.req.valid("header")) };
      return c.json(valueOf(await retrieve(depsOf(c), c.get("principal"), input)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/prompt",
      tags: ["retrieval"],
      operationId: "getPrompt",
      summary: "Get the prompt block",
      description: "The block to inject: `[G#]. …` experience lines (whole library if it fits), then relevant cases.",
      security,
      request: { params: AgentParams, headers: MinVersionHeader, query: PromptQuery },
      responses: {
        200: jsonResponse(PromptBlockSchema.openapi("PromptBlock"), "The prompt block"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), request: withMinVersion(c.req.valid("query"), c.req.valid("header")) };
      return c.json(valueOf(await buildPrompt(depsOf(c), c.get("principal"), input)), 200);
    },
  );
