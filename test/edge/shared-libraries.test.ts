import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { resilientMemory } from "../../src/platform/objects/agent-access";
import { flushRetrievalCounts } from "../../src/platform/edge/retrieval-counters";
import { isRetrievalToken } from "../../src/core/retrieval-token";
import { call, newAgent, newTenant } from "../helpers";
import { probedWorker } from "./probe";

/** A Worker whose reads at the edge may serve snapshots up to `bound` ms old (the test environment's is 0). */
const boundedWorker = (bound: number) => probedWorker({}, { READ_STALENESS_MS: String(bound) });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BOUND = 600;

/** A tenant with a shared library of one lesson, two subscribers (each with a lesson of its own) and an agent that does not subscribe. */
async function sharedWorld() {
  const t = await newTenant();
  const lib = (method: string, path: string, body?: unknown) => call(method, `/v1/libraries${path}`, { key: t.apiKey, body });
  const created = await lib("POST", "", { name: "payments" });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const libraryId = created.body.libraryId as string;
  const lesson = await lib("POST", `/${libraryId}/experiences`, { text: "Retry HTTP 429 with exponential backoff" });
  expect(lesson.status, JSON.stringify(lesson.body)).toBe(201);
  const ids = { one: await newAgent(t.apiKey), two: await newAgent(t.apiKey), loner: await newAgent(t.apiKey) };
  for (const agentId of Object.values(ids)) {
    const own = await call("POST", `/v1/agents/${agentId}/experiences`, {
      key: t.apiKey,
      body: { text: "Log the request id of every failed HTTP call" },
    });
    expect(own.status).toBe(201);
  }
  for (const agentId of [ids.one, ids.two])
    expect((await call("PUT", `/v1/agents/${agentId}/subscriptions/${libraryId}`, { key: t.apiKey, body: {} })).status).toBe(200);
  return { t, lib, libraryId, lessonId: lesson.body.id as string, ids };
}

const sharedIds = (r: { body: { items: { id: string; libraryId?: string }[] } }) =>
  r.body.items.filter((i) => i.libraryId).map((i) => i.id);

/** The agent's read model counters: a library's write must leave every subscriber's alone. */
const readModelCounters = (tenantId: string, agentId: string) =>
  runInDurableObject(env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>, (obj) =>
    (obj as any).ctx.storage.sql
      .exec("SELECT name, value FROM counters WHERE name IN ('read_model', 'read_learn') ORDER BY name")
      .toArray()
      .map((r: { value: number }) => r.value),
  );

