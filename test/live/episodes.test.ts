import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectProblem, valueOf } from "../helpers";
import { agentFixture } from "../memory/setup";

const NODE_TRACE = `TypeError: Cannot read properties of undefined (reading 'rate')
    at convert (/srv/app/src/convert.js:27:19)
    at handler (/srv/app/src/server.js:88:12)
    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;

describe("episodes", () => {
  it("logs attempts with digested traces and redacted secrets", async () => {
    const f = await agentFixture();
    const ep = await f.api("POST", "/episodes", { task: "Convert 10 EUR to USD", metadata: { user: "u1" } });
    expect(ep.status).toBe(201);
    const a = await f.api("POST", `/episodes/${ep.body.episodeId}/attempts`, {
      description: "called convert() with Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789",
      ok: false,
      error: NODE_TRACE,
      toolCalls: [{ name: "convert", input: { amount: 10 } }],
    });
    expect(a.status).toBe(201);
    expect(a.body.error).toMatch(/^TypeError @ convert\.js:27/);
    expect(a.body.error).not.toContain("node_modules");
    expect(a.body.description).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
    expect(a.body.toolCalls).toEqual(["convert"]);
    const got = await f.api("GET", `/episodes/${ep.body.episodeId}`);
    expect(got.body).toMatchObject({ status: "open", metadata: { user: "u1" } });
    expect(got.body.attempts).toHaveLength(1);
  });

  it("ending rewards what the episode retrieved, stores a case, and ending twice changes nothing", async () => {
    const f = await agentFixture();
    const lesson = (await f.api("POST", "/experiences", { text: "Look up the exchange rate before converting currencies" })).body.id;
    const ep = (await f.api("POST", "/episodes", { task: "Convert 10 EUR to USD" })).body.episodeId;
    await f.api("POST", "/retrieve", { query: "convert currencies exchange rate", episodeId: ep });
    await f.api("POST", `/episodes/${ep}/attempts`, { description: "looked up the rate, multiplied", ok: true });
    const end = await f.api("POST", `/episodes/${ep}/end`, { outcome: "success", score: 0.5, answer: "10.9 USD" });
    expect(end.status).toBe(200);
    expect(end.body.status).toBe("ended");
    expect(end.body.result).toMatchObject({ reward: 0.5, extraction: "not-needed", jobId: null });
    expect(end.body.result.rewarded).toEqual([{ id: lesson, q: 0.5 + 0.1 * (0.5 - 0.5) }]);
    const again = await f.api("POST", `/episodes/${ep}/end`, { outcome: "failure" });
    expect(again.status).toBe(200);
    expect(again.body.result).toEqual(end.body.result);
    expect(again.body.outcome).toBe("success");
    const cases = await f.api("GET", "/cases");
    expect(cases.body.items).toHaveLength(1);
    expect(cases.body.items[0]).toMatchObject({ episodeId: ep, answer: "10.9 USD", label: "positive", reward: 0.5 });
    expect((await f.api("GET", `/experiences/${lesson}`)).body.counts.successes).toBe(1);
    expectProblem(await f.api("POST", `/episodes/${ep}/attempts`, { description: "late", ok: true }), 409, "conflict");
  });

  it("queues extraction only for episodes with both failure and success", async () => {
    const f = await agentFixture();
    const onlyFail = (await f.api("POST", "/episodes", { task: "t1" })).body.episodeId;
    await f.api("POST", `/episodes/${onlyFail}/attempts`, { description: "x", ok: false, error: "boom" });
    const r1 = await f.api("POST", `/episodes/${onlyFail}/end`, { outcome: "failure" });
    expect(r1.body.result.extraction).toBe("not-needed");
    const mixed = (await f.api("POST", "/episodes", { task: "t2" })).body.episodeId;
    await f.api("POST", `/episodes/${mixed}/attempts`, { description: "x", ok: false, error: "boom" });
    const r2 = await f.api("POST", `/episodes/${mixed}/end`, { outcome: "success" });
    expect(r2.body.result.extraction).toBe("queued");
    const jobs = await f.api("GET", "/jobs");
    expect(jobs.body.items.map((j: any) => [j.episodeId, j.status])).toEqual([[mixed, "queued"]]);
  });

  it("an abandoned episode rewards nothing, keeps no case, queues no extraction and teaches the retriever nothing", async () => {
    const f = await agentFixture();
    const lesson = (await f.api("POST", "/experiences", { text: "Look up the exchange rate before converting currencies" })).body.id;
    const ep = (await f.api("POST", "/episodes", { task: "Convert 10 EUR to USD" })).body.episodeId;
    const shown = await f.api("POST", "/retrieve", { query: "convert currencies exchange rate", episodeId: ep });
    expect(shown.body.items.map((i: any) => i.id)).toContain(lesson);
    await f.api("POST", `/episodes/${ep}/attempts`, { description: "model call failed", ok: false, error: "AI_APICallError: Not Found" });
    await f.api("POST", `/episodes/${ep}/attempts`, { description: "retried", ok: true });
    const end = await f.api("POST", `/episodes/${ep}/end`, { outcome: "abandoned", citedIds: [lesson] });
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({
      status: "ended",
      outcome: "abandoned",
      result: { reward: 0, rewarded: [], caseId: null, extraction: "not-needed", jobId: null },
    });
    expect(end.body.endedAt).toEqual(expect.any(Number));
    const again = await f.api("POST", `/episodes/${ep}/end`, { outcome: "failure" });
    expect(again.body).toMatchObject({ outcome: "abandoned", result: end.body.result });
    expect((await f.api("GET", `/experiences/${lesson}`)).body).toMatchObject({ q: 0.5, counts: { successes: 0, failures: 0 } });
    expect((await f.api("GET", "/cases")).body.items).toEqual([]);
    expect((await f.api("GET", "/jobs")).body.items).toEqual([]);
    const stub = env.AGENT_MEMORY.getByName(`${f.t.tenantId}:${f.agentId}`);
    const taught = await runInDurableObject(stub, (_i, state) => ({
      usage: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM usage_memory").one().n,
      reranker: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM retriever_state").one().n,
    }));
    expect(taught).toEqual({ usage: 0, reranker: 0 });
    // Neither a failure to remedy nor a success whose answer is ground truth.
    expect(await valueOf(stub.episodesForDataset({ limit: 10 }))).toEqual([]);
  });

  it("an attempt marked infrastructure stays in the episode but out of its case's trace and its lesson extraction", async () => {
    const f = await agentFixture();
    const ep = (await f.api("POST", "/episodes", { task: "Convert 10 EUR to USD" })).body.episodeId;
    const infra = await f.api("POST", `/episodes/${ep}/attempts`, {
      description: "model call failed",
      ok: false,
      error: "AI_APICallError: Not Found",
      infrastructure: true,
    });
    expect(infra.status).toBe(201);
    expect(infra.body).toMatchObject({ n: 1, ok: false, infrastructure: true });
    await f.api("POST", `/episodes/${ep}/attempts`, { description: "multiplied by the rate of the day", ok: true });
    const end = await f.api("POST", `/episodes/${ep}/end`, { outcome: "success", answer: "10.9 USD" });
    // Its only failure was outside the task: nothing to contrast, so no lesson is extracted.
    expect(end.body.result).toMatchObject({ extraction: "not-needed", jobId: null });
    const kept = (await f.api("GET", `/cases/${end.body.result.caseId}`)).body;
    expect(kept.traceSummary).toBe("#2 ok: multiplied by the rate of the day");
    expect(JSON.stringify(kept)).not.toContain("AI_APICallError");
    expect((await f.api("GET", `/episodes/${ep}`)).body.attempts.map((a: any) => a.infrastructure)).toEqual([true, false]);

    // Only infrastructure failed: the case keeps no trace at all.
    const ep2 = (await f.api("POST", "/episodes", { task: "Convert 20 EUR to USD" })).body.episodeId;
    await f.api("POST", `/episodes/${ep2}/attempts`, {
      description: "model call failed",
      ok: false,
      error: "fetch failed: ECONNRESET",
      infrastructure: true,
    });
    const end2 = await f.api("POST", `/episodes/${ep2}/end`, { outcome: "failure" });
    expect((await f.api("GET", `/cases/${end2.body.result.caseId}`)).body.traceSummary).toBeNull();
  });

  it("rejects bad input and unknown episodes, changing nothing", async () => {
    const f = await agentFixture();
    expectProblem(await f.api("POST", "/episodes", { task: "" }), 400);
    expectProblem(await f.api("POST", "/episodes/ep_missing/attempts", { description: "x", ok: true }), 404);
    expectProblem(await f.api("POST", "/episodes/ep_missing/end", { outcome: "success" }), 404);
    const ep = (await f.api("POST", "/episodes", { task: "t" })).body.episodeId;
    expectProblem(await f.api("POST", `/episodes/${ep}/end`, { outcome: "great" }), 400);
    const cited = await f.api("POST", `/episodes/${ep}/end`, { outcome: "success", citedIds: ["exp_not_retrieved"] });
    expectProblem(cited, 422);
    expect((await f.api("GET", `/episodes/${ep}`)).body.status).toBe("open");
    expect((await f.api("GET", "/cases")).body.items).toHaveLength(0);
  });

  it("paginates episodes newest first", async () => {
    const f = await agentFixture();
    for (const task of ["a", "b", "c"]) await f.api("POST", "/episodes", { task });
    const p1 = await f.api("GET", "/episodes?limit=2");
    const p2 = await f.api("GET", `/episodes?limit=2&cursor=${p1.body.nextCursor}`);
    expect([...p1.body.items, ...p2.body.items].map((e: any) => e.task)).toEqual(["c", "b", "a"]);
    expect(p2.body.nextCursor).toBeNull();
  });

  it("open episodes past the TTL are ended as timeout by the sweep", async () => {
    const f = await agentFixture();
    const stale = (await f.api("POST", "/episodes", { task: "stuck" })).body.episodeId;
    const fresh = (await f.api("POST", "/episodes", { task: "running" })).body.episodeId;
    const stub = env.AGENT_MEMORY.getByName(`${f.t.tenantId}:${f.agentId}`);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("UPDATE episodes SET created_at = ? WHERE id = ?", Date.now() - 2 * 3_600_000, stale);
    });
    const result = await valueOf(stub.sweep({ at: Date.now() }));
    expect(result.episodesTimedOut).toEqual([stale]);
    expect((await f.api("GET", `/episodes/${stale}`)).body).toMatchObject({ status: "ended", outcome: "timeout" });
    expect((await f.api("GET", `/episodes/${fresh}`)).body.status).toBe("open");
  });
});
