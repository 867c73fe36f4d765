import type { Context } from "hono";
import type { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { AppEnv } from "../env";
import { internalProblem, problemBody, toProblem, type ProblemError } from "../doors/problem";
import { AgentIdSchema } from "../core/api-key";

/** The request a tool runs in: its principal is the API key `requireTenantKey` verified, as for REST. */
export type ToolContext = Context<AppEnv>;

/** The agent a tool works on; every tool that names an agent takes it under this name. */
export const AgentIdArg = AgentIdSchema.describe(
  "The agent whose memory to use, e.g. `support-bot` (list_agents lists them; create_agent makes one)",
);

/**
 * A tool's arguments with a description on every one: fields the shared REST schema leaves
 * undescribed get theirs here, so a model sees what each argument means.
 */
export function describedArgs<S extends z.ZodRawShape>(
  schema: z.ZodObject<S>,
  descriptions: Partial<Record<keyof S, string>>,
): z.ZodObject<S> {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([k, v]) => {
      const d = descriptions[k as keyof S];
      return [k, d ? (v as z.ZodType).describe(d) : v];
    }),
  );
  return schema.extend(shape as S) as unknown as z.ZodObject<S>;
}

/** `1 memory`, `2 memories`. */
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A result as structured content, with a short text for clients that show only text. */
export const toolResult = (text: string, data: object): CallToolResult => ({
  content: [{ type: "text", text }],
  structuredContent: data as Record<string, unknown>,
});

/** Where a tool error's problem document is, among its content: an embedded resource of this type. */
export const PROBLEM_MIME = "application/problem+json";

/**
 * A failure as the tool error a model reads: the text says what went wrong (title, detail, request
 * id), and an embedded `application/problem+json` resource holds the problem document REST answers
 * for the same failure (a domain error by the kind table of src/doors/problem.ts), so both doors
 * give one reason in one shape. No structured content: SDK clients validate structured content
 * against the tool's output schema, which describes its success, and would throw on a problem.
 */
export function toolError(p: ProblemError, instance: string, requestId: string): CallToolResult {
  const problem = problemBody(p, instance, requestId);
  const fields = problem.errors?.length ? ` (${problem.errors.map((e) => `${e.path}: ${e.message}`).join("; ")})` : "";
  return {
    isError: true,
    content: [
      { type: "text", text: `${problem.title}: ${problem.detail}${fields} [status ${problem.status}, request ${requestId}]` },
      { type: "resource", resource: { uri: `praxis:problem/${requestId}`, mimeType: PROBLEM_MIME, text: JSON.stringify(problem) } },
    ],
  };
}

/**
 * Runs a tool's body. A domain error (scope, unknown agent, validation, conflict) becomes a tool
 * error, so the model reads the reason; only protocol faults stay JSON-RPC errors.
 */
export async function guarded(c: ToolContext, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    const p = toProblem(err) ?? internalProblem();
    if (p.status === 500)
      c.get("logger").error("mcp tool failed", { err: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    return toolError(p, c.req.path, c.get("requestId"));
  }
}
