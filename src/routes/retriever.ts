import { createRoute } from "@hono/zod-openapi";
import { router, commonErrors, jsonResponse, security } from "../http/openapi";
import { RetrieverStateSchema } from "../core/reranker";
import { depsOf, valueOf } from "../doors/use-case";
import { getRetriever, resetRetriever } from "../use-cases/retrieval";
import { AgentParams } from "./schemas";

const RetrieverState = RetrieverStateSchema.openapi("RetrieverState");

export const retrieverRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      operationId: "getRetriever",
      path: "/v1/agents/{agentId}/retriever",
      tags: ["retrieval"],
      summary: "What retrieval has learned from rewards: the re-ranker's weights and the size of usage memory",
      description:
        "Rewarded retrievals teach the retriever: the query's words become learned phrases of the memories that served it, its embedding moves their usage centroid, and a per-agent logistic re-ranker learns which signals predict a cited success. The re-ranker re-orders candidates only once `reranker.active`.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(RetrieverState, "The learned retriever"), ...commonErrors },
    }),
    async (c) => {
      return c.json(valueOf(await getRetriever(depsOf(c), c.get("principal"), c.req.valid("param"))), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "resetRetriever",
      path: "/v1/agents/{agentId}/retriever",
      tags: ["retrieval"],
      summary: "Forget what retrieval learned from rewards (re-ranker weights, learned phrases, usage centroids)",
      description:
        "Retrieval returns to the fixed fusion of the vector and lexical channels. Q-values and the library are untouched; a later rollback to an earlier library version restores that version's re-ranker weights.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(RetrieverState, "The cleared retriever"), ...commonErrors },
    }),
    async (c) => {
      return c.json(valueOf(await resetRetriever(depsOf(c), c.get("principal"), c.req.valid("param"))), 200);
    },
  );
