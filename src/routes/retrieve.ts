import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { PromptBudgetSchema, RetrieveRequestSchema, RetrieveResponseSchema } from "../core/memory-types";
import { PhaseSchema } from "../core/scoring";
import { agentMemoryFor } from "../services/agents";
import { callMemory } from "../services/agent-memory";
import { AgentParams, queryNumber } from "./schemas";


const PromptQuery = z.object({
  query: z.string().trim().min(1).max(8000).optional(),
  budgetTokens: queryNumber(PromptBudgetSchema).default(1500),
  phase: PhaseSchema.optional(),
  episodeId: z.string().min(1).max(128).optional(),
  maxCases: queryNumber(z.number().int().min(0).max(20)).default(3),
});

export const retrieveRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/retrieve",
      tags: ["retrieval"],
      summary: "Utility-ranked retrieval: similarity filter (phase A), then z-scored blend of similarity and Q (phase B)",
      security,
      request: { params: AgentParams, ...jsonBody(RetrieveRequestSchema.openapi("RetrieveRequest")) },
      responses: { 200: jsonResponse(RetrieveResponseSchema.openapi("RetrieveResponse"), "Ranked items with explanations"), ...commonErrors },
    }),
    async (c) => {
      const { memory } = agentMemoryFor(c, c.req.valid("param").agentId, "read");
      const body = c.req.valid("json");
      return c.json(await callMemory(() => memory.retrieve(body)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/prompt",
      tags: ["retrieval"],
      summary: "The block to inject: `[G#]. …` experience lines (whole library if it fits), then relevant cases",
      security,
      request: { params: AgentParams, query: PromptQuery },
      responses: {
        200: jsonResponse(
          z
            .object({
              prompt: z.string(),
              mode: z.enum(["full-library", "ranked"]),
              experienceIds: z.array(z.string()),
              caseIds: z.array(z.string()),
              retrievalId: z.string(),
              estimatedTokens: z.number().int(),
            })
            .openapi("PromptBlock"),
          "The prompt block",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { memory } = agentMemoryFor(c, c.req.valid("param").agentId, "read");
      const q = c.req.valid("query");
      return c.json(await callMemory(() => memory.prompt(q)), 200);
    },
  );
