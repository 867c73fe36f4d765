import { beforeAll, describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newTenant } from "../helpers";

describe("malformed input is a 4xx problem", () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  let agent: string;

  beforeAll(async () => {
    t = await newTenant();
    agent = await newAgent(t.apiKey);
  });

  it("a malformed percent-encoding in the agent id is a 400, on every agent route", async () => {
    for (const [method, path] of [
      ["GET", "/v1/agents/%E0%A4%A"],
      ["DELETE", "/v1/agents/%E0%A4%A"],
      ["GET", "/v1/agents/%E0%A4%A/config"],
      ["GET", "/v1/agents/%E0%A4%A/experiences"],
      ["POST", "/v1/agents/%E0%A4%A/retrieve"],
      ["GET", "/v1/agents/%/episodes"],
    ] as const) {
      const r = await call(method, path, { key: t.apiKey, body: method === "POST" ? { query: "x" } : undefined });
      expectProblem(r, 400, "validation-failed");
      expect(r.body.errors[0].path).toBe("param.agentId");
    }
  });

  it("numbers in query strings and paths are decimal only", async () => {
    for (const [path, field] of [
      [`/v1/agents?limit=0x10`, "query.limit"],
      [`/v1/agents?limit=1e1`, "query.limit"],
      [`/v1/agents?limit=%20`, "query.limit"],
      [`/v1/agents?limit=`, "query.limit"],
      [`/v1/keys?limit=0b11`, "query.limit"],
      [`/v1/agents/${agent}/analytics?top=1e1`, "query.top"],
      [`/v1/agents/${agent}/experiences?minQ=%20`, "query.minQ"],
      [`/v1/agents/${agent}/cases?minQ=0x0`, "query.minQ"],
      [`/v1/agents/${agent}/episodes?limit=Infinity`, "query.limit"],
      [`/v1/agents/${agent}/jobs?limit=0o7`, "query.limit"],
      [`/v1/agents/${agent}/prompt?query=x&budgetTokens=2e3`, "query.budgetTokens"],
      [`/v1/agents/${agent}/library/versions?limit=1e1`, "query.limit"],
      [`/v1/agents/${agent}/library/versions/0x0`, "param.n"],
    ] as const) {
      const r = await call("GET", path, { key: t.apiKey });
      expectProblem(r, 400, "validation-failed");
      expect(
        r.body.errors.map((e: any) => e.path),
        path,
      ).toContain(field);
    }
    for (const path of ["/v1/agents?limit=10", `/v1/agents/${agent}/experiences?minQ=-0.25`, `/v1/agents/${agent}/experiences?minQ=.5`]) {
      expect((await call("GET", path, { key: t.apiKey })).status, path).toBe(200);
    }
  });

  it("the OpenAPI document still types query numbers as numbers", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const limit = doc.paths["/v1/agents"].get.parameters.find((p: any) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 200, default: 50 });
    const minQ = doc.paths["/v1/agents/{agentId}/experiences"].get.parameters.find((p: any) => p.name === "minQ");
    expect(minQ.schema).toMatchObject({ type: "number", minimum: -1, maximum: 1 });
  });

  it("retrying an unknown job is a 404 even without an LLM, and another tenant's job is unknown", async () => {
    expectProblem(await call("POST", `/v1/agents/${agent}/jobs/job_nope/retry`, { key: t.apiKey }), 404, "not-found");
    const other = await newTenant();
    const otherAgent = await newAgent(other.apiKey);
    expectProblem(await call("POST", `/v1/agents/${otherAgent}/jobs/job_nope/retry`, { key: t.apiKey }), 404, "not-found");
  });
});
