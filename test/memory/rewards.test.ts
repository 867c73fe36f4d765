import { describe, expect, it } from "vitest";
import { expectProblem } from "../helpers";
import { agentFixture } from "./setup";

async function seeded() {
  const f = await agentFixture();
  const a = (await f.api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" })).body.id as string;
  const b = (await f.api("POST", "/experiences", { text: "Retry HTTP 429 after the Retry-After header delay" })).body.id as string;
  return { ...f, a, b };
}

describe("rewards", () => {
  it("attributes by retrievalId with the EMA update", async () => {
    const { api, a, b } = await seeded();
    const ret = await api("POST", "/retrieve", { query: "retry HTTP 429" });
    expect(ret.body.items.map((i: any) => i.id).sort()).toEqual([a, b].sort());
    const r = await api("POST", "/rewards", { retrievalId: ret.body.retrievalId, outcome: "success" });
    expect(r.status).toBe(200);
    expect(r.body.reward).toBe(1);
    for (const u of r.body.updated) expect(u.q).toBeCloseTo(0.55, 12);
    const e = await api("GET", `/experiences/${a}`);
    expect(e.body.q).toBeCloseTo(0.55, 12);
    expect(e.body.counts.successes).toBe(1);
    expect(e.body.qHistory).toHaveLength(1);
    expect(e.body.qHistory[0].delta).toBeCloseTo(0.05, 12);
  });

  it("applies quality and the configured reward mapping", async () => {
    const { api, a } = await seeded();
    const partial = await api("POST", "/rewards", { memoryIds: [a], outcome: "partial", quality: 0.5 });
    expect(partial.body.reward).toBeCloseTo(0.15, 12);
    expect(partial.body.updated[0].q).toBeCloseTo(0.5 + 0.1 * (0.15 - 0.5), 12);
    await api("PATCH", "/config", { rewardMapping: { timeout: -0.2 }, alpha: 0.5 });
    const timeout = await api("POST", "/rewards", { memoryIds: [a], outcome: "timeout" });
    const before = partial.body.updated[0].q;
    expect(timeout.body.reward).toBe(-0.2);
    expect(timeout.body.updated[0].q).toBeCloseTo(before + 0.5 * (-0.2 - before), 12);
  });

  it("attributes by episodeId across every retrieval of the episode, each item once", async () => {
    const { api, a, b } = await seeded();
    const ep1 = (await api("POST", "/episodes", { task: "Call the rates API" })).body.episodeId;
    const other = (await api("POST", "/episodes", { task: "Call the rates API again" })).body.episodeId;
    await api("POST", "/retrieve", { query: "retry HTTP 429 with exponential backoff", episodeId: ep1, k2: 1 });
    await api("POST", "/retrieve", { query: "Retry-After header delay", episodeId: ep1, k2: 1 });
    await api("POST", "/retrieve", { query: "retry HTTP 429", episodeId: other });
    const r = await api("POST", "/rewards", { episodeId: ep1, outcome: "failure" });
    expect(r.body.updated.map((u: any) => u.id).sort()).toEqual([a, b].sort());
    for (const u of r.body.updated) expect(u.q).toBeCloseTo(0.5 + 0.1 * (-1 - 0.5), 12);
  });

  it("with citedIds only cited items learn; uncited ones are counted", async () => {
    const { api, a, b } = await seeded();
    const ret = await api("POST", "/retrieve", { query: "retry HTTP 429" });
    const r = await api("POST", "/rewards", { retrievalId: ret.body.retrievalId, outcome: "success", citedIds: [b] });
    expect(r.body.updated.map((u: any) => u.id)).toEqual([b]);
    expect(r.body.uncited).toEqual([a]);
    const ea = await api("GET", `/experiences/${a}`);
    const eb = await api("GET", `/experiences/${b}`);
    expect(ea.body.q).toBe(0.5);
    expect(ea.body.counts).toMatchObject({ cited: 0, uncited: 1 });
    expect(eb.body.q).toBeCloseTo(0.55, 12);
    expect(eb.body.counts).toMatchObject({ cited: 1, uncited: 0 });
  });

  it("an Idempotency-Key replays the first result and changes nothing", async () => {
    const { api, a } = await seeded();
    const h = { "idempotency-key": "reward-1" };
    const first = await api("POST", "/rewards", { memoryIds: [a], outcome: "success" }, h);
    const again = await api("POST", "/rewards", { memoryIds: [a], outcome: "success" }, h);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.updated).toEqual(first.body.updated);
    expect((await api("GET", `/experiences/${a}`)).body.q).toBeCloseTo(0.55, 12);
    const misuse = await api("POST", "/rewards", { memoryIds: [a], outcome: "failure" }, h);
    expectProblem(misuse, 409, "conflict");
    expect((await api("GET", `/experiences/${a}`)).body.counts.successes).toBe(1);
  });

  it("200 concurrent rewards to one agent equal the sequential result", async () => {
    const { api, a, b } = await seeded();
    // Successes on a (order-independent final Q) interleaved with failures on b.
    const reqs = Array.from({ length: 200 }, (_, i) =>
      i % 4 === 3 ? { memoryIds: [b], outcome: "failure" } : { memoryIds: [a], outcome: "success" },
    );
    const rs = await Promise.all(reqs.map((body, i) => api("POST", "/rewards", body, { "idempotency-key": `k-${i}` })));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    let qa = 0.5;
    let qb = 0.5;
    for (const r of reqs) {
      if (r.outcome === "success") qa += 0.1 * (1 - qa);
      else qb += 0.1 * (-1 - qb);
    }
    const ea = await api("GET", `/experiences/${a}`);
    const eb = await api("GET", `/experiences/${b}`);
    expect(ea.body.counts.successes).toBe(150);
    expect(eb.body.counts.failures).toBe(50);
    expect(ea.body.q).toBeCloseTo(qa, 12);
    expect(eb.body.q).toBeCloseTo(qb, 12);
    // Every update continued from the previous one: no two saw the same starting Q.
    const befores = rs.filter((r) => r.body.updated[0].id === a).map((r) => r.body.updated[0].qBefore);
    expect(new Set(befores).size).toBe(150);
    expect(ea.body.qHistory).toHaveLength(50);
  });

  it("rejects bad reward input and changes nothing", async () => {
    const { api, a, b } = await seeded();
    const none = await api("POST", "/rewards", { outcome: "success" });
    expectProblem(none, 400, "validation-failed");
    expectProblem(await api("POST", "/rewards", { memoryIds: [a] }), 400);
    expectProblem(await api("POST", "/rewards", { memoryIds: [a], outcome: "success", quality: 2 }), 400);
    expectProblem(await api("POST", "/rewards", { retrievalId: "ret_missing", outcome: "success" }), 404);
    const unknown = await api("POST", "/rewards", { memoryIds: [a, "exp_missing"], outcome: "success" });
    expectProblem(unknown, 422, "unprocessable");
    const stray = await api("POST", "/rewards", { memoryIds: [a], outcome: "success", citedIds: [b] });
    expectProblem(stray, 422);
    expect((await api("GET", `/experiences/${a}`)).body.q).toBe(0.5);
  });
});

describe("analytics", () => {
  it("reports Q distribution, top/bottom, convergence and success rates", async () => {
    const { api, a, b } = await seeded();
    await api("POST", "/experiences", { text: "Tagged lesson", tags: ["ops"], source: "live" });
    for (let i = 0; i < 3; i++) await api("POST", "/rewards", { memoryIds: [a], outcome: "success" });
    await api("POST", "/rewards", { memoryIds: [b], outcome: "failure" });
    const r = await api("GET", "/analytics?top=1&window=4");
    expect(r.status).toBe(200);
    expect(r.body.experiences.q.count).toBe(3);
    expect(r.body.top[0].id).toBe(a);
    expect(r.body.bottom[0].id).toBe(b);
    expect(r.body.convergence.updates).toBe(4);
    expect(r.body.convergence.meanAbsDeltaQ).toBeGreaterThan(0);
    const manual = r.body.successRate.bySource.find((s: any) => s.source === "manual");
    expect(manual).toMatchObject({ successes: 3, failures: 1, successRate: 0.75 });
    expect(r.body.successRate.byTag.find((t: any) => t.tag === "ops")).toMatchObject({ items: 1, successRate: null });
  });
});
