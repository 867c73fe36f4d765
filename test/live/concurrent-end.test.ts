import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import type { JobMessage } from "../../src/core/job-messages";
import { slowEmbedderAgent } from "../memory/setup";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Records what the agent's Durable Object sends to the job queue (the test environment has no consumer). */
async function recordEnqueues(stub: DurableObjectStub<AgentMemory>): Promise<JobMessage[]> {
  const sent: JobMessage[] = [];
  await runInDurableObject(stub, (instance) => {
    const target = instance as unknown as { env: Record<string, unknown> };
    const jobs = target.env.JOBS as Queue<JobMessage>;
    target.env = {
      ...target.env,
      JOBS: {
        send: async (msg: JobMessage) => {
          sent.push(msg);
          await jobs.send(msg);
        },
      },
    };
  });
  return sent;
}

const extractions = (sent: JobMessage[]) => sent.filter((m) => m.type === "live.extract");

async function mixedAttempts(api: Awaited<ReturnType<typeof slowEmbedderAgent>>["api"], task: string) {
  const id = (await api("POST", "/episodes", { task })).body.episodeId as string;
  await api("POST", `/episodes/${id}/attempts`, { description: "GET /rates with a 2 second timeout", ok: false, error: "ReadTimeout" });
  await api("POST", `/episodes/${id}/attempts`, { description: "GET /rates with a 10 second timeout", ok: true });
  return id;
}

describe("ending an episode while another end is under way", () => {
  it("concurrent ends: the first wins, the others return its result, one extraction is enqueued", async () => {
    const { api, emb, stub } = await slowEmbedderAgent();
    const sent = await recordEnqueues(stub);
    const id = await mixedAttempts(api, "Fetch today's exchange rates");

    const release = emb.hold();
    const first = api("POST", `/episodes/${id}/end`, { outcome: "success", answer: "1 EUR = 1.09 USD" });
    await emb.arrived(1);
    const same = api("POST", `/episodes/${id}/end`, { outcome: "success", answer: "1 EUR = 1.09 USD" });
    const other = api("POST", `/episodes/${id}/end`, { outcome: "failure" });
    const attempt = await api("POST", `/episodes/${id}/attempts`, { description: "late", ok: true });
    release();
    const ends = await Promise.all([first, same, other]);

    expect(ends.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of ends) expect(r.body).toMatchObject({ status: "ended", outcome: "success", result: ends[0]!.body.result });
    expect(attempt.status).toBe(409);
    expect(extractions(sent)).toHaveLength(1);
    expect((await api("GET", "/cases")).body.items).toHaveLength(1);
    expect((await api("GET", "/jobs")).body.items).toHaveLength(1);
  });

  it("a webhook session redelivered while the first delivery is ending enqueues one extraction", async () => {
    const { emb, stub, api, t, agentId } = await slowEmbedderAgent();
    const sent = await recordEnqueues(stub);
    const session = {
      tenantId: t.tenantId,
      agentId,
      sessionId: "sess-redelivered",
      task: "Book a table for two",
      outcome: "success" as const,
      events: [
        { type: "tool_call" as const, name: "search", input: { q: "tables" }, error: "timeout" },
        { type: "tool_call" as const, name: "book", input: { party: 2 }, result: "booked" },
      ],
    };
    const release = emb.hold();
    const delivery = stub.ingestSession(session);
    await emb.arrived(1);
    const redelivery = stub.ingestSession(session);
    release();
    const [a, b] = await Promise.all([delivery, redelivery]);
    if (!a.ok || !b.ok) throw new Error(JSON.stringify([a, b]));
    expect(b.value.episode.id).toBe(a.value.episode.id);
    expect(b.value.episode.result).toEqual(a.value.episode.result);
    expect(extractions(sent)).toHaveLength(1);
    expect((await api("GET", "/cases")).body.items).toHaveLength(1);
  });

  it("the sweep's timeout yields to a client's end under way and goes on with the other stale episodes", async () => {
    const { api, emb, stub } = await slowEmbedderAgent();
    const racing = await mixedAttempts(api, "Convert 10 EUR to USD");
    const forgotten = (await api("POST", "/episodes", { task: "Summarise the meeting" })).body.episodeId as string;

    const release = emb.hold();
    const clientEnd = api("POST", `/episodes/${racing}/end`, { outcome: "success", answer: "10.9 USD" });
    await emb.arrived(1);
    const sweep = stub.sweep({ at: Date.now() + 2 * 3_600_000 });
    release();
    const [end, swept] = await Promise.all([clientEnd, sweep]);

    expect(end.status).toBe(200);
    expect(end.body.outcome).toBe("success");
    if (!swept.ok) throw new Error(`the sweep failed: ${JSON.stringify(swept.error)}`);
    expect(swept.value.episodesTimedOut).toEqual([forgotten]);
    expect(swept.value.episodesFailed).toEqual([]);
    expect((await api("GET", `/episodes/${racing}`)).body).toMatchObject({ status: "ended", outcome: "success", result: end.body.result });
    expect((await api("GET", `/episodes/${forgotten}`)).body).toMatchObject({ status: "ended", outcome: "timeout" });
  });

  it("a live lesson delivered twice while the first is being applied is applied once", async () => {
    const { api, emb, stub } = await slowEmbedderAgent();
    const id = await mixedAttempts(api, "Fetch today's exchange rates");
    const end = await api("POST", `/episodes/${id}/end`, { outcome: "success" });
    const jobId = end.body.result.jobId as string;
    const candidate = {
      pattern: "rates API times out",
      keywords: ["timeout", "rates"],
      insight: "Give the rates API a 10 second timeout and retry once",
    };
    const decision = { operation: "ADD" as const, reason: "new lesson" };
    const context = { shownIds: [], review: { safe: true, category: "safe", reason: "ordinary advice" } };

    const before = emb.requests.length;
    const release = emb.hold();
    const first = stub.applyLiveLesson({ jobId, episodeId: id, candidate, decision, context });
    await emb.arrived(before + 1);
    const second = stub.applyLiveLesson({ jobId, episodeId: id, candidate, decision, context });
    release();
    const [a, b] = await Promise.all([first, second]);
    if (!a.ok || !b.ok) throw new Error(JSON.stringify([a, b]));
    expect(b.value).toEqual(a.value);
    expect(a.value.applied).toBe("added");
    const versions = (await api("GET", "/library/versions")).body.items;
    expect(versions).toHaveLength(1);
    expect((await api("GET", "/experiences")).body.items).toHaveLength(1);
  });
});
