import { describe, expect, it } from "vitest";
import { expectProblem } from "../helpers";
import { agentFixture } from "./setup";

describe("Idempotency-Key on agent writes", () => {
  it("a retried create replays the first result and stores one experience", async () => {
    const { api } = await agentFixture();
    const h = { "idempotency-key": "create-1" };
    const first = await api("POST", "/experiences", { text: "Check units before adding" }, h);
    const again = await api("POST", "/experiences", { text: "Check units before adding" }, h);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.id).toBe(first.body.id);
    expect((await api("GET", "/experiences")).body.items).toHaveLength(1);
    expect((await api("GET", "/library/versions")).body.items).toHaveLength(1);
    expectProblem(await api("POST", "/experiences", { text: "Something else" }, h), 409, "conflict");
  });

  it("concurrent retries with one key apply once", async () => {
    const { api } = await agentFixture();
    const body = {
      reason: "bulk",
      operations: [
        { op: "create", experience: { text: "lesson a" } },
        { op: "create", experience: { text: "lesson b" } },
      ],
    };
    const rs = await Promise.all(Array.from({ length: 6 }, () => api("POST", "/library/batch", body, { "idempotency-key": "batch-1" })));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(new Set(rs.map((r) => r.body.libraryVersion))).toEqual(new Set([1]));
    expect((await api("GET", "/experiences")).body.items).toHaveLength(2);
  });

  it("episodes and cases accept keys too; without a key each POST creates", async () => {
    const { api } = await agentFixture();
    const e1 = await api("POST", "/episodes", { task: "t" }, { "idempotency-key": "ep" });
    const e2 = await api("POST", "/episodes", { task: "t" }, { "idempotency-key": "ep" });
    expect(e2.body.episodeId).toBe(e1.body.episodeId);
    await api("POST", "/cases", { task: "c", reward: 1 });
    await api("POST", "/cases", { task: "c", reward: 1 });
    expect((await api("GET", "/cases")).body.items).toHaveLength(2);
    expect((await api("GET", "/episodes")).body.items).toHaveLength(1);
  });
});
