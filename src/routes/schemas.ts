import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AGENT_ID_RE } from "../core/api-key";
import { SourceSchema } from "../core/memory-types";

export const AgentIdSchema = z
  .string()
  .regex(AGENT_ID_RE, "Agent ids are 1-64 chars of a-z, 0-9, '_' and '-', starting with a letter or digit")
  .openapi({ param: { name: "agentId", in: "path" }, example: "support-bot" });

export const AgentParams = z.object({ agentId: AgentIdSchema });

/** Plain decimal notation only: `Number()` would also take `0x10`, `1e1`, `0b1` and blank strings. */
const DECIMAL_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A number carried in a query string or path: decimal text, then the given number schema. Anything
 * else stays a string, so the number schema rejects it as a 400 naming the field.
 */
export const queryNumber = <T extends z.ZodNumber>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && DECIMAL_RE.test(v) ? Number(v) : v), schema);

export const queryLimit = (max: number, fallback: number) => queryNumber(z.number().int().min(1).max(max)).default(fallback);

export const PageQuery = z.object({
  limit: queryLimit(200, 50).openapi({ example: 50 }),
  cursor: z.string().max(500).optional().openapi({ description: "The `nextCursor` of the previous page" }),
});

export const ListFilterSchema = z.object({
  source: SourceSchema.optional(),
  tag: z.string().max(64).optional(),
  status: z.enum(["active", "archived", "quarantined", "pending", "all"]).default("active"),
  minQ: queryNumber(z.number().min(-1).max(1)).optional(),
  contains: z.string().max(200).optional(),
  limit: queryLimit(200, 50),
  cursor: z.string().max(200).optional(),
});
export type ListFilter = z.output<typeof ListFilterSchema>;

export const ScopeSchema = z.enum(["admin", "write", "read"]);

export const timestamp = z.number().int().openapi({ description: "Unix epoch milliseconds" });

export const IdempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "idempotency-key", in: "header" }, description: "Retries with the same key replay the first result" }),
});

/** Tells the client that this response is the stored result of an earlier request with the same key. */
export function markReplay(c: Context, replayed: boolean) {
  if (replayed) c.header("Idempotent-Replayed", "true");
}
