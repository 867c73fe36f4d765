import type { CallToolResult } from "@modelcontextprotocol/client";
import { PROBLEM_MIME } from "../src/mcp/tool";

/** The problem document a tool error embeds (src/mcp/tool.ts), as a client reads it: the `application/problem+json` resource. */
export function problemIn(r: CallToolResult): Record<string, unknown> {
  for (const c of r.content)
    if (c.type === "resource" && c.resource.mimeType === PROBLEM_MIME && "text" in c.resource) return JSON.parse(c.resource.text);
  throw new Error(`no problem document in ${JSON.stringify(r)}`);
}
