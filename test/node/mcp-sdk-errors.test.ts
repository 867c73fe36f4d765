import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * Issue 44: the official MCP TypeScript SDK validates a tool's structured content against the
 * tool's output schema. Tool errors used to carry the problem document there, so `callTool` threw
 * McpError -32602 and a host concluded the server was broken. Every domain error must come back as
 * an `isError` result the SDK accepts, readable as text, with the problem document embedded.
 */
const { url, adminKey } = inject("localWorker");
let apiKey = "";
let readKey = "";
const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "sdk-errors", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

async function rest(method: string, path: string, key: string, body?: unknown) {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

type Content = { type: string; text?: string; resource?: { mimeType?: string; text?: string } };

/** The SDK's result of a call that must fail as a tool error: text a person reads, and the problem. */
async function toolError(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r)).toBe(true);
  const content = r.content as Content[];
  const text = content.find((c) => c.type === "text")?.text ?? "";
  const embedded = content.find((c) => c.type === "resource" && c.resource?.mimeType === "application/problem+json");
  return { text, problem: embedded ? (JSON.parse(embedded.resource!.text!) as Record<string, unknown>) : null };
}

beforeAll(async () => {
  apiKey = (await rest("POST", "/v1/tenants", adminKey, { name: `mcp-sdk-errors-${Date.now().toString(36)}` })).body.apiKey;
  readKey = (await rest("POST", "/v1/keys", apiKey, { name: "reader", scope: "read" })).body.apiKey;
  expect((await rest("PUT", "/v1/agents/sdk-bot", apiKey, { displayName: "SDK bot" })).status).toBeLessThan(300);
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

describe("MCP tool errors through the official SDK client (@modelcontextprotocol/sdk)", () => {
  it("an unknown agent, a bad run id, a validation error and a refused scope each come back as a readable isError result", async () => {
    const client = await connect(apiKey);
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === "pull_experiences")?.outputSchema).toBeDefined();

    const unknown = await toolError(client, "pull_experiences", { agentId: "no-such-agent", query: "anything" });
    expect(unknown.text).toContain("Agent 'no-such-agent' does not exist.");
    expect(unknown.text).toMatch(/request [\w-]+/);
    expect(unknown.problem).toMatchObject({ status: 404, type: "https://praxis.dev/problems/not-found" });

    const noRun = await toolError(client, "practice_status", { agentId: "sdk-bot", runId: "run_missing" });
    expect(noRun.text).toContain("Practice run 'run_missing' does not exist.");
    expect(noRun.problem).toMatchObject({ status: 404 });

    // Arguments that fail the tool's input schema are refused by the MCP server itself, as text.
    const invalid = await toolError(client, "pull_experiences", { agentId: "sdk-bot", query: "" });
    expect(invalid.text).toContain("query must not be empty");
    // A well-formed call the service refuses carries the problem document.
    const badHandle = await toolError(client, "log_attempt", { episodeId: "not-a-handle", description: "x", success: true });
    expect(badHandle.problem).toMatchObject({ status: 400, errors: [expect.objectContaining({ path: "episodeId" })] });

    const noDataset = await toolError(client, "start_practice", { agentId: "sdk-bot", datasetId: "ds_missing", policy: { kind: "llm" } });
    expect(noDataset.problem).toMatchObject({ status: 422, errors: [expect.objectContaining({ path: "datasetId" })] });

    const reader = await connect(readKey);
    const refused = await toolError(reader, "add_experience", { agentId: "sdk-bot", text: "A lesson a read key may not add" });
    expect(refused.text).toContain("scope 'read'");
    expect(refused.problem).toMatchObject({ status: 403 });

    // A success still carries structured content that validates against the declared schema.
    const ok = await client.callTool({ name: "pull_experiences", arguments: { agentId: "sdk-bot", query: "anything" } });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ items: [] });
  });
});
