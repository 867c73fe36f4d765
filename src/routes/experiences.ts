import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import {
  ExperienceCreateSchema,
  ExperiencePatchSchema,
  ExperienceSchema,
  LibraryBatchSchema,
} from "../core/memory-types";
import { agentFor } from "../services/agents";
import { callMemory } from "../services/agent-memory";
import { AgentParams, IdempotencyHeader, ListFilterSchema, markReplay } from "./schemas";

const Experience = ExperienceSchema.openapi("Experience");
const VersionedExperience = ExperienceSchema.extend({ libraryVersion: z.number().int() }).openapi("VersionedExperience");
const IdParams = AgentParams.extend({ id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" } }) });
const base = "/v1/agents/{agentId}/experiences";

export const experienceRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["experiences"],
      summary: "Add an experience (a new library version); it passes admission first",
      description:
        "The text passes the admission step: the content filter, then (with an LLM configured) the safety review. A flagged experience is stored `quarantined`, one awaiting review `pending`; neither is retrieved or injected. `source`, `q` and provenance ids are set by the service (an admin key may seed `q`).",
      security,
      request: { params: AgentParams, headers: IdempotencyHeader, ...jsonBody(ExperienceCreateSchema.openapi("ExperienceCreate")) },
      responses: { 201: jsonResponse(VersionedExperience, "Created"), ...commonErrors },
    }),
    async (c) => {
      const { key, memory } = await agentFor(c, c.req.valid("param").agentId, "write");
      const body = c.req.valid("json");
      const idem = c.req.valid("header")["idempotency-key"];
      const { value: r, replayed } = await callMemory(() => memory.createExperience(body, `key:${key.keyId}`, { keyId: key.keyId }, idem, { door: "api", admin: key.scope === "admin" }));
      markReplay(c, replayed);
      return c.json({ ...r.experience, libraryVersion: r.version }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["experiences"],
      summary: "List experiences (filters: source, tag, status, minQ, contains; cursor pagination)",
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
      summary: "One experience with its Q history (last 50 updates)",
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
      summary: "Change an experience (text, tags, status `archived` to archive, pinned…) as a new version",
      security,
      request: { params: IdParams, ...jsonBody(ExperiencePatchSchema.openapi("ExperiencePatch")) },
      responses: { 200: jsonResponse(VersionedExperience, "Updated"), ...commonErrors },
    }),
    async (c) => {
      const { agentId, id } = c.req.valid("param");
      const { key, memory } = await agentFor(c, agentId, "write");
      const patch = c.req.valid("json");
      const r = await callMemory(() => memory.patchExperience(id, patch, `key:${key.keyId}`, { door: "api", admin: key.scope === "admin" }));
      return c.json({ ...r.experience, libraryVersion: r.version }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{id}`,
      tags: ["experiences"],
      summary: "Delete an experience (a new version; roll back to restore it)",
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
      summary: "Apply several create/update/archive/delete operations atomically as one version",
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
