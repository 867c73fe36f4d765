import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { call, newAgent, newTenant } from "../helpers";
import { mcpClient } from "../mcp-client";
import { problemIn } from "../mcp-problem";

/** A client that checks every structured result against the tool's outputSchema (listing the tools arms that). */
async function tools(key: string) {
  const client = await mcpClient(key);
  await client.listTools();
  return async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("MCP shared-library tools", () => {
  it("list_libraries shows the libraries the key may use; share_experience copies a lesson there with its provenance, and a subscriber pulls it", async () => {
    const t = await newTenant();
    const lib = async (name: string) => (await call("POST", "/v1/libraries", { key: t.apiKey, body: { name } })).body.libraryId as string;
    const [payments, refunds] = [await lib("payments"), await lib("refunds")];
    const tool = await tools(t.apiKey);

    const listed = await tool("list_libraries", {});
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    expect((listed.structuredContent as any).items.map((l: any) => l.libraryId).sort()).toEqual([payments, refunds].sort());
    expect((listed.content[0] as { text: string }).text).toContain(`${payments} (payments)`);
    const narrow = await call("POST", "/v1/keys", {
      key: t.apiKey,
      body: { name: "payments only", scope: "read", libraryIds: [payments] },
    });
    expect(
      ((await (await tools(narrow.body.apiKey))("list_libraries", {})).structuredContent as any).items.map((l: any) => l.libraryId),
    ).toEqual([payments]);

    const [author, subscriber] = [await newAgent(t.apiKey), await newAgent(t.apiKey)];
    const own = await call("POST", `/v1/agents/${author}/experiences`, {
      key: t.apiKey,
      body: { text: "Confirm the payee's name before a wire transfer" },
    });
    const shared = await tool("share_experience", { agentId: author, experienceId: own.body.id, libraryId: payments });
    expect(shared.isError, JSON.stringify(shared.content)).toBeFalsy();
    const copy = shared.structuredContent as any;
    expect(copy).toMatchObject({
      libraryId: payments,
      text: "Confirm the payee's name before a wire transfer",
      status: "active",
      provenance: { agentId: author, experienceId: own.body.id },
    });
    expect((await call("GET", `/v1/libraries/${payments}/experiences/${copy.id}`, { key: t.apiKey })).status).toBe(200);

    expect((await call("PUT", `/v1/agents/${subscriber}/subscriptions/${payments}`, { key: t.apiKey, body: {} })).status).toBe(200);
    const pulled = await tool("pull_experiences", { agentId: subscriber, query: "wire transfer payee name" });
    expect((pulled.structuredContent as any).items).toMatchObject([{ id: copy.id, libraryId: payments }]);
    expect((pulled.content[0] as { text: string }).text).toContain(`shared library ${payments}`);
  });

  it("share_experience refuses another tenant's library (not found), a malformed library id and a read key, and shares nothing", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const theirs = (await call("POST", "/v1/libraries", { key: other.apiKey, body: { name: "theirs" } })).body.libraryId as string;
    const agentId = await newAgent(t.apiKey);
    const own = await call("POST", `/v1/agents/${agentId}/experiences`, { key: t.apiKey, body: { text: "Round amounts only at the end" } });
    const tool = await tools(t.apiKey);

    const crossed = await tool("share_experience", { agentId, experienceId: own.body.id, libraryId: theirs });
    expect(crossed.isError).toBe(true);
    expect(problemIn(crossed)).toMatchObject({ status: 404, type: "https://praxis.dev/problems/not-found" });
    const malformed = await tool("share_experience", { agentId, experienceId: own.body.id, libraryId: "payments" });
    expect(malformed.isError).toBe(true);

    const mine = (await call("POST", "/v1/libraries", { key: t.apiKey, body: { name: "mine" } })).body.libraryId as string;
    const reader = await call("POST", "/v1/keys", { key: t.apiKey, body: { name: "reader", scope: "read" } });
    const refused = await (await tools(reader.body.apiKey))("share_experience", { agentId, experienceId: own.body.id, libraryId: mine });
    expect(problemIn(refused)).toMatchObject({ status: 403, type: "https://praxis.dev/problems/forbidden" });
    for (const [key, libraryId] of [
      [t.apiKey, mine],
      [other.apiKey, theirs],
    ] as const) {
      expect((await call("GET", `/v1/libraries/${libraryId}/experiences`, { key })).body.items).toEqual([]);
    }
  });
});
