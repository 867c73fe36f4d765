import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { depsOf, valueOf } from "../doors/use-case";
import { ExperienceCreateSchema, ExperiencePatchSchema } from "../core/memory-types";
import {
  LibraryIdSchema as CoreLibraryIdSchema,
  PinVersionSchema,
  SharedLibrarySchema,
  SubscriptionWeightSchema,
} from "../core/shared-lessons";
import {
  createLibrary,
  deleteLibrary,
  getLibrary,
  librarySubscribers,
  listLibraries,
  listSubscriptions,
  shareLesson,
  subscribe,
  unsubscribe,
  updateLibrary,
} from "../use-cases/libraries";
import { addLesson, deleteLesson, getLesson, listLessons, updateLesson } from "../use-cases/lessons";
import {
  AgentParams,
  IdempotencyHeader,
  LibraryIdSchema,
  LibraryParams,
  ListFilterSchema,
  markReplay,
  PageQuery,
  timestamp,
} from "./schemas";
import { AddedExperience, Experience, VersionedExperience } from "./experiences";

const LessonParams = LibraryParams.extend({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const SubscriptionParams = AgentParams.extend({ libraryId: LibraryIdSchema });

const Library = SharedLibrarySchema.openapi("SharedLibrary");
const LibraryCreate = z
  .object({ name: z.string().trim().min(1).max(100), description: z.string().trim().max(1000).nullable().optional() })
  .strict()
  .openapi("SharedLibraryCreate");
const LibraryPatch = LibraryCreate.partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Give at least one field to change" })
  .openapi("SharedLibraryPatch");
const Subscription = z
  .object({
    agentId: z.string().optional(),
    libraryId: z.string(),
    weight: z.number().describe("How much the library's lessons count in the agent's ranking beside its own (1: as much)"),
    pinVersion: z.number().int().nullable().describe("The library version the agent draws on; null: the latest"),
    createdAt: timestamp,
  })
  .openapi("Subscription");
const SharedLessonStats = z.object({
  id: z.string(),
  q: z.number().describe("This agent's own Q for the lesson"),
  retrieved: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
  lastUsedAt: z.number().int().nullable(),
});

const base = "/v1/libraries";
const lessons = `${base}/{libraryId}/experiences`;

/**
 * Shared libraries: a tenant's lessons several agents draw on, each learning for itself
 * which of them work. A library's lessons have the agent library's whole life: admission, versions,
 * diff, rollback, export and import, quarantine. Its history routes are the agent library's, at
 * the library's path (`sharedLibraryHistoryRoutes` in ./library.ts).
 */
export const libraryRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["libraries"],
      operationId: "createSharedLibrary",
      summary: "Create a shared library",
      description:
        "A library of lessons that agents of this tenant may subscribe to. Its lessons are written like an agent's (through the admission step) and versioned like an agent's.",
      security,
      request: jsonBody(LibraryCreate),
      responses: { 201: jsonResponse(Library, "Created"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await createLibrary(depsOf(c), c.get("principal"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["libraries"],
      operationId: "listSharedLibraries",
      summary: "List shared libraries",
      description: "The tenant's shared libraries (those the key may use), by id.",
      security,
      request: { query: PageQuery },
      responses: { 200: jsonResponse(z.object({ items: z.array(Library), nextCursor: z.string().nullable() }), "A page"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await listLibraries(depsOf(c), c.get("principal"), c.req.valid("query"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{libraryId}`,
      tags: ["libraries"],
      operationId: "getSharedLibrary",
      summary: "Get a shared library",
      description: "The library with its subscriber count and current version.",
      security,
      request: { params: LibraryParams },
      responses: { 200: jsonResponse(Library, "The library"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getLibrary(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: `${base}/{libraryId}`,
      tags: ["libraries"],
      operationId: "updateSharedLibrary",
      summary: "Rename or describe a shared library",
      description: "Changes the library's name or description; its lessons and subscribers stay.",
      security,
      request: { params: LibraryParams, ...jsonBody(LibraryPatch) },
      responses: { 200: jsonResponse(Library, "Updated"), ...commonErrors },
    }),
    async (c) =>
      c.json(valueOf(await updateLibrary(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("json") })), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{libraryId}`,
      tags: ["libraries"],
      operationId: "deleteSharedLibrary",
      summary: "Delete a shared library",
      description:
        "Deletes the library and its lessons (admin). Every subscriber stops drawing on it at its next read, and its subscription ends there.",
      security,
      request: { params: LibraryParams },
      responses: { 200: jsonResponse(z.object({ deleted: z.string() }), "Deleted"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await deleteLibrary(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{libraryId}/subscribers`,
      tags: ["libraries"],
      operationId: "listLibrarySubscribers",
      summary: "Subscribers and how the lessons fare with each",
      description:
        "A page of the agents subscribed to the library (for a key limited to some agents, those of them), each with its own Q and counters for the lessons it was shown, and per lesson the aggregate over the page: how many of these agents used it, their mean Q, uses, successes and failures.",
      security,
      request: { params: LibraryParams, query: PageQuery },
      responses: {
        200: jsonResponse(
          z.object({
            items: z.array(
              z.object({
                agentId: z.string(),
                weight: z.number(),
                pinVersion: z.number().int().nullable(),
                subscribedAt: timestamp,
                lessons: z.array(SharedLessonStats),
              }),
            ),
            lessons: z.array(
              z.object({
                id: z.string(),
                agents: z.number().int(),
                meanQ: z.number(),
                uses: z.number().int(),
                successes: z.number().int(),
                failures: z.number().int(),
              }),
            ),
            nextCursor: z.string().nullable(),
          }),
          "A page",
        ),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await librarySubscribers(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: lessons,
      tags: ["libraries"],
      operationId: "addSharedExperience",
      summary: "Add a lesson to a shared library",
      description: "As adding an agent's experience: the admission step first (filter, then the safety review), one new library version.",
      security,
      request: { params: LibraryParams, headers: IdempotencyHeader, ...jsonBody(ExperienceCreateSchema.openapi("ExperienceCreate")) },
      responses: { 201: jsonResponse(AddedExperience, "Created"), ...commonErrors },
    }),
    async (c) => {
      const { value, replayed } = valueOf(
        await addLesson(depsOf(c), c.get("principal"), {
          ...c.req.valid("param"),
          door: "api",
          lesson: c.req.valid("json"),
          idempotencyKey: c.req.valid("header")["idempotency-key"],
        }),
      );
      markReplay(c, replayed);
      return c.json(value, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: lessons,
      tags: ["libraries"],
      operationId: "listSharedExperiences",
      summary: "List a shared library's lessons",
      description:
        "The library's lessons with label, Q and counts, filtered and paged like an agent's experiences. Q here is the library's own; each subscriber's is under `subscribers`.",
      security,
      request: { params: LibraryParams, query: ListFilterSchema },
      responses: {
        200: jsonResponse(z.object({ items: z.array(Experience), nextCursor: z.string().nullable() }), "A page"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await listLessons(depsOf(c), c.get("principal"), { ...c.req.valid("param"), filter: c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${lessons}/{id}`,
      tags: ["libraries"],
      operationId: "getSharedExperience",
      summary: "Get a shared library's lesson",
      description: "One lesson of the library with its Q history.",
      security,
      request: { params: LessonParams },
      responses: { 200: jsonResponse(Experience, "The lesson"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getLesson(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: `${lessons}/{id}`,
      tags: ["libraries"],
      operationId: "updateSharedExperience",
      summary: "Change a shared library's lesson",
      description: "As changing an agent's experience; `status: archived` takes it away from every subscriber.",
      security,
      request: { params: LessonParams, ...jsonBody(ExperiencePatchSchema.openapi("ExperiencePatch")) },
      responses: { 200: jsonResponse(VersionedExperience, "Updated"), ...commonErrors },
    }),
    async (c) =>
      c.json(
        valueOf(await updateLesson(depsOf(c), c.get("principal"), { ...c.req.valid("param"), door: "api", patch: c.req.valid("json") })),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${lessons}/{id}`,
      tags: ["libraries"],
      operationId: "deleteSharedExperience",
      summary: "Delete a shared library's lesson",
      description:
        "Deletes the lesson as a new library version; every subscriber stops drawing on it at its next read, and a rollback restores it.",
      security,
      request: { params: LessonParams },
      responses: { 200: jsonResponse(z.object({ deleted: z.string(), libraryVersion: z.number().int() }), "Deleted"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await deleteLesson(depsOf(c), c.get("principal"), { ...c.req.valid("param"), door: "api" })), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/agents/{agentId}/subscriptions/{libraryId}",
      tags: ["libraries"],
      operationId: "subscribeAgent",
      summary: "Subscribe an agent to a shared library",
      description:
        "From now on the agent's retrieve, /prompt and MCP reads draw on the library's active lessons beside its own (items carry `libraryId`), ranked on the agent's own Q for each shared lesson: it starts at the agent's default Q, and only this agent's rewards move it. Again with another `weight` or `pinVersion` changes them (what is left out returns to its default: weight 1, the latest version). With `pinVersion` the agent draws on the library as it stood after that version (a frozen copy made at the first pin of it), except that a lesson the library quarantined, deleted or archived since leaves its reads as it leaves everyone's; a version the library does not have is a 422, and so is a new pin when 16 versions are already pinned by subscriptions, or a new subscription of an agent that has 20 (the most an agent may have).",
      security,
      request: {
        params: SubscriptionParams,
        ...jsonBody(
          z
            .object({
              weight: SubscriptionWeightSchema.optional(),
              pinVersion: PinVersionSchema.nullable()
                .optional()
                .describe("Draw on the library as of this version; null or absent: its latest"),
            })
            .strict()
            .openapi("SubscriptionPut"),
        ),
      },
      responses: { 200: jsonResponse(Subscription, "Subscribed"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await subscribe(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("json") })), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/agents/{agentId}/subscriptions/{libraryId}",
      tags: ["libraries"],
      operationId: "unsubscribeAgent",
      summary: "End a subscription",
      description: "The agent stops drawing on the library, and forgets its own Q for the library's lessons.",
      security,
      request: { params: SubscriptionParams },
      responses: {
        200: jsonResponse(z.object({ agentId: z.string(), libraryId: z.string(), unsubscribed: z.literal(true) }), "Unsubscribed"),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await unsubscribe(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/agents/{agentId}/subscriptions",
      tags: ["libraries"],
      operationId: "listAgentSubscriptions",
      summary: "List an agent's subscriptions",
      description: "The shared libraries the agent draws on, with their weights.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(z.object({ items: z.array(Subscription) }), "Subscriptions"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await listSubscriptions(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/experiences/{id}/share",
      tags: ["libraries"],
      operationId: "shareExperience",
      summary: "Share an agent's lesson into a shared library",
      description:
        "Copies the lesson into the library through the library's admission step (a flagged text is held there, not shared). Its provenance names the agent, the lesson and the episode or run it came from.",
      security,
      request: {
        params: AgentParams.extend({
          id: z
            .string()
            .min(1)
            .max(64)
            .openapi({ param: { name: "id", in: "path" } }),
        }),
        headers: IdempotencyHeader,
        ...jsonBody(z.object({ libraryId: CoreLibraryIdSchema }).strict().openapi("ShareExperience")),
      },
      responses: { 201: jsonResponse(AddedExperience.extend({ libraryId: z.string() }), "Shared"), ...commonErrors },
    }),
    async (c) => {
      const { value, replayed } = valueOf(
        await shareLesson(depsOf(c), c.get("principal"), {
          ...c.req.valid("param"),
          ...c.req.valid("json"),
          idempotencyKey: c.req.valid("header")["idempotency-key"],
        }),
      );
      markReplay(c, replayed);
      return c.json(value, 201);
    },
  );
