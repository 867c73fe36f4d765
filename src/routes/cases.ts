import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { CaseCreateSchema, CasePatchSchema, CaseSchema } from "../core/memory-types";
import { depsOf, valueOf } from "../doors/use-case";
import { addCase, deleteCase, getCase, listCases, updateCase } from "../use-cases/cases";
import { AgentParams, IdempotencyHeader, ListFilterSchema, markReplay } from "./schemas";

const Case = CaseSchema.openapi("Case");
const IdParams = AgentParams.extend({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const base = "/v1/agents/{agentId}/cases";

export const caseRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["cases"],
      operationId: "addCase",
      summary: "Add a case",
      description:
        "Stores a past episode (task, trace summary, answer, reward) as a retrievable case; idempotent per episodeId. Task, answer and trace summary pass the screening step: text failing the content filter is stored quarantined, and with an LLM configured the case waits `pending` for the safety review.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(CaseCreateSchema.openapi("CaseCreate")) },
      responses: { 201: jsonResponse(Case, "Created"), 200: jsonResponse(Case, "Already stored for this episode"), ...commonErrors },
    }),
    async (c) => {
      const input = {
        ...c.req.valid("param"),
        case: c.req.valid("json"),
        door: "api" as const,
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      };
      const { value, created, replayed } = valueOf(await addCase(depsOf(c), c.get("principal"), input));
      markReplay(c, replayed);
      return c.json(value, created ? 201 : 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["cases"],
      operationId: "listCases",
      summary: "List cases",
      description: "The agent's cases. Filters: tag, status, minQ, contains; cursor pagination.",
      security,
      request: { params: AgentParams, query: ListFilterSchema },
      responses: { 200: jsonResponse(z.object({ items: z.array(Case), nextCursor: z.string().nullable() }), "A page"), ...commonErrors },
    }),
    async (c) =>
      c.json(valueOf(await listCases(depsOf(c), c.get("principal"), { ...c.req.valid("param"), filter: c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{id}`,
      tags: ["cases"],
      operationId: "getCase",
      summary: "Get a case",
      description: "One case with its Q and counts.",
      security,
      request: { params: IdParams },
      responses: { 200: jsonResponse(Case, "The case"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getCase(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: `${base}/{id}`,
      tags: ["cases"],
      operationId: "updateCase",
      summary: "Change a case",
      description:
        "Changes a case's tags, label, status, answer or trace summary. A new answer or trace passes the screening step like a new case; a held case is released or deleted only through the agent's quarantine (admin, audited).",
      security,
      request: { params: IdParams, ...jsonBody(CasePatchSchema.openapi("CasePatch")) },
      responses: { 200: jsonResponse(Case, "Updated"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), patch: c.req.valid("json"), door: "api" as const };
      return c.json(valueOf(await updateCase(depsOf(c), c.get("principal"), input)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{id}`,
      tags: ["cases"],
      operationId: "deleteCase",
      summary: "Delete a case",
      description: "Deletes a case and its vector.",
      security,
      request: { params: IdParams },
      responses: { 200: jsonResponse(z.object({ deleted: z.string() }), "Deleted"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await deleteCase(depsOf(c), c.get("principal"), { ...c.req.valid("param"), door: "api" })), 200),
  );
