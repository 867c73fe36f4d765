import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { SELF } from "cloudflare:test";

/** The official MCP client, connected to the Worker under test with `key`. */
export async function mcpClient(key: string, name = "praxis-test"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://praxis.test/mcp"), {
    fetch: (url, init) => SELF.fetch(url, init),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A tool caller over `mcpClient`. */
export async function mcpTool(key: string): Promise<(name: string, args: Record<string, unknown>) => Promise<CallToolResult>> {
  const client = await mcpClient(key);
  return async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult;
}
