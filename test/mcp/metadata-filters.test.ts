import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { call, newAgent, newTenant } from "../helpers";

/** The official MCP client against the Worker (the tools' outputs are checked against their output schemas). */
async function connect(key: string) {
  const transport = new StreamableHTTPClientTransport(new URL("http://praxis.test/mcp"), {
    fetch: (url, init) => SELF.fetch(url, init),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "praxis-test", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

const tool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const LESSONS = [
  "Retry HTTP 429 responses with exponential backoff and jitter",
  "Retry HTTP 429 responses with exponential backoff",
  "Retry HTTP 429 responses after waiting",
  "Retry HTTP responses slowly when a service is busy",
];
const QUERY = "retry HTTP 429 responses with exponential backoff and jitter";

describe("MCP metadata and filters", () => {
  it("add_experience stores metadata; pull_experiences and get_prompt filter before ranking and never show it", async () => {
    const { apiKey } = await newTenant();
    const agentId = await newAgent(apiKey);
    const client = await connect(apiKey);
    const ids: string[] = [];
    for (const [i, text] of LESSONS.entries()) {
      const r = await tool(client, "add_experience", {
        agentId,
        text,
        metadata: { customer: i === LESSONS.length - 1 ? "acme" : "globex", marker: "okapi-canary" },
      });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect((r.structuredContent as any).metadata.marker).toBe("okapi-canary");
      ids.push((r.structuredContent as any).id);
    }
    const low = ids[ids.length - 1]!;

    const top = await tool(client, "pull_experiences", { agentId, query: QUERY, limit: 1 });
    expect((top.structuredContent as any).items.map((i: any) => i.id)).not.toContain(low);
    const pulled = await tool(client, "pull_experiences", { agentId, query: QUERY, limit: 1, filter: { metadata: { customer: "acme" } } });
    expect(pulled.isError, JSON.stringify(pulled.content)).toBeFalsy();
    expect((pulled.structuredContent as any).items.map((i: any) => i.id)).toEqual([low]);
    expect((pulled.structuredContent as any).items[0].metadata).toEqual({ customer: "acme", marker: "okapi-canary" });
    expect(JSON.stringify(pulled.content)).not.toContain("okapi-canary");

    const block = await tool(client, "get_prompt", {
      agentId,
      query: QUERY,
      budgetTokens: 1500,
      filter: { metadata: { customer: "acme" } },
    });
    expect(block.isError, JSON.stringify(block.content)).toBeFalsy();
    expect((block.structuredContent as any).experienceIds).toEqual([low]);
    expect((block.structuredContent as any).prompt).not.toContain("okapi-canary");

    const bad = await tool(client, "pull_experiences", { agentId, query: QUERY, filter: { metadata: { customer: { nested: true } } } });
    expect(bad.isError).toBe(true);
    const badAdd = await tool(client, "add_experience", { agentId, text: "Check the quota first", metadata: { "bad key": 1 } });
    expect(badAdd.isError).toBe(true);
    const list = await call("GET", `/v1/agents/${agentId}/experiences`, { key: apiKey });
    expect(list.body.items).toHaveLength(LESSONS.length);
  });
});
