import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AgentIdSchema as CoreAgentIdSchema } from "../core/api-key";
import { LibraryIdSchema as CoreLibraryIdSchema } from "../core/shared-lessons";
import { queryLimit, queryNumber } from "../core/query-params";
import { MinVersionSchema } from "../core/retrieval-types";
import { IDEMPOTENCY_KEY_RE } from "../http/input-guards";
import { jsonResponse } from "../http/openapi";

// Shapes the MCP door shares with the routes live in src/core; re-exported for the routes' imports.
export { queryLimit, queryNumber };
export { ListFilterSchema, type ListFilter } from "../core/memory-types";

export const AgentIdSchema = CoreAgentIdSchema.openapi({ param: { name: "agentId", in: "path" }, example: "support-bot" });

export const AgentParams = z.object({ agentId: AgentIdSchema });

export const LibraryIdSchema = CoreLibraryIdSchema.openapi({
  param: { name: "libraryId", in: "path" },
  example: "lib_3f2a9c0d1e4b5a6c7d8e",
});
export const LibraryParams = z.object({ libraryId: LibraryIdSchema });

export const PageQuery = z.object({
  limit: queryLimit(200, 50).openapi({ example: 50 }),
  cursor: z.string().max(500).optional().openapi({ description: "The `nextCursor` of the previous page" }),
});

export const ScopeSchema = z.enum(["admin", "write", "read"]);

export const timestamp = z.number().int().openapi({ description: "Unix epoch milliseconds" });

export const IdempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .regex(IDEMPOTENCY_KEY_RE, "1-255 visible ASCII characters")
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description: "Retries with the same key replay the first result; 1-255 visible ASCII characters",
    }),
});

/** Tells the client that this response is the stored result of an earlier request with the same key. */
export function markReplay(c: Context, replayed: boolean) {
  if (replayed) c.header("Idempotent-Replayed", "true");
}

/**
 * Read-your-writes for plain HTTP: a write that changes an agent's library answers the version it
 * made in this header (as well as `libraryVersion` in its body), and a read may name it in
 * `X-Praxis-Min-Version` instead of `minVersion` (the body or query field wins when both are given).
 */
export const LIBRARY_VERSION_HEADER = "X-Praxis-Library-Version";

export const MinVersionHeader = z.object({
  "x-praxis-min-version": queryNumber(MinVersionSchema)
    .optional()
    .openapi({
      param: { name: "x-praxis-min-version", in: "header" },
      description: "The same as `minVersion` (which wins when both are given): the `X-Praxis-Library-Version` a write answered",
    }),
});

/** A write's answer that names the library version it made in `X-Praxis-Library-Version` too. */
export const versionedResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  ...jsonResponse(schema, description),
  headers: z.object({
    [LIBRARY_VERSION_HEADER]: z
      .number()
      .int()
      .optional()
      .openapi({ description: "The library version the write made (`libraryVersion` in the body); absent when it made none" }),
  }),
});

/** Names the agent library version a write made, for clients that remember it for their next reads. */
export function markLibraryVersion<T extends { libraryVersion?: number | null }>(c: Context, value: T): T {
  if (typeof value.libraryVersion === "number") c.header(LIBRARY_VERSION_HEADER, String(value.libraryVersion));
  return value;
}

/** How a door names and describes one of the routes a shared route definition builds (historyRoutes, heldEntryRoutes). */
export type RouteDocs = { operationId: string; summary: string; description: string };