describe("subscribers read shared libraries at the edge", () => {
  it("two subscribers serve a shared lesson from the edge, marked with its library, and a non-subscriber does not", async () => {
    const w = await sharedWorld();
    const retrieve = (agentId: string) =>
      call("POST", `/v1/agents/${agentId}/retrieve`, { key: w.t.apiKey, body: { query: "retry HTTP 429" } });
    for (const agentId of [w.ids.one, w.ids.two]) {
      const r = await retrieve(agentId);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.servedFrom).toBe("edge");
      expect(r.body.fallbackReason).toBeUndefined();
      expect(r.body.items).toContainEqual(expect.objectContaining({ id: w.lessonId, libraryId: w.libraryId, label: null, q: 0.5 }));
      expect(isRetrievalToken(r.body.retrievalId)).toBe(true);
      const prompt = await call("GET", `/v1/agents/${agentId}/prompt?query=retry%20HTTP%20429`, { key: w.t.apiKey });
      expect(prompt.body).toMatchObject({ servedFrom: "edge" });
      expect(prompt.body.prompt).toContain("[S0]. Retry HTTP 429 with exponential backoff");
      expect(prompt.body.experienceIds).toContain(`${w.libraryId}/${w.lessonId}`);
    }
    const loner = await retrieve(w.ids.loner);
    expect(loner.body.servedFrom).toBe("edge");
    expect(sharedIds(loner)).toEqual([]);
  });

  it("a lesson added and one quarantined in the library reach both subscribers' edge reads within the bound, without a write to them", async () => {
    const w = await sharedWorld();
    const worker = boundedWorker(BOUND);
    const read = (agentId: string) =>
      worker.call("POST", `/v1/agents/${agentId}/retrieve`, w.t.apiKey, { query: "retry HTTP 429 backoff" });
    for (const agentId of [w.ids.one, w.ids.two]) expect(sharedIds(await read(agentId))).toEqual([w.lessonId]);
    const before = await Promise.all([w.ids.one, w.ids.two].map((a) => readModelCounters(w.t.tenantId, a)));

    const added = await w.lib("POST", `/${w.libraryId}/experiences`, { text: "Retry HTTP 429 only after the Retry-After delay" });
    expect(added.status).toBe(201);
    const held = await w.lib("PATCH", `/${w.libraryId}/experiences/${w.lessonId}`, { status: "quarantined" });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(await Promise.all([w.ids.one, w.ids.two].map((a) => readModelCounters(w.t.tenantId, a)))).toEqual(before);

    for (const agentId of [w.ids.one, w.ids.two]) {
      const soon = await read(agentId);
      expect(soon.body.servedFrom).toBe("edge");
      if (sharedIds(soon).includes(w.lessonId)) expect(soon.body.snapshotAgeMs).toBeLessThanOrEqual(BOUND);
    }
    await pause(BOUND + 50);
    for (const agentId of [w.ids.one, w.ids.two]) {
      const later = await read(agentId);
      expect(later.body.servedFrom).toBe("edge");
      expect(sharedIds(later)).toEqual([added.body.id]);
    }
    // A strong read goes through the objects and agrees.
    const strong = await worker.call("POST", `/v1/agents/${w.ids.one}/retrieve`, w.t.apiKey, {
      query: "retry HTTP 429 backoff",
      consistency: "strong",
    });
    expect(strong.body).toMatchObject({ servedFrom: "object", fallbackReason: "strong" });
    expect(sharedIds(strong)).toEqual([added.body.id]);
  });

  it("a deleted library leaves both subscribers' edge reads within the bound, and their subscriptions end (the reads write nothing; the sweep ends them)", async () => {
    const w = await sharedWorld();
    const worker = boundedWorker(BOUND);
    const read = (agentId: string) => worker.call("POST", `/v1/agents/${agentId}/retrieve`, w.t.apiKey, { query: "retry HTTP 429" });
    for (const agentId of [w.ids.one, w.ids.two]) expect(sharedIds(await read(agentId))).toEqual([w.lessonId]);
    expect((await w.lib("DELETE", `/${w.libraryId}`)).status).toBe(200);
    await pause(BOUND + 50);
    for (const agentId of [w.ids.one, w.ids.two]) {
      const r = await read(agentId);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.servedFrom).toBe("edge");
      expect(sharedIds(r)).toEqual([]);
      expect(r.body.items.length).toBe(1);
      expect((await call("GET", `/v1/agents/${agentId}/subscriptions`, { key: w.t.apiKey })).body.items).toEqual([]);
      const object = resilientMemory(env, w.t.tenantId, agentId);
      expect((await object.subscriptions()).map((s) => s.libraryId)).toEqual([w.libraryId]);
      expect((await object.sweep({ at: Date.now() })).unsubscribed).toEqual([w.libraryId]);
      expect(await object.subscriptions()).toEqual([]);
    }
  });

  it("the isolate that deleted a library stops serving its lessons at once, though their snapshot was fresh", async () => {
    const w = await sharedWorld();
    const worker = boundedWorker(60_000);
    const read = () => worker.call("POST", `/v1/agents/${w.ids.one}/retrieve`, w.t.apiKey, { query: "retry HTTP 429" });
    expect(sharedIds(await read())).toEqual([w.lessonId]);
    expect((await worker.call("DELETE", `/v1/libraries/${w.libraryId}`, w.t.apiKey)).status).toBe(200);
    const r = await read();
    expect(r.body.servedFrom).toBe("edge");
    expect(sharedIds(r)).toEqual([]);
  });

  it("an unsubscribed agent stops reading the library at the edge within the bound", async () => {
    const w = await sharedWorld();
    const worker = boundedWorker(BOUND);
    const read = () => worker.call("POST", `/v1/agents/${w.ids.one}/retrieve`, w.t.apiKey, { query: "retry HTTP 429" });
    expect(sharedIds(await read())).toEqual([w.lessonId]);
    expect((await call("DELETE", `/v1/agents/${w.ids.one}/subscriptions/${w.libraryId}`, { key: w.t.apiKey })).status).toBe(200);
    await pause(BOUND + 50);
    const r = await read();
    expect(r.body.servedFrom).toBe("edge");
    expect(sharedIds(r)).toEqual([]);
  });

  it("a reward on an edge token moves only the rewarding agent's Q, and its uses count in its own object", async () => {
    const w = await sharedWorld();
    const retrieve = (agentId: string) =>
      call("POST", `/v1/agents/${agentId}/retrieve`, { key: w.t.apiKey, body: { query: "retry HTTP 429" } });
    const shared = (r: { body: { items: { id: string; libraryId?: string; q: number }[] } }) => r.body.items.find((i) => i.libraryId)!;
    const r1 = await retrieve(w.ids.one);
    expect(r1.body.servedFrom).toBe("edge");
    const reward = await call("POST", `/v1/agents/${w.ids.one}/rewards`, {
      key: w.t.apiKey,
      body: { retrievalId: r1.body.retrievalId, outcome: "success", citedIds: [w.lessonId] },
    });
    expect(reward.status, JSON.stringify(reward.body)).toBe(200);
    expect(reward.body.updated).toMatchObject([{ id: w.lessonId, libraryId: w.libraryId, qBefore: 0.5, cited: true }]);
    expect(reward.body.updated[0].q).toBeCloseTo(0.55, 12);
    // The same reward again replays; the token carries the shared lesson, so nothing else moves.
    const again = await call("POST", `/v1/agents/${w.ids.one}/rewards`, {
      key: w.t.apiKey,
      body: { retrievalId: r1.body.retrievalId, outcome: "success", citedIds: [w.lessonId] },
    });
    expect(again.body.replayed).toBe(true);

    const next = await retrieve(w.ids.one);
    expect(next.body.servedFrom).toBe("edge");
    expect(shared(next).q).toBeCloseTo(0.55, 12);
    const other = await retrieve(w.ids.two);
    expect(shared(other).q).toBe(0.5);
    expect((await w.lib("GET", `/${w.libraryId}/experiences/${w.lessonId}`)).body.q).toBe(0.5);

    await flushRetrievalCounts(env);
    const subscribers = await w.lib("GET", `/${w.libraryId}/subscribers`);
    const byAgent = Object.fromEntries(subscribers.body.items.map((s: any) => [s.agentId, s.lessons[0]]));
    expect(byAgent[w.ids.one]).toMatchObject({ id: w.lessonId, successes: 1, failures: 0 });
    expect(byAgent[w.ids.one].retrieved).toBeGreaterThanOrEqual(2);
    expect(byAgent[w.ids.two]).toMatchObject({ id: w.lessonId, retrieved: 1, successes: 0 });
  });

  it("a prompt's token credits a quoted shared lesson's S label to the agent's own Q", async () => {
    const w = await sharedWorld();
    const p = await call("GET", `/v1/agents/${w.ids.one}/prompt?query=retry%20HTTP%20429`, { key: w.t.apiKey });
    expect(p.body.servedFrom).toBe("edge");
    const reward = await call("POST", `/v1/agents/${w.ids.one}/rewards`, {
      key: w.t.apiKey,
      body: { retrievalId: p.body.retrievalId, outcome: "success", citedIds: ["S0"] },
    });
    expect(reward.status, JSON.stringify(reward.body)).toBe(200);
    expect(reward.body.updated).toMatchObject([{ id: w.lessonId, libraryId: w.libraryId }]);
  });

  it("a subscription pinned to a version reads through the object, saying so", async () => {
    const w = await sharedWorld();
    const pinned = await call("PUT", `/v1/agents/${w.ids.one}/subscriptions/${w.libraryId}`, { key: w.t.apiKey, body: { pinVersion: 1 } });
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
    const r = await call("POST", `/v1/agents/${w.ids.one}/retrieve`, { key: w.t.apiKey, body: { query: "retry HTTP 429" } });
    expect(r.body).toMatchObject({ servedFrom: "object", fallbackReason: "pinned-subscription" });
    expect(sharedIds(r)).toEqual([w.lessonId]);
  });
});
