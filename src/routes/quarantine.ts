import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonResponse, security } from "../http/openapi";
import { MemoryKindSchema } from "../core/memory-types";
import { depsOf, valueOf } from "../doors/use-case";
import { deleteQuarantined, getQuarantined, listQuarantine, releaseQuarantined } from "../use-cases/quarantine";
import { AgentParams, LibraryParams, markLibraryVersion, queryLimit, timestamp, versionedResponse, type RouteDocs } from "./schemas";

/** A held entry's id in the path, after the library's own parameter. */
const withId = <P extends typeof AgentParams | typeof LibraryParams>(params: P) =>
  params.extend({
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

const Released = z.object({ id: z.string(), kind: MemoryKindSchema, status: z.string(), libraryVersion: z.number().int().nullable() });

type QuarantineRoute = "list" | "get" | "release" | "delete";

/**
 * What the screening step holds back, for an agent's library (`/v1/agents/{agentId}/quarantine`) or
 * a shared one (`/v1/libraries/{libraryId}/quarantine`): never retrieved or injected, listed here
 * for review, and released or deleted only with an admin key (each decision audited). The requests,
 * answers and use cases are the same; each door names and describes its routes itself (a door
 * without `get` docs has no route for one entry), and names its release answer's schema or not.
 */
function heldEntryRoutes(door: {
  base: string;
  params: typeof AgentParams | typeof LibraryParams;
  tag: string;
  released: typeof Released;
  docs: Record<Exclude<QuarantineRoute, "get">, RouteDocs> & { get?: RouteDocs };
}) {
  const { base, params, docs } = door;
  const idParams = withId(params);
  const about = (d: RouteDocs) => ({ tags: [door.tag], ...d, security });
  const routes = router()
    .openapi(
      createRoute({
        method: "get",
        path: base,
        ...about(docs.list),
        request: {
          params,
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
        method: "post",
        path: `${base}/{id}/release`,
        ...about(docs.release),
        request: { params: idParams },
        responses: { 200: versionedResponse(door.released, "Released"), ...commonErrors },
      }),
      async (c) =>
        c.json(markLibraryVersion(c, valueOf(await releaseQuarantined(depsOf(c), c.get("principal"), c.req.valid("param")))), 200),
    )
    .openapi(
      createRoute({
        method: "delete",
        path: `${base}/{id}`,
        ...about(docs.delete),
        request: { params: idParams },
        responses: {
          200: versionedResponse(
            z.object({ id: z.string(), kind: MemoryKindSchema, libraryVersion: z.number().int().nullable(), deleted: z.literal(true) }),
            "Deleted",
          ),
          ...commonErrors,
        },
      }),
      async (c) =>
        c.json(markLibraryVersion(c, valueOf(await deleteQuarantined(depsOf(c), c.get("principal"), c.req.valid("param")))), 200),
    );
  if (docs.get)
    routes.openapi(
      createRoute({
        method: "get",
        path: `${base}/{id}`,
        ...about(docs.get),
        request: { params: idParams },
        responses: { 200: jsonResponse(HeldItem, "The held entry"), ...commonErrors },
      }),
      async (c) => c.json(valueOf(await getQuarantined(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
    );
  return routes;
}

/** An agent's held entries. */
export const quarantineRoutes = heldEntryRoutes({
  base: "/v1/agents/{agentId}/quarantine",
  params: AgentParams,
  tag: "quarantine",
  released: Released.openapi("QuarantineRelease"),
  docs: {
    list: {
      operationId: "listQuarantine",
      summary: "List held entries",
      description:
        "Experiences and cases held by the screening step (quarantined or pending review), each with its reason, the door it came through and the status it will be released to.",
    },
    get: { operationId: "getQuarantined", summary: "Get a held entry", description: "One held entry with the reason it is held." },
    release: {
      operationId: "releaseQuarantined",
      summary: "Release a held entry",
      description:
        "Releases a held entry to the status it was written with: how an admin approves what `ADMISSION_MODE=review` holds. Needs an admin key; audited.",
    },
    delete: {
      operationId: "deleteQuarantined",
      summary: "Delete a held entry",
      description: "Deletes a held entry. Needs an admin key; audited.",
    },
  },
});

/** A shared library's held lessons: the same routes at `/v1/libraries/{libraryId}/quarantine`. */
export const sharedLibraryQuarantineRoutes = heldEntryRoutes({
  base: "/v1/libraries/{libraryId}/quarantine",
  params: LibraryParams,
  tag: "libraries",
  released: Released,
  docs: {
    list: {
      operationId: "listSharedLibraryQuarantine",
      summary: "List a shared library's held entries",
      description: "Lessons the library's admission step holds (quarantined or pending review): no subscriber is shown them.",
    },
    release: {
      operationId: "releaseSharedQuarantined",
      summary: "Release a shared library's held entry",
      description: "Releases a held lesson to the status it was written with, for every subscriber. Needs an admin key; audited.",
    },
    delete: {
      operationId: "deleteSharedQuarantined",
      summary: "Delete a shared library's held entry",
      description: "Deletes a held lesson. Needs an admin key; audited.",
    },
  },
});
