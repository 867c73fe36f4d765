import { describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newTenant } from "../helpers";

describe("problem+json errors", () => {
  it("unknown routes answer a 404 problem", async () => {
    expectProblem(await call("GET", "/nope"), 404, "not-found");
  });

  it("a known path with the wrong method answers 405 with Allow", async () => {
    const r = await call("POST", "/healthz");
    expectProblem(r, 405, "method-not-allowed");
    expect(r.headers.get("allow")).toContain("GET");
  });

  it("every response carries a request id, and a client-supplied one is echoed", async () => {
    const r = await call("GET", "/healthz", { headers: { "x-request-id": "client-req-42" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBe("client-req-42");
    expect((await call("GET", "/healthz")).headers.get("x-request-id")).toMatch(/.{8,}/);
  });

  it("rejects bodies over the size limit with 413 and stores nothing", async () => {
    const t = await newTenant();
    const big = "x".repeat(1_100_000);
    const r = await call("PUT", "/v1/agents/big-one", { key: t.apiKey, body: { displayName: big } });
    expectProblem(r, 413, "payload-too-large");
    expectProblem(await call("GET", "/v1/agents/big-one", { key: t.apiKey }), 404);
  });

  it("rejects non-JSON bodies with 415 and malformed JSON with 400", async () => {
    const t = await newTenant();
    const r = await call("PUT", "/v1/agents/a1", { key: t.apiKey, raw: "displayName=x", headers: { "content-type": "text/plain" } });
    expectProblem(r, 415, "unsupported-media-type");
    const bad = await call("PUT", "/v1/agents/a1", { key: t.apiKey, raw: "{not json", headers: { "content-type": "application/json" } });
    expectProblem(bad, 400, "malformed-json");
    expectProblem(await call("GET", "/v1/agents/a1", { key: t.apiKey }), 404);
  });

  it("validation errors name each bad field and change nothing", async () => {
    const t = await newTenant();
    const r = await call("POST", "/v1/keys", { key: t.apiKey, body: { name: "", scope: "root", agentIds: ["Bad Id"] } });
    expectProblem(r, 400, "validation-failed");
    const paths = r.body.errors.map((e: any) => e.path).sort();
    expect(paths).toEqual(["agentIds.0", "name", "scope"]);
    const keys = await call("GET", "/v1/keys", { key: t.apiKey });
    expect(keys.body.items).toHaveLength(1);
  });

  it("an invalid agent id in the path is a 400 naming the param", async () => {
    const t = await newTenant();
    const r = await call("PUT", "/v1/agents/Has%20Spaces", { key: t.apiKey, body: {} });
    expectProblem(r, 400, "validation-failed");
    expect(r.body.errors[0].path).toBe("param.agentId");
  });

  it("unknown body fields are rejected rather than silently dropped", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const r = await call("PATCH", `/v1/agents/${agentId}/config`, { key: t.apiKey, body: { alpah: 0.3 } });
    expectProblem(r, 400, "validation-failed");
  });
});
