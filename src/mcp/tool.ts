import type { Context } from "hono";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { AppEnv } from "../env";
import { ProblemError, problemBody } from "../http/problem";
import { toProblem } from "../llm";

/** The request a tool runs in: its principal is the API key `requireTenantKey` verified, as for REST. */
export type ToolContext = Context<AppEnv>;

/** A result as structured content, with a short text for clients that show only text. */
export const toolResult = (text: string, data: object): CallToolResult => ({
  content: [{ type: "text", text }],
  structuredContent: data as Record<string, unknown>,
});

/**
 * Runs a tool's body. A domain error (scope, unknown agent, validation, conflict) becomes a tool
 * error carrying the problem document REST would answer, so the model reads the reason; only
 * protocol faults stay JSON-RPC errors.
 */
export async function guarded(c: ToolContext, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    const p = toProblem(err) ?? new ProblemError(500, "internal", "An unexpected error occurred; quote the request id when reporting it.");
    if (p.status === 500) c.get("logger").error("mcp tool failed", { err: err instanceof Error ? err.stack ?? err.message : String(err) });
    return {
      isError: true,
      content: [{ type: "text", text: p.message }],
      structuredContent: problemBody(p, c.req.path, c.get("requestId")),
    };
  }
}
