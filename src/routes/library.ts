import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { ExperienceContentSchema, ProvenanceSchema } from "../core/memory-types";
import { depsOf, valueOf } from "../http/use-case";
import { exportLibrary, importLibrary, libraryDiff, libraryVersion, libraryVersions, rollbackLibrary } from "../services/library";
import { AgentParams, IdempotencyHeader, markReplay, queryLimit, queryNumber, timestamp } from "./schemas";

const base = "/v1/agents/{agentId}/library";
const VersionParams = AgentParams.extend({ n: queryNumber(z.number().int().min(0)).openapi({ param: { name: "n", in: "path" } }) });

export const VersionMeta = z
  .object({ version: z.number().int(), reason: z.string(), author: z.string(), createdAt: timestamp, changes: z.number().int() })
  .openapi("LibraryVersion");
export const Snapshot = ExperienceContentSchema.extend({
  id: z.string(),
  seq: z.number().int(),
  q: z.number(),
  provenance: ProvenanceSchema.nullable(),
  createdAt: timestamp,
}).openapi("ExperienceSnapshot");

export const LibraryExportSchema = z
  .object({
    format: z.literal("praxis-library/v1"),
    libraryVersion: z.number().int(),
    exportedAt: timestamp,
    experiences: z
      .array(
        ExperienceContentSchema.extend({
          id: z.string().min(1).max(64),
          q: z.number().min(-1).max(1),
          provenance: ProvenanceSchema.nullable(),
        }),
      )
      .max(50_000),
  })
  .openapi("LibraryExport");

export const ApplyResult = z.object({
  libraryVersion: z.number().int(),
  unchanged: z.boolean(),
  changed: z.number().int(),
  deleted: z.number().int(),
});

export const libraryRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/versions`,
      tags: ["library"],
      operationId: "listLibraryVersions",
      summary: "List library versions",
      description: "Library versions, newest first, each with author, reason and the number of changes.",
      security,
      request: {
        params: AgentParams,
        query: z.object({ limit: queryLimit(200, 50), cursor: queryNumber(z.number().int().min(1)).optional() }),
      },
      responses: {
        200: jsonResponse(z.object({ items: z.array(VersionMeta), nextCursor: z.string().nullable() }), "Versions"),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await libraryVersions(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/versions/{n}`,
      tags: ["library"],
      operationId: "getLibraryVersion",
      summary: "Get a library version",
      description: "The whole library exactly as it was after version n.",
      security,
      request: { params: VersionParams },
      responses: {
        200: jsonResponse(
          VersionMeta.extend({ experiences: z.array(Snapshot.extend({ label: z.string().nullable() })) }),
          "The library at n",
        ),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await libraryVersion(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/versions/{n}/diff`,
      tags: ["library"],
      operationId: "getLibraryVersionDiff",
      summary: "Diff a library version",
      description: "What version n changed: each experience it touched, before and after.",
      security,
      request: { params: VersionParams },
      responses: {
        200: jsonResponse(
          VersionMeta.extend({
            diff: z.array(
              z.object({
                id: z.string(),
                op: z.enum(["create", "update", "archive", "delete", "restore"]),
                before: Snapshot.nullable(),
                after: Snapshot.nullable(),
              }),
            ),
          }),
          "The diff",
        ),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await libraryDiff(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/rollback`,
      tags: ["library"],
      operationId: "rollbackLibrary",
      summary: "Roll the library back",
      description:
        "Restores the library of an earlier version, recorded as a new version (so the rollback can itself be rolled back). Rolling back to the current library answers `unchanged: true`.",
      security,
      request: {
        params: AgentParams,
        headers: IdempotencyHeader,
        ...jsonBody(
          z
            .object({ version: z.number().int().min(0) })
            .strict()
            .openapi("Rollback"),
        ),
      },
      responses: { 200: jsonResponse(ApplyResult, "Rolled back"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), ...c.req.valid("json"), idempotencyKey: c.req.valid("header")["idempotency-key"] };
      const { value, replayed } = valueOf(await rollbackLibrary(depsOf(c), c.get("principal"), input));
      markReplay(c, replayed);
      return c.json(value, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/export`,
      tags: ["library"],
      operationId: "exportLibrary",
      summary: "Export the library",
      description:
        "The library's active and archived experiences with their Q, in the shape `importLibrary` takes, for another agent or another deployment.",
      security,
      request: { params: AgentParams },
      responses: { 200: jsonResponse(LibraryExportSchema, "The export"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await exportLibrary(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/import`,
      tags: ["library"],
      operationId: "importLibrary",
      summary: "Import a library",
      description:
        "Imports an export: `merge` adds the experiences the library does not hold, `replace` makes the library equal to the export. One new version. Every imported text passes screening (flagged ones are quarantined) and gets source `import`; Q is kept only for an admin key. Ids are kept only where they are this service's experience ids; others get fresh ones.",
      security,
      request: {
        params: AgentParams,
        headers: IdempotencyHeader,
        ...jsonBody(
          z
            .object({ mode: z.enum(["merge", "replace"]), library: LibraryExportSchema })
            .strict()
            .openapi("LibraryImport"),
        ),
      },
      responses: { 200: jsonResponse(ApplyResult, "Imported"), ...commonErrors },
    }),
    async (c) => {
      const input = { ...c.req.valid("param"), ...c.req.valid("json"), idempotencyKey: c.req.valid("header")["idempotency-key"] };
      const { value, replayed } = valueOf(await importLibrary(depsOf(c), c.get("principal"), input));
      markReplay(c, replayed);
      return c.json(value, 200);
    },
  );
