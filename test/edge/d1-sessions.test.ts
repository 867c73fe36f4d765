import { describe, expect, it } from "vitest";
import { call, newAgent, newTenant } from "../helpers";
import { probedWorker, WARM_READS } from "./probe";

describe("D1 read replication (Sessions API)", () => {
  it("answers a request that read D1 with an x-d1-bookmark, and a read sent with it sees the write", async () => {
    const t = await newTenant();
    const put = await call("PUT", "/v1/agents/bookmarked", { key: t.apiKey, body: { displayName: "first" } });
    expect(put.status).toBe(201);
    const bookmark = put.headers.get("x-d1-bookmark");
    expect(bookmark).toBeTruthy();
    const renamed = await call("PUT", "/v1/agents/bookmarked", {
      key: t.apiKey,
      body: { displayName: "second" },
      headers: { "x-d1-bookmark": bookmark! },
    });
    expect(renamed.status).toBe(200);
    const read = await call("GET", "/v1/agents/bookmarked", {
      key: t.apiKey,
      headers: { "x-d1-bookmark": renamed.headers.get("x-d1-bookmark")! },
    });
    expect(read.status).toBe(200);
    expect(read.body.displayName).toBe("second");
    expect(read.headers.get("x-d1-bookmark")).toBeTruthy();
  });

  it("ignores a header that is no bookmark rather than failing the request", async () => {
    const t = await newTenant();
    await newAgent(t.apiKey, "plain");
    const r = await call("GET", "/v1/agents/plain", { key: t.apiKey, headers: { "x-d1-bookmark": "not a bookmark\u0001" } });
    expect(r.status).toBe(200);
  });

  it("reads off the hot path go through a session; the hot path opens none that it uses", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const w = probedWorker({}, WARM_READS);
    const list = await w.call("GET", "/v1/agents", t.apiKey);
    expect(list.status).toBe(200);
    expect(list.trips.DB).toBe(1);
    // The first read at the edge checks the key's revocation in D1; a warm one reads nothing.
    expect((await w.call("GET", `/v1/agents/${agentId}/prompt`, t.apiKey)).status).toBe(200);
    const prompt = await w.call("GET", `/v1/agents/${agentId}/prompt`, t.apiKey);
    expect(prompt.trips.DB).toBe(0);
  });
});
