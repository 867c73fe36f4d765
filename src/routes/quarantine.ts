import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonResponse, security } from "../http/openapi";
import { MemoryKindSchema } from "../core/memory-types";
import { depsOf, valueOf } from "../doors/use-case";
import { deleteQuarantined, getQuarantined, listQuarantine, releaseQuarantined } from "../use-cases/quarantine";
import { AgentParams, markLibraryVersion, queryLimit, timestamp, versionedResponse } from "./schemas";

const base = "/v1/agents/{agentId}/quarantine";
const IdParams = AgentParams.extend({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

export const HeldItem = z
  .object({
    id: z.string(),
    kind: MemoryKindSchema,
    status: z
      .enum(["quarantined", "pending"])
      .describe(
        "`quarantined`: flagged by the filter or the review; `pending`: waiting for the LLM safety review, or (with `ADMISSION_MODE=review`, reason `awaiting admin approval (ADMISSION_MODE=review)`) for an admin to release it",
      ),
    reason: z.string().describe("Why it is held: the filter's findings or the reviewer's verdict"),
    wanted: z.string().describe("The status it takes when released"),
    door: z.string().describe("How it was written: api, mcp, import, rollback, live, practice, episode, review, admin"),
    author: z.string(),
    heldAt: timestamp,
    text: z.string().describe("The lesson text, or the case's task"),
    pattern: z.string().nullable(),
    keywords: z.array(z.string()),
    answer: z.string().nullable().describe("A case's answer"),
    traceSummary: z
      .string()
      .nullable()
      .describe("A case's trace of what was tried (episode attempts, tool results): screened with its task and answer"),
  })
  .openapi("QuarantinedItem");

/**
 * What the screening step holds back: never retrieved or injected, listed here for review, and
 * released or deleted only with an admin key (each decision audited).
 */
export const quarantineRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["quarantine"],
      operationId: "listQuarantine",
      summary: "List held entries",
      description:
        "Experiences and cases held by the screening step (quarantined or pending review), each with its reason, the door it came through and the status it will be released to.",
      security,
      request: {
        params: AgentParams,
        query: z.object({
          kind: MemoryKindSchema.optional(),
          status: z.enum(["quarantined", "pending"]).optional(),
          limit: queryLimit(200, 50),
          cursor: z.string().min(1).max(64).optional(),
        }),
      },
      responses: {
        200: jsonResponse(z.object({ items: z.array(HeldItem), nextCursor: z.string().nullable() }), "A page"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await listQuarantine(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{id}`,
      tags: ["quarantine"],
      operationId: "getQuarantined",
      summary: "Get a held entry",
      description: "One held entry with the reason it is held.",
      security,
      request: { params: IdParams },
      responses: { 200: jsonResponse(HeldItem, "The held entry"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getQuarantined(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/{id}/release`,
      tags: ["quarantine"],
      operationId: "releaseQuarantined",
      summary: "Release a held entry",
      description:
        "Releases a held entry to the status it was written with: how an admin approves what `ADMISSION_MODE=review` holds. Needs an admin key; audited.",
      security,
      request: { params: IdParams },
      responses: {
        200: versionedResponse(
          z
            .object({ id: z.string(), kind: MemoryKindSchema, status: z.string(), libraryVersion: z.number().int().nullable() })
            .openapi("QuarantineRelease"),
          "Released",
        ),
        ...commonErrors,
      },
    }),
    async (c) => c.json(markLibraryVersion(c, valueOf(await releaseQuarantined(depsOf(c), c.get("principal"), c.req.valid("param")))), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{id}`,
      tags: ["quarantine"],
      operationId: "deleteQuarantined",
      summary: "Delete a held entry",
      description: "Deletes a held entry. Needs an admin key; audited.",
      security,
      request: { params: IdParams },
      responses: {
        200: versionedResponse(
          z.object({ id: z.string(), kind: MemoryKindSchema, libraryVersion: z.number().int().nullable(), deleted: z.literal(true) }),
          "Deleted",
        ),
        ...commonErrors,
      },
    }),
    async (c) => c.json(markLibraryVersion(c, valueOf(await deleteQuarantined(depsOf(c), c.get("principal"), c.req.valid("param")))), 200),
  );
