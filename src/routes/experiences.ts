import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import {
  ExperienceCreateSchema,
  ExperiencePatchSchema,
  ExperienceSchema,
  LibraryBatchSchema,
  SimilarLessonsSchema,
} from "../core/memory-types";
import { depsOf, valueOf } from "../doors/use-case";
import { addLesson, applyLessonBatch, deleteLesson, getLesson, listLessons, updateLesson } from "../use-cases/lessons";
import { AgentParams, IdempotencyHeader, ListFilterSchema, markLibraryVersion, markReplay, versionedResponse } from "./schemas";

export const Experience = ExperienceSchema.openapi("Experience");
export const VersionedExperience = ExperienceSchema.extend({ libraryVersion: z.number().int() }).openapi("VersionedExperience");
export const AddedExperience = VersionedExperience.extend({
  similar: SimilarLessonsSchema,
}).openapi("AddedExperience");
const IdParams = AgentParams.extend({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const base = "/v1/agents/{agentId}/experiences";

export const experienceRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["experiences"],
      operationId: "addExperience",
      summary: "Add an experience",
      description:
        "Adds one lesson to the agent's library as a new library version. The text passes the screening step first: the content filter, then (with an LLM configured) the safety review. A flagged experience is stored `quarantined`, one awaiting review `pending`; neither is retrieved or injected. `source`, `q` and provenance ids are set by the service (an admin key may seed `q`). Near-identical active lessons are listed under `similar`.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(ExperienceCreateSchema.openapi("ExperienceCreate")) },
      responses: { 201: versionedResponse(AddedExperience, "Created"), ...commonErrors },
    }),
    async (c) => {
      const input = {
        ...c.req.valid("param"),
        lesson: c.req.valid("json"),
        door: "api" as const,
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      };
      const { value, replayed } = valueOf(await addLesson(depsOf(c), c.get("principal"), input));
      markReplay(c, replayed);
      return c.json(markLibraryVersion(c, value), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["experiences"],
      operationId: "listExperiences",
      summary: "List experiences",
      description: "The agent's experiences with label, Q and counts. Filters: source, tag, status, minQ, contains; cursor pagination.",
      security,
      request: { params: AgentParams, query: ListFilterSchema },
      responses: {
        200: jsonResponse(z.object({ items: z.array(Experience), nextCursor: z.string().nullable() }), "A page"),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = { agentId: c.req.valid("param").agentId, filter: c.req.valid("query") };
      return c.json(valueOf(await listLessons(depsOf(c), c.get("principal"), input)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{id}`,
      tags: ["experiences"],
      operationId: "getExperience",
      summary: "Get an experience",
      description: "One experience with its Q history (its last 50 updates).",
      security,
      request: { params: IdParams },
      responses: { 200: jsonResponse(Experience, "The experience"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getLesson(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: `${base}/{id}`,
      tags: ["experiences"],
      operationId: "updateExperience",
      summary: "Change an experience",
      description: "Changes text, tags, pinned or status (`archived` archives it) as a new library version.",
      security,
      request: { params: IdParams, ...jsonBody(ExperiencePatchSchema.openapi("ExperiencePatch")) },
      responses: { 200: versionedResponse(VersionedExperience, "Updated"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), patch: c.req.valid("json"), door: "api" as const };
      return c.json(markLibraryVersion(c, valueOf(await updateLesson(depsOf(c), c.get("principal"), input))), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{id}`,
      tags: ["experiences"],
      operationId: "deleteExperience",
      summary: "Delete an experience",
      description: "Deletes an experience as a new library version; rolling back to an earlier version restores it.",
      security,
      request: { params: IdParams },
      responses: {
        200: versionedResponse(z.object({ deleted: z.string(), libraryVersion: z.number().int() }), "Deleted"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(
        markLibraryVersion(c, valueOf(await deleteLesson(depsOf(c), c.get("principal"), { ...c.req.valid("param"), door: "api" }))),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/library/batch",
      tags: ["library"],
      operationId: "applyLibraryBatch",
      summary: "Change several experiences at once",
      description: "Applies create, update, archive and delete operations atomically as one library version: all of them or none.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(LibraryBatchSchema.openapi("LibraryBatch")) },
      responses: {
        200: versionedResponse(
          z.object({ libraryVersion: z.number().int(), experiences: z.array(Experience), deleted: z.array(z.string()) }),
          "Applied",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      const input = {
        ...c.req.valid("param"),
        ...c.req.valid("json"),
        door: "api" as const,
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      };
      const { value, replayed } = valueOf(await applyLessonBatch(depsOf(c), c.get("principal"), input));
      markReplay(c, replayed);
      return c.json(markLibraryVersion(c, value), 200);
    },
  );
