import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonBody, jsonResponse, security } from "../http/openapi";
import { ExperienceContentSchema, ProvenanceSchema } from "../core/memory-types";
import { depsOf, valueOf } from "../doors/use-case";
import { exportLibrary, importLibrary, libraryDiff, libraryVersion, libraryVersions, rollbackLibrary } from "../use-cases/library-versions";
import {
  AgentParams,
  IdempotencyHeader,
  LibraryParams,
  markLibraryVersion,
  markReplay,
  queryLimit,
  queryNumber,
  timestamp,
  type RouteDocs,
  versionedResponse,
} from "./schemas";

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

/** The path parameter of a version, after the library's own. */
const withVersion = <P extends typeof AgentParams | typeof LibraryParams>(params: P) =>
  params.extend({ n: queryNumber(z.number().int().min(0)).openapi({ param: { name: "n", in: "path" } }) });

type HistoryRoute = "versions" | "version" | "diff" | "rollback" | "export" | "import";

/**
 * A library's history, as one of its doors serves it: an agent's own library
 * (`/v1/agents/{agentId}/library`) or a shared one (`/v1/libraries/{libraryId}`). The requests,
 * answers and use cases are the same; each door names and describes its routes itself.
 */
function historyRoutes(door: {
  base: string;
  params: typeof AgentParams | typeof LibraryParams;
  tag: string;
  docs: Record<HistoryRoute, RouteDocs>;
}) {
  const { base, params, docs } = door;
  const versionParams = withVersion(params);
  const about = (route: HistoryRoute) => ({ tags: [door.tag], ...docs[route], security });
  return router()
    .openapi(
      createRoute({
        method: "get",
        path: `${base}/versions`,
        ...about("versions"),
        request: { params, query: z.object({ limit: queryLimit(200, 50), cursor: queryNumber(z.number().int().min(1)).optional() }) },
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
        ...about("version"),
        request: { params: versionParams },
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
        ...about("diff"),
        request: { params: versionParams },
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
        ...about("rollback"),
        request: {
          params,
          headers: IdempotencyHeader,
          ...jsonBody(
            z
              .object({ version: z.number().int().min(0) })
              .strict()
              .openapi("Rollback"),
          ),
        },
        responses: { 200: versionedResponse(ApplyResult, "Rolled back"), ...commonErrors },
      }),
      async (c) => {
        const input = { ...c.req.valid("param"), ...c.req.valid("json"), idempotencyKey: c.req.valid("header")["idempotency-key"] };
        const { value, replayed } = valueOf(await rollbackLibrary(depsOf(c), c.get("principal"), input));
        markReplay(c, replayed);
        return c.json(markLibraryVersion(c, value), 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: `${base}/export`,
        ...about("export"),
        request: { params },
        responses: { 200: jsonResponse(LibraryExportSchema, "The export"), ...commonErrors },
      }),
      async (c) => c.json(valueOf(await exportLibrary(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: `${base}/import`,
        ...about("import"),
        request: {
          params,
          headers: IdempotencyHeader,
          ...jsonBody(
            z
              .object({ mode: z.enum(["merge", "replace"]), library: LibraryExportSchema })
              .strict()
              .openapi("LibraryImport"),
          ),
        },
        responses: { 200: versionedResponse(ApplyResult, "Imported"), ...commonErrors },
      }),
      async (c) => {
        const input = { ...c.req.valid("param"), ...c.req.valid("json"), idempotencyKey: c.req.valid("header")["idempotency-key"] };
        const { value, replayed } = valueOf(await importLibrary(depsOf(c), c.get("principal"), input));
        markReplay(c, replayed);
        return c.json(markLibraryVersion(c, value), 200);
      },
    );
}

/** An agent's own library: its versions, one version, a version's diff, rollback, export and import. */
export const libraryRoutes = historyRoutes({
  base: "/v1/agents/{agentId}/library",
  params: AgentParams,
  tag: "library",
  docs: {
    versions: {
      operationId: "listLibraryVersions",
      summary: "List library versions",
      description: "Library versions, newest first, each with author, reason and the number of changes.",
    },
    version: {
      operationId: "getLibraryVersion",
      summary: "Get a library version",
      description: "The whole library exactly as it was after version n.",
    },
    diff: {
      operationId: "getLibraryVersionDiff",
      summary: "Diff a library version",
      description: "What version n changed: each experience it touched, before and after.",
    },
    rollback: {
      operationId: "rollbackLibrary",
      summary: "Roll the library back",
      description:
        "Restores the library of an earlier version, recorded as a new version (so the rollback can itself be rolled back). Rolling back to the current library answers `unchanged: true`.",
    },
    export: {
      operationId: "exportLibrary",
      summary: "Export the library",
      description:
        "The library's active and archived experiences with their Q, in the shape `importLibrary` takes, for another agent or another deployment.",
    },
    import: {
      operationId: "importLibrary",
      summary: "Import a library",
      description:
        "Imports an export: `merge` adds the experiences the library does not hold, `replace` makes the library equal to the export. One new version. Every imported text passes screening (flagged ones are quarantined) and gets source `import`; Q is kept only for an admin key. Ids are kept only where they are this service's experience ids; others get fresh ones.",
    },
  },
});

/** A shared library's history: the same routes at `/v1/libraries/{libraryId}`. */
export const sharedLibraryHistoryRoutes = historyRoutes({
  base: "/v1/libraries/{libraryId}",
  params: LibraryParams,
  tag: "libraries",
  docs: {
    versions: {
      operationId: "listSharedLibraryVersions",
      summary: "List a shared library's versions",
      description: "The library's versions, newest first, each with author, reason and the number of changes.",
    },
    version: {
      operationId: "getSharedLibraryVersion",
      summary: "Get a shared library version",
      description: "The whole library exactly as it was after version n.",
    },
    diff: {
      operationId: "getSharedLibraryVersionDiff",
      summary: "Diff a shared library version",
      description: "What version n changed: each lesson it touched, before and after.",
    },
    rollback: {
      operationId: "rollbackSharedLibrary",
      summary: "Roll a shared library back",
      description:
        "As an agent's rollback: the earlier version's library, recorded as a new version. Subscribers see it at their next read.",
    },
    export: {
      operationId: "exportSharedLibrary",
      summary: "Export a shared library",
      description: "The library's lessons in the shape `importLibrary` and `importSharedLibrary` take.",
    },
    import: {
      operationId: "importSharedLibrary",
      summary: "Import into a shared library",
      description: "As an agent's import: `merge` or `replace`, one new version, every text through admission.",
    },
  },
});
