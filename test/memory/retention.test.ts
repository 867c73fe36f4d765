import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { flushRetrievalCounts } from "../../src/platform/edge/retrieval-counters";
import { expectProblem, valueOf } from "../helpers";
import { agentFixture } from "./setup";

const DAY = 86_400_000;

async function fixture() {
  const f = await agentFixture();
  const stub = env.AGENT_MEMORY.getByName(`${f.t.tenantId}:${f.agentId}`) as DurableObjectStub<AgentMemory>;
  const sql = <T extends Record<string, SqlStorageValue>>(query: string, ...args: SqlStorageValue[]) =>
    runInDurableObject(stub, (_i, state) => state.storage.sql.exec<T>(query, ...args).toArray());
  const ago = (days: number) => Date.now() - days * DAY;
  /** An ended episode with one failed attempt, which also stores a case and (mixed results) queues a job. */
  const endedEpisode = async (task: string) => {
    const id = (await f.api("POST", "/episodes", { task })).body.episodeId;
    await f.api("POST", `/episodes/${id}/attempts`, { description: "first try", ok: false, error: "boom" });
    const end = await f.api("POST", `/episodes/${id}/end`, { outcome: "success" });
    expect(end.status).toBe(200);
    const [c] = await sql<{ id: string }>("SELECT id FROM cases WHERE episode_id = ?", id);
    return { id, caseId: c!.id, jobId: end.body.result.jobId as string };
  };
  return { ...f, stub, sql, ago, endedEpisode };
}

describe("retention", () => {
  it("the sweep prunes old unused history and keeps what is in use or still referenced", async () => {
    const { api, stub, sql, ago, endedEpisode } = await fixture();
    const old = await endedEpisode("old episode nobody uses");
    const source = await endedEpisode("old episode a live lesson came from");
    const pending = await endedEpisode("old episode whose extraction is still queued");
    const recent = await endedEpisode("recent episode");
    const usedCase = (await api("POST", "/cases", { task: "old case retrieved yesterday", reward: 1 })).body.id;
    const lesson = (await api("POST", "/experiences", { text: "a lesson learnt from the source episode" })).body.id;
    await sql("UPDATE experiences SET provenance = json_object('episodeId', ?) WHERE id = ?", source.id, lesson);
    // A retrieval in an episode is recorded (one outside answers a token and keeps nothing).
    const openEpisode = (await api("POST", "/episodes", { task: "still open" })).body.episodeId;
    const retrieval = (await api("POST", "/retrieve", { query: "old episode", episodeId: openEpisode })).body.retrievalId;
    expect(retrieval).toMatch(/^ret_/);
    // A rewarded token keeps its outcome until it expires; token retrievals are counted by day.
    const token = (await api("POST", "/retrieve", { query: "old episode" })).body.retrievalId;
    expect((await api("POST", "/rewards", { retrievalId: token, outcome: "success" })).status).toBe(200);
    await flushRetrievalCounts(env);

    for (const e of [old, source, pending]) {
      await sql("UPDATE episodes SET created_at = ?, ended_at = ? WHERE id = ?", ago(400), ago(400), e.id);
      await sql("UPDATE cases SET created_at = ?, last_used_at = NULL WHERE id = ?", ago(400), e.caseId);
    }
    await sql("UPDATE cases SET created_at = ?, last_used_at = ? WHERE id = ?", ago(400), ago(1), usedCase);
    await sql("UPDATE jobs SET status = 'done', updated_at = ? WHERE id IN (?, ?)", ago(40), old.jobId, source.jobId);
    await sql("UPDATE jobs SET updated_at = ? WHERE id = ?", ago(40), pending.jobId);
    await sql("UPDATE retrievals SET at = ? WHERE id = ?", ago(40), retrieval);
    await sql("UPDATE rewarded_tokens SET expires_at = ?", ago(1));
    await sql("UPDATE token_retrievals SET day = day - 40");
    expect((await api("GET", "/analytics")).body.retrievals).toBe(2);

    const result = await valueOf(stub.sweep({ at: Date.now() }));
    expect(result.pruned).toMatchObject({ retrievals: 1, rewardedTokens: 1, jobs: 2, cases: 2, episodes: 1, attempts: 1 });
    expect((await api("GET", "/analytics")).body.retrievals).toBe(0);

    const cases = (await api("GET", "/cases?status=all")).body.items.map((c: any) => c.id).sort();
    expect(cases).toEqual([source.caseId, recent.caseId, usedCase].sort());
    expectProblem(await api("GET", `/cases/${old.caseId}`), 404);
    // The pruned cases' vectors went with them.
    const vectors = await sql<{ item_id: string }>("SELECT item_id FROM vectors WHERE item_id IN (?, ?)", old.caseId, pending.caseId);
    expect(vectors).toEqual([]);

    expectProblem(await api("GET", `/episodes/${old.id}`), 404);
    expect(await sql("SELECT n FROM attempts WHERE episode_id = ?", old.id)).toEqual([]);
    for (const e of [source, pending, recent]) expect((await api("GET", `/episodes/${e.id}`)).status).toBe(200);
    const jobs = (await api("GET", "/jobs")).body.items.map((j: any) => j.id).sort();
    expect(jobs).toEqual([pending.jobId, recent.jobId].sort());
    expect((await api("POST", "/rewards", { retrievalId: retrieval, outcome: "success" })).status).toBe(404);
  });

  it("retention is per-agent configuration: null keeps for good, nonsense is refused", async () => {
    const { api, stub, sql, ago } = await fixture();
    const defaults = (await api("GET", "/config")).body.retention;
    expect(defaults).toEqual({ casesDays: 365, episodesDays: 90, retrievalsDays: 30, jobsDays: 30 });
    const id = (await api("POST", "/cases", { task: "an old case", reward: 1 })).body.id;
    await sql("UPDATE cases SET created_at = ?, last_used_at = NULL WHERE id = ?", ago(1000), id);
    expectProblem(await api("PATCH", "/config", { retention: { casesDays: 0 } }), 400);
    expectProblem(await api("PATCH", "/config", { retention: { forever: true } }), 400);
    const patched = await api("PATCH", "/config", { retention: { casesDays: null } });
    expect(patched.body.retention).toEqual({ ...defaults, casesDays: null });
    expect((await valueOf(stub.sweep({ at: Date.now() }))).pruned.cases).toBe(0);
    expect((await api("GET", `/cases/${id}`)).status).toBe(200);
    await api("PATCH", "/config", { retention: { casesDays: 999 } });
    expect((await valueOf(stub.sweep({ at: Date.now() }))).pruned.cases).toBe(1);
    expectProblem(await api("GET", `/cases/${id}`), 404);
  });
});
