import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AgentIdSchema as CoreAgentIdSchema } from "../core/api-key";
import { LibraryIdSchema as CoreLibraryIdSchema } from "../core/shared-lessons";
import { queryLimit } from "../core/query-params";
import { IDEMPOTENCY_KEY_RE } from "../http/input-guards";

// Shapes the MCP door shares with the routes live in src/core; re-exported for the routes' imports.
export { queryLimit, queryNumber } from "../core/query-params";
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

/** How a door names and describes one of the routes a shared route definition builds (historyRoutes, heldEntryRoutes). */
export type RouteDocs = { operationId: string; summary: string; description: string };
