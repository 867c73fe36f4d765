import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import {
  ExperienceCreateSchema,
  ExperiencePatchSchema,
  ExperienceSchema,
  LibraryBatchSchema,
} from "../core/memory-types";
import { DUPLICATE_SIMILARITY } from "../core/live-lesson";
import { agentFor } from "../services/agents";
import { callMemory } from "../services/agent-memory";
import { reviewedBeforeWrite } from "../services/admission";
import { AgentParams, IdempotencyHeader, ListFilterSchema, markReplay } from "./schemas";

export const Experience = ExperienceSchema.openapi("Experience");
export const VersionedExperience = ExperienceSchema.extend({ libraryVersion: z.number().int() }).openapi("VersionedExperience");
const AddedExperience = VersionedExperience.extend({
  similar: z
    .array(z.object({ id: z.string(), text: z.string(), sim: z.number() }))
    .describe("Active lessons so similar to this one that live learning would treat them as the same lesson: merge, archive or keep them deliberately"),
}).openapi("AddedExperience");
const IdParams = AgentParams.extend({ id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" } }) });
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
        "Adds one lesson to the agent's library as a new library version. The text passes the admission step first: the content filter, then (with an LLM configured) the safety review. A flagged experience is stored `quarantined`, one awaiting review `pending`; neither is retrieved or injected. `source`, `q` and provenance ids are set by the service (an admin key may seed `q`). Near-identical active lessons are listed under `similar`.",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(ExperienceCreateSchema.openapi("ExperienceCreate")) },
      responses: { 201: jsonResponse(AddedExperience, "Created"), ...commonErrors },
    }),
    async (c) => {
      const { key, memory } = await agentFor(c, c.req.valid("param").agentId, "write");
      const body = c.req.valid("json");
      const idem = c.req.valid("header")["idempotency-key"];
      const reviewed = await reviewedBeforeWrite(c.env, key.tenantId, c.req.valid("param").agentId, body, c.get("logger"));
      const { value: r, replayed } = await callMemory(() =>
        memory.createExperience(body, `key:${key.keyId}`, { keyId: key.keyId }, idem, { door: "api", admin: key.scope === "admin", reviewed }),
      );
      markReplay(c, replayed);
      const experience = r.experience;
      const near = await callMemory(() => memory.similarExperiences({ id: experience.id, text: experience.text, pattern: experience.pattern, keywords: experience.keywords }, 4));
      const similar = near.filter((e) => e.id !== experience.id && e.sim >= DUPLICATE_SIMILARITY).map(({ id, text, sim }) => ({ id, text, sim }));
      return c.json({ ...experience, libraryVersion: r.version, similar }, 201);
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
      responses: { 200: jsonResponse(z.object({ items: z.array(Experience), nextCursor: z.string().nullable() }), "A page"), ...commonErrors },
    }),
    async (c) => {
      const { memory } = await agentFor(c, c.req.valid("param").agentId, "read");
      const filter = c.req.valid("query");
      return c.json(await callMemory(() => memory.listExperiences(filter)), 200);
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
    async (c) => {
      const { agentId, id } = c.req.valid("param");
      const { memory } = await agentFor(c, agentId, "read");
      return c.json(await callMemory(() => memory.getExperience(id)), 200);
    },
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
      responses: { 200: jsonResponse(VersionedExperience, "Updated"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id } = c.req.valid("param");
      const { key, memory } = await agentFor(c, agentId, "write");
      const patch = c.req.valid("json");
      // Everything the review reads is sent as it will stand, `when` too: a reviewed text must not carry an unreviewed `when` in with it.
      const rewrites = patch.text !== undefined || patch.pattern !== undefined || patch.keywords !== undefined || patch.when !== undefined;
      const current = rewrites ? await callMemory(() => memory.getExperience(id)) : null;
      const reviewed =
        current !== null &&
        (await reviewedBeforeWrite(
          c.env,
          key.tenantId,
          agentId,
          {
            text: patch.text ?? current.text,
            pattern: patch.pattern !== undefined ? patch.pattern : current.pattern,
            keywords: patch.keywords ?? current.keywords,
            when: patch.when !== undefined ? patch.when : current.when,
          },
          c.get("logger"),
        ));
      const r = await callMemory(() => memory.patchExperience(id, patch, `key:${key.keyId}`, { door: "api", admin: key.scope === "admin", reviewed }));
      return c.json({ ...r.experience, libraryVersion: r.version }, 200);
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
      responses: { 200: jsonResponse(z.object({ deleted: z.string(), libraryVersion: z.number().int() }), "Deleted"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id } = c.req.valid("param");
      const { key, memory } = await agentFor(c, agentId, "write");
      const r = await callMemory(() => memory.deleteExperience(id, `key:${key.keyId}`, { door: "api", admin: key.scope === "admin" }));
      return c.json({ deleted: r.deleted, libraryVersion: r.version }, 200);
    },
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
        200: jsonResponse(
          z.object({ libraryVersion: z.number().int(), experiences: z.array(Experience), deleted: z.array(z.string()) }),
          "Applied",
        ),
        ...commonErrors,
      },
    }),
    async (c) => {
      const { key, memory } = await agentFor(c, c.req.valid("param").agentId, "write");
      const { reason, operations } = c.req.valid("json");
      const idem = c.req.valid("header")["idempotency-key"];
      const { value: r, replayed } = await callMemory(() => memory.applyLibrary(operations, reason, `key:${key.keyId}`, { keyId: key.keyId }, idem, { door: "api", admin: key.scope === "admin" }));
      markReplay(c, replayed);
      return c.json({ libraryVersion: r.version, experiences: r.experiences, deleted: r.deleted }, 200);
    },
  );
