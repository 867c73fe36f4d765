import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { decodeSnapshot, encodeSnapshot } from "../../src/core/ranking/snapshot";
import { SnapshotReader } from "../../src/core/ranking/snapshot-source";
import { rankFrom, type RankingRequest } from "../../src/core/ranking/rank";
import type { MemoryFilter, MemoryKind } from "../../src/core/memory-types";
import int8Scan from "../../src/adapters/vector-indexes/int8-scan.wasm";
import { memoryName } from "../../src/platform/objects/memory-name";
import { agentFixture } from "../memory/setup";
import { call, expectProblem, newKey } from "../helpers";
import { probedWorker } from "./probe";
import { mcpTool } from "../mcp-client";
import { forgetReadModels, readModelsHeld } from "../../src/platform/edge/read-pipeline";
import { ReadModel } from "../../durable-objects/agent-memory/retrieval/read-model";
import { assemblePrompt, type PromptRequest } from "../../src/core/ranking/prompt";
import { liveLesson } from "../live/fixture";

const TOPICS: Record<string, { nouns: string[]; verbs: string[] }> = {
  deploy: {
    nouns: ["canary", "rollout", "release branch", "health check", "feature flag", "container image"],
    verbs: ["roll back", "pin", "promote", "verify", "drain"],
  },
  db: {
    nouns: ["query plan", "index", "connection pool", "replica lag", "schema migration", "lock timeout"],
    verbs: ["analyze", "batch", "retry", "partition", "throttle"],
  },
  api: {
    nouns: ["rate limit", "pagination cursor", "webhook", "idempotency key", "retry header", "status code 429"],
    verbs: ["validate", "paginate", "backoff", "sign", "deduplicate"],
  },
  testing: {
    nouns: ["flaky test", "fixture", "mock server", "seed data", "race condition", "integration suite"],
    verbs: ["isolate", "seed", "stub", "reproduce", "bisect"],
  },
};
const TAGS = Object.keys(TOPICS);
/** A seeded pick of words: the same lessons and queries on every run. */
function picker(seed: number) {
  let a = seed >>> 0;
  return <T>(xs: readonly T[]) => {
    a = (Math.imul(a ^ (a >>> 15), 2654435761) + 0x6d2b79f5) >>> 0;
    return xs[a % xs.length]!;
  };
}
function corpus(n: number, seed: number) {
  const pick = picker(seed);
  return Array.from({ length: n }, (_, i) => {
    const tag = TAGS[i % TAGS.length]!;
    const t = TOPICS[tag]!;
    return {
      text: `When the ${pick(t.nouns)} misbehaves, ${pick(t.verbs)} the ${pick(t.nouns)} before you ${pick(t.verbs)} again (${i})`,
      tags: [tag],
    };
  });
}
function queries(n: number, seed: number) {
  const pick = picker(seed);
  return Array.from({ length: n }, () => {
    const t = TOPICS[pick(TAGS)]!;
    return `how do I ${pick(t.verbs)} a ${pick(t.nouns)} that keeps failing`;
  });
}

/** Every number to 9 decimals, for results two summation orders compute. */
const roundedDeep = (x: unknown): unknown =>
  typeof x === "number"
    ? Math.round(x * 1e9) / 1e9
    : Array.isArray(x)
      ? x.map(roundedDeep)
      : x && typeof x === "object"
        ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, roundedDeep(v)]))
        : x;

const stubOf = (tenantId: string, agentId: string) =>
  env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;

/** An agent with lessons (some with a `when`, tags, metadata, a domain), cases, and what rewards taught. */
async function seasoned() {
  const f = await agentFixture();
  // Past 250 rows the lexical channel picks the rare words (discriminativeTerms), as in a large library.
  const lessons = corpus(300, 11);
  for (let i = 0; i < lessons.length; i += 100) {
    const operations = lessons.slice(i, i + 100).map((e, n) => ({
      op: "create",
      experience: {
        text: e.text,
        tags: e.tags,
        ...(n % 7 === 0 ? { when: `when the ${e.tags[0]} work stalls on a retry` } : {}),
        ...(n % 5 === 0 ? { metadata: { team: n % 2 ? "core" : "edge", tier: n % 3 } } : {}),
        ...(n % 4 === 0 ? { domain: e.tags[0] } : {}),
      },
    }));
    const r = await f.api("POST", "/library/batch", { reason: "seed", operations });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  for (const task of [
    "Roll back the canary after the health check failed",
    "Paginate the webhook backlog with a cursor",
    "Seed the test database before the integration suite",
  ]) {
    expect((await f.api("POST", "/cases", { task, reward: 1, answer: `Did it: ${task.toLowerCase()}` })).status).toBe(201);
  }
  // Enough rewards, good and bad, for usage memory and the learned re-ranker to take part.
  for (const [n, q] of queries(24, 5).entries()) {
    const r = await f.api("POST", "/retrieve", { query: q, consistency: "strong" });
    expect(r.status).toBe(200);
    const cited = r.body.items.slice(0, 1).map((i: { id: string }) => i.id);
    expect(
      (await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: n % 3 ? "success" : "failure", citedIds: cited }))
        .status,
    ).toBe(200);
  }
  expect((await f.api("GET", "/retriever")).body.reranker.active).toBe(true);
  return f;
}

describe("edge and object rank alike", () => {
  it("the object's storage and its published snapshot give the same candidates, order and scores for every query", async () => {
    const f = await seasoned();
    const variants: { kinds: MemoryKind[]; k1: number; k2: number; lambda: number; threshold?: number; filter?: MemoryFilter }[] = [
      { kinds: ["experience", "case"], k1: 20, k2: 5, lambda: 0.5 },
      { kinds: ["experience"], k1: 40, k2: 12, lambda: 0.9, threshold: 0.05 },
      { kinds: ["experience", "case"], k1: 20, k2: 8, lambda: 0.2, filter: { tags: ["db", "api"] } },
      { kinds: ["experience"], k1: 30, k2: 10, lambda: 0.5, filter: { metadata: { team: "core" } } },
      { kinds: ["experience", "case"], k1: 25, k2: 10, lambda: 0.7, filter: { domain: "deploy" } },
    ];
    const compared = await runInDurableObject(stubOf(f.t.tenantId, f.agentId), async (obj) => {
      const rooms = (obj as any).rooms;
      const reader = new SnapshotReader(decodeSnapshot(encodeSnapshot(await rooms.readModel.snapshot())), int8Scan);
      let n = 0;
      for (const text of [...queries(20, 23), "roll back the release", "rate limit 429 retry header", "flaky fixture"]) {
        const vec = (await rooms.retrieval.embedQuery(text)).vec as Float32Array;
        for (const v of variants) {
          const now = Date.now();
          const req: RankingRequest = {
            query: { text, vec },
            ...v,
            threshold: v.threshold ?? rooms.retrieval.threshold(),
            reranker: rooms.retrieval.reranker.current().state,
            now,
          };
          const fromStorage = await rankFrom(rooms.retrieval, req);
          const fromSnapshot = await rankFrom(reader.at(now, { text, vec }), req);
          expect(fromSnapshot).toEqual(fromStorage);
          n += fromStorage.ranked.length;
        }
      }
      return n;
    });
    expect(compared).toBeGreaterThan(200);
    // Hundreds of rankings twice over: 4 s alone, past 30 s beside a loaded runtime.
  }, 90_000);

  it("the object and its snapshot assemble the same block, and explore the same lessons on probation, for the same seed", async () => {
    const f = await seasoned();
    const onTrial = [];
    for (const [n, text] of [
      "Roll the canary back before you promote the release branch again",
      "Drain the connection pool before a schema migration takes its lock",
      "Backoff on status code 429 for as long as the retry header asks",
      "Reproduce a flaky test with the seed data of the failing run",
      "Verify the health check of a rollout before you pin the container image",
      "Batch the index rebuild when replica lag grows",
    ].entries())
      onTrial.push(await liveLesson(f, text, [TAGS[n % TAGS.length]!]));
    const requests: (PromptRequest & { filter?: MemoryFilter })[] = [
      { budgetTokens: 400_000 },
      { budgetTokens: 600, query: "roll back the canary release" },
      { budgetTokens: 400_000, query: "status code 429 retry header backoff" },
      { budgetTokens: 900, query: "flaky test seed data", filter: { tags: ["testing", "db"] } },
      { budgetTokens: 300 },
    ];
    const explored = await runInDurableObject(stubOf(f.t.tenantId, f.agentId), async (obj) => {
      const rooms = (obj as any).rooms;
      const reader = new SnapshotReader(decodeSnapshot(encodeSnapshot(await rooms.readModel.snapshot())), int8Scan);
      const seen = new Set<string>();
      for (const req of requests) {
        const embedded = req.query ? await rooms.retrieval.embedQuery(req.query) : null;
        for (let s = 0; s < 8; s++) {
          const seed = `ep_seed_${s}`;
          const fromObject = await assemblePrompt(
            rooms.prompts.source(async () => embedded, []),
            req,
            req.filter,
            seed,
          );
          const fromSnapshot = await assemblePrompt(reader.at(Date.now(), embedded), req, req.filter, seed);
          expect(fromSnapshot).toEqual(fromObject);
          for (const id of fromObject.exploredIds) seen.add(id);
          expect(fromObject.trial.shown).toEqual(fromObject.exploredIds);
        }
      }
      return seen;
    });
    expect(explored.size).toBeGreaterThan(1);
    for (const id of explored) expect(onTrial).toContain(id);
  });

  it("with a subscription, the object (asking the library's object) and the snapshots of agent and library rank alike", async () => {
    const f = await seasoned();
    const lib = (method: string, path: string, body?: unknown) => call(method, `/v1/libraries${path}`, { key: f.t.apiKey, body });
    const libraryId = (await lib("POST", "", { name: "shared corpus" })).body.libraryId as string;
    for (const [n, e] of corpus(40, 47).entries()) {
      const body = { text: `${e.text} [shared]`, tags: e.tags, ...(n % 6 === 0 ? { when: `when the ${e.tags[0]} rollout stalls` } : {}) };
      expect((await lib("POST", `/${libraryId}/experiences`, body)).status).toBe(201);
    }
    expect((await f.api("PUT", `/subscriptions/${libraryId}`, { weight: 0.8 })).status).toBe(200);
    // The agent's own Q of some shared lessons moves away from the default.
    for (const [n, q] of queries(8, 17).entries()) {
      const r = await f.api("POST", "/retrieve", { query: q, k2: 20, consistency: "strong" });
      const cited = r.body.items
        .filter((i: { libraryId?: string }) => i.libraryId)
        .slice(0, 2)
        .map((i: { id: string }) => i.id);
      expect(
        (await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: n % 2 ? "success" : "failure", citedIds: cited }))
          .status,
      ).toBe(200);
    }
    const libraryStub = stubOf(f.t.tenantId, `library:${libraryId}`);
    const libraryBytes = await runInDurableObject(libraryStub, async (obj) =>
      encodeSnapshot(await (obj as any).rooms.readModel.snapshot()),
    );
    const variants: { kinds: MemoryKind[]; k1: number; k2: number; lambda: number; filter?: MemoryFilter }[] = [
      { kinds: ["experience", "case"], k1: 20, k2: 8, lambda: 0.5 },
      { kinds: ["experience"], k1: 40, k2: 15, lambda: 0.9 },
      { kinds: ["experience"], k1: 20, k2: 10, lambda: 0.3, filter: { tags: ["db", "api"] } },
    ];
    const compared = await runInDurableObject(stubOf(f.t.tenantId, f.agentId), async (obj) => {
      const rooms = (obj as any).rooms;
      const reader = new SnapshotReader(decodeSnapshot(encodeSnapshot(await rooms.readModel.snapshot())), int8Scan);
      expect(reader.snapshot.subscriptions).toEqual([{ libraryId, weight: 0.8, pinVersion: null }]);
      expect(reader.snapshot.shared.length).toBeGreaterThan(0);
      const libraries = [{ libraryId, weight: 0.8, reader: new SnapshotReader(decodeSnapshot(libraryBytes), int8Scan) }];
      let shared = 0;
      for (const text of [...queries(12, 29), "roll back the release", "flaky fixture seed data"]) {
        const vec = (await rooms.retrieval.embedQuery(text)).vec as Float32Array;
        for (const v of variants) {
          const now = Date.now();
          const threshold = rooms.retrieval.threshold();
          const req: RankingRequest = { query: { text, vec }, ...v, threshold, reranker: rooms.retrieval.reranker.current().state, now };
          const fromObject = await rankFrom(rooms.retrieval, req, (own) =>
            rooms.retrieval.shared.merge(own, req.query, req.k1, threshold, v.filter, (_: string, err: unknown) => {
              throw err;
            }),
          );
          const fromSnapshots = await reader.at(now, { text, vec }, libraries).rank(v, v.filter);
          expect(fromSnapshots.candidates).toBe(fromObject.candidates);
          // A small library sums BM25 over every query term, FTS5 and the snapshot in their own orders: equal to the last bits.
          expect(roundedDeep(fromSnapshots.ranked)).toEqual(roundedDeep(fromObject.ranked));
          shared += fromObject.ranked.filter((r) => r.info.shared).length;
        }
      }
      return shared;
    });
    expect(compared).toBeGreaterThan(10);
  }, 90_000);

  it("over HTTP, an edge read and a strong read of the same version answer the same items in the same order", async () => {
    const f = await seasoned();
    // A read key's reads count no use, so neither read moves what the other ranks on (last use sets recency).
    const reader = await newKey(f.t.apiKey, "read");
    const read = (body: unknown) => call("POST", `/v1/agents/${f.agentId}/retrieve`, { key: reader.apiKey, body });
    for (const query of queries(8, 31)) {
      const strong = await read({ query, k2: 10, consistency: "strong" });
      const edge = await read({ query, k2: 10 });
      expect(strong.body).toMatchObject({ servedFrom: "object", fallbackReason: "strong", snapshotAgeMs: 0 });
      expect(edge.body).toMatchObject({ servedFrom: "edge", libraryVersion: strong.body.libraryVersion });
      expect(edge.body.fallbackReason).toBeUndefined();
      expect(edge.body.candidates).toBe(strong.body.candidates);
      expect(edge.body.items.map((i: { id: string }) => i.id)).toEqual(strong.body.items.map((i: { id: string }) => i.id));
      edge.body.items.forEach((item: Record<string, unknown>, i: number) => {
        const other = strong.body.items[i];
        for (const field of ["sim", "lexical", "relevance", "q", "score"]) expect(item[field]).toBeCloseTo(other[field], 9);
        expect(item.channels).toEqual(other.channels);
        expect(item.label).toBe(other.label);
      });
    }
  });
});

/** A Worker whose reads at the edge may serve a snapshot up to `bound` ms old (the test environment's is 0). */
const boundedWorker = (bound: number, vars: Record<string, string> = {}) => probedWorker({}, { READ_STALENESS_MS: String(bound), ...vars });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function oneLesson() {
  const f = await agentFixture();
  const first = await f.api("POST", "/experiences", { text: "Pin the container image digest before a rollout" });
  expect(first.status).toBe(201);
  return { ...f, first: first.body as { id: string; libraryVersion: number } };
}

describe("freshness of reads at the edge", () => {
  const BOUND = 600;

  it("a new lesson: an answer without it is never older than the bound; past the bound, or with minVersion, it is there", async () => {
    const f = await oneLesson();
    const w = boundedWorker(BOUND);
    const read = (extra: Record<string, unknown> = {}) =>
      w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "rollout image digest canary", ...extra });
    expect((await read()).body).toMatchObject({ servedFrom: "edge", libraryVersion: f.first.libraryVersion });

    const added = await f.api("POST", "/experiences", { text: "Bake the canary rollout for ten minutes before promoting it" });
    expect(added.status).toBe(201);
    const soon = await read();
    expect(soon.body.servedFrom).toBe("edge");
    if (soon.body.libraryVersion < added.body.libraryVersion) {
      expect(soon.body.items.map((i: { id: string }) => i.id)).not.toContain(added.body.id);
      expect(soon.body.snapshotAgeMs).toBeLessThanOrEqual(BOUND);
    }
    // Read-your-writes: the version the write answered.
    const mine = await read({ minVersion: added.body.libraryVersion });
    expect(mine.body).toMatchObject({ servedFrom: "edge" });
    expect(mine.body.libraryVersion).toBeGreaterThanOrEqual(added.body.libraryVersion);
    expect(mine.body.items.map((i: { id: string }) => i.id)).toContain(added.body.id);
    // One trip to the object at most: none when the read before started a refresh (a write slower
    // than half the bound) that had landed by then.
    expect(mine.trips.AGENT_MEMORY).toBeLessThanOrEqual(1);

    const another = await f.api("POST", "/experiences", { text: "Roll back a canary whose error rate doubles" });
    await pause(BOUND + 50);
    const later = await read();
    expect(later.body.libraryVersion).toBe(another.body.libraryVersion);
    expect(later.body.items.map((i: { id: string }) => i.id)).toContain(another.body.id);
  });

  it("minVersion beyond the agent's library version waits for it, then answers 409 version-not-reached; edge and object alike", async () => {
    const f = await oneLesson();
    const w = boundedWorker(BOUND);
    const ahead = f.first.libraryVersion + 3;
    for (const refused of [
      await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image", minVersion: ahead }),
      await w.call("GET", `/v1/agents/${f.agentId}/prompt?query=container&minVersion=${ahead}`, f.t.apiKey),
      await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, {
        query: "container image",
        minVersion: ahead,
        consistency: "strong",
      }),
    ]) {
      expectProblem(refused, 409, "version-not-reached");
      expect(refused.body).toMatchObject({ minVersion: ahead, libraryVersion: f.first.libraryVersion, errors: [{ path: "minVersion" }] });
      // It asked again while it waited: a write in flight would have been seen.
      expect(refused.trips.AGENT_MEMORY).toBeGreaterThan(1);
    }
    const upTo = await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, {
      query: "container image",
      minVersion: f.first.libraryVersion,
    });
    expect(upTo.status).toBe(200);
  });

  it("a read whose minVersion a write in flight reaches answers from that version", async () => {
    const f = await oneLesson();
    let write: Promise<{ body: { id: string; libraryVersion: number } }> | null = null;
    // The write starts once the read has found the agent short of the version it asks for.
    const w = probedWorker(
      {
        after: (_binding, op) => {
          if (op === "readModel" && !write) write = f.api("POST", "/experiences", { text: "Bake the canary rollout before promoting it" });
        },
      },
      { READ_STALENESS_MS: String(BOUND) },
    );
    const wanted = f.first.libraryVersion + 1;
    const read = await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "canary rollout", minVersion: wanted });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const written = await write!;
    expect(written.body.libraryVersion).toBe(wanted);
    expect(read.body).toMatchObject({ servedFrom: "edge", libraryVersion: wanted });
    expect(read.body.items.map((i: { id: string }) => i.id)).toContain(written.body.id);
  });

  it("a quarantined lesson leaves reads at the edge within the bound, and the prompt with it", async () => {
    const f = await oneLesson();
    const w = boundedWorker(BOUND);
    const prompt = () => w.call("GET", `/v1/agents/${f.agentId}/prompt?query=container%20image`, f.t.apiKey);
    expect((await prompt()).body.experienceIds).toEqual([f.first.id]);
    const held = await f.api("PATCH", `/experiences/${f.first.id}`, { status: "quarantined" });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    const soon = await prompt();
    if (soon.body.experienceIds.includes(f.first.id)) expect(soon.body.snapshotAgeMs).toBeLessThanOrEqual(BOUND);
    await pause(BOUND + 50);
    const later = await prompt();
    expect(later.body).toMatchObject({ servedFrom: "edge", experienceIds: [], libraryVersion: held.body.libraryVersion });
  });

  it("a revoked key is refused by reads at the edge within the bound, though this isolate's key cache still holds it", async () => {
    const f = await oneLesson();
    const w = boundedWorker(BOUND);
    const reader = await newKey(f.t.apiKey, "read");
    const read = () => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, reader.apiKey, { query: "container image" });
    expect((await read()).status).toBe(200);
    // Revoked in D1 only, as another isolate's revocation looks from here: the key cache still says active.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(Date.now(), reader.id).run();
    expect((await w.call("GET", `/v1/agents/${f.agentId}/experiences/${f.first.id}`, reader.apiKey)).status).toBe(200);
    await pause(BOUND + 50);
    expectProblem(await read(), 401, "unauthorized");
  });

  it("a deleted agent is not found by reads at the edge within the bound", async () => {
    const f = await oneLesson();
    const w = boundedWorker(BOUND);
    const read = () => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image" });
    expect((await read()).status).toBe(200);
    expect((await f.api("DELETE", "")).status).toBe(200);
    await pause(BOUND + 50);
    expectProblem(await read(), 404, "not-found");
  });

  it("a reward reaches the edge as a delta of what it taught, not a new snapshot", async () => {
    const f = await oneLesson();
    const stub = stubOf(f.t.tenantId, f.agentId);
    const have = await runInDurableObject(stub, async (obj) => {
      const answer = await (obj as any).rooms.readModel.answer(null, 1 << 24);
      expect(answer.kind).toBe("snapshot");
      const s = decodeSnapshot(answer.bytes);
      return { incarnation: s.incarnation, contentVersion: s.contentVersion, learnSeq: s.learnSeq };
    });
    const r = await f.api("POST", "/retrieve", { query: "container image digest" });
    expect((await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: "success" })).status).toBe(200);
    const q = (await f.api("GET", `/experiences/${f.first.id}`)).body.q;
    const answer = await runInDurableObject(stub, (obj) => (obj as any).rooms.readModel.answer(have, 1 << 24));
    expect(answer.kind).toBe("delta");
    expect(answer.delta.items).toEqual([expect.objectContaining({ id: f.first.id, q })]);
    expect(answer.delta.usage.map((u: { id: string }) => u.id)).toEqual([f.first.id]);
    const current = await runInDurableObject(stub, (obj) =>
      (obj as any).rooms.readModel.answer({ ...have, learnSeq: answer.delta.learnSeq }, 1 << 24),
    );
    expect(current.kind).toBe("current");
    // The edge applies it: its read shows the reward's Q.
    const edge = await f.api("POST", "/retrieve", { query: "container image digest" });
    expect(edge.body.items[0]).toMatchObject({ id: f.first.id, q });
  });

  it("serves stale while it revalidates in the background once past half the bound", async () => {
    const f = await oneLesson();
    const w = boundedWorker(BOUND);
    const read = () => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image" });
    const start = Date.now();
    const clock = vi.spyOn(Date, "now");
    try {
      clock.mockReturnValue(start);
      expect((await read()).trips.AGENT_MEMORY).toBe(1);
      clock.mockReturnValue(start + BOUND / 4);
      const young = await read();
      expect(young.trips.ops).not.toContain("AGENT_MEMORY.readModel");
      clock.mockReturnValue(start + (3 * BOUND) / 4);
      const aging = await read();
      expect(aging.body).toMatchObject({ servedFrom: "edge", snapshotAgeMs: (3 * BOUND) / 4 });
      expect(aging.trips.ops).toContain("AGENT_MEMORY.readModel");
      const renewed = await read();
      expect(renewed.body.snapshotAgeMs).toBe(0);
      expect(renewed.trips.ops).not.toContain("AGENT_MEMORY.readModel");
    } finally {
      clock.mockRestore();
    }
  });
});

describe("where a Worker keeps snapshots", () => {
  it("a fresh isolate takes the snapshot from its location's cache and asks the object only what changed since", async () => {
    const f = await oneLesson();
    const w = boundedWorker(60_000);
    const read = () => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image" });
    const first = await read();
    expect(first.body.servedFrom).toBe("edge");
    const r = await f.api("POST", "/retrieve", { query: "container image digest" });
    expect((await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: "success" })).status).toBe(200);
    forgetReadModels();
    const asked = vi.spyOn(ReadModel.prototype, "answer");
    try {
      const fresh = await read();
      expect(fresh.body).toMatchObject({ servedFrom: "edge", libraryVersion: first.body.libraryVersion });
      expect(fresh.body.items[0].q).toBeCloseTo((await f.api("GET", `/experiences/${f.first.id}`)).body.q, 12);
      expect(asked).toHaveBeenCalledTimes(1);
      expect(asked.mock.calls[0]![0]).toMatchObject({ contentVersion: expect.any(Number) });
      expect((await asked.mock.results[0]!.value).kind).toBe("delta");
      // Confirmed, it is the isolate's own now: the next read asks nothing.
      expect((await read()).body.servedFrom).toBe("edge");
      expect(asked).toHaveBeenCalledTimes(1);
    } finally {
      asked.mockRestore();
    }
  });
});

describe("what reads at the edge leave to the object", () => {
  it("reads in an episode, strong reads and query words outside ASCII are answered by the object, saying why", async () => {
    const f = await oneLesson();
    const episode = await f.api("POST", "/episodes", { task: "Roll out the new image" });
    const inEpisode = await f.api("POST", "/retrieve", { query: "container image", episodeId: episode.body.id });
    expect(inEpisode.body).toMatchObject({ servedFrom: "object", fallbackReason: "episode", snapshotAgeMs: 0 });
    expect(inEpisode.body.retrievalId).toMatch(/^ret_/);
    const accented = await f.api("POST", "/retrieve", { query: "déployer l'image du conteneur" });
    expect(accented.body).toMatchObject({ servedFrom: "object", fallbackReason: "query-words" });
    const prompt = await f.api("GET", "/prompt?consistency=strong");
    expect(prompt.body).toMatchObject({ servedFrom: "object", fallbackReason: "strong" });
  });

  it("a snapshot over the size limit sends reads to the object, which is not asked to build it again on every read", async () => {
    const f = await oneLesson();
    const w = boundedWorker(60_000, { READ_SNAPSHOT_MAX_BYTES: "200" });
    const read = () => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image" });
    const first = await read();
    expect(first.body).toMatchObject({ servedFrom: "object", fallbackReason: "too-large" });
    expect(first.body.items.map((i: { id: string }) => i.id)).toEqual([f.first.id]);
    const second = await read();
    expect(second.body.fallbackReason).toBe("too-large");
    // The agent's retriever state says how large its snapshot is.
    expect((await f.api("GET", "/retriever")).body.snapshot.bytes).toBeGreaterThan(200);
    // Use counters travel in their own batches (listed, not the read's own call).
    expect(second.trips.ops.filter((op) => op.startsWith("AGENT_MEMORY") && op !== "AGENT_MEMORY.applyRetrievalCounts")).toEqual([
      "AGENT_MEMORY.retrieve",
    ]);
  });

  it("a library whose texts and vectors alone are over the limit is refused without building a snapshot", async () => {
    const f = await oneLesson();
    const built = vi.spyOn(ReadModel.prototype, "snapshot");
    try {
      const w = boundedWorker(60_000, { READ_SNAPSHOT_MAX_BYTES: "20" });
      const r = await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image" });
      expect(r.body).toMatchObject({ servedFrom: "object", fallbackReason: "too-large" });
      expect(built).not.toHaveBeenCalled();
    } finally {
      built.mockRestore();
    }
  });

  it("an agent that subscribes is served at the edge with its shared lessons once its snapshot lists the subscription, within the bound", async () => {
    const f = await oneLesson();
    const BOUND = 600;
    const w = boundedWorker(BOUND);
    const read = () => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image rollout" });
    expect((await read()).body).toMatchObject({ servedFrom: "edge" });
    const library = await call("POST", "/v1/libraries", { key: f.t.apiKey, body: { name: "rollouts" } });
    expect(library.status, JSON.stringify(library.body)).toBe(201);
    const { libraryId } = library.body;
    const shared = await call("POST", `/v1/libraries/${libraryId}/experiences`, {
      key: f.t.apiKey,
      body: { text: "Roll the container image out to one region before the rest" },
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect((await f.api("PUT", `/subscriptions/${libraryId}`, {})).status).toBe(200);
    // The subscription is content of the agent's read model: the snapshot this isolate holds is replaced at its next revalidation.
    await pause(BOUND + 50);
    const subscribed = await read();
    expect(subscribed.body.servedFrom).toBe("edge");
    expect(subscribed.body.items).toContainEqual(expect.objectContaining({ id: shared.body.id, libraryId }));
    expect(subscribed.body.items).toContainEqual(expect.objectContaining({ id: f.first.id }));
    const prompt = await w.call("GET", `/v1/agents/${f.agentId}/prompt?query=container%20image`, f.t.apiKey);
    expect(prompt.body).toMatchObject({ servedFrom: "edge" });
    expect(prompt.body.prompt).toContain("Roll the container image out to one region before the rest");
  });

  it("an isolate's snapshots never take more than its byte budget", async () => {
    const budget = 400_000;
    const w = boundedWorker(60_000, { READ_CACHE_BYTES: String(budget) });
    const held = [];
    for (let i = 0; i < 6; i++) {
      const f = await agentFixture();
      const operations = corpus(150, i).map((e) => ({ op: "create", experience: { text: e.text, tags: e.tags } }));
      expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
      const r = await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "flaky fixture" });
      expect(r.body.servedFrom).toBe("edge");
      held.push(readModelsHeld(w.env));
      expect(held.at(-1)!.bytes).toBeLessThanOrEqual(budget);
    }
    expect(held.at(-1)!.agents).toBeLessThan(6);
    expect(held.at(-1)!.agents).toBeGreaterThan(0);
  });
});

describe("reads at the edge over MCP", () => {
  it("pull_experiences and get_prompt say what they were ranked on, take minVersion, and read through the object when asked", async () => {
    const f = await oneLesson();
    const tool = await mcpTool(f.t.apiKey);
    const pulled = await tool("pull_experiences", {
      agentId: f.agentId,
      query: "container image digest",
      minVersion: f.first.libraryVersion,
    });
    expect(pulled.isError, JSON.stringify(pulled.content)).toBeFalsy();
    expect(pulled.structuredContent).toMatchObject({
      servedFrom: "edge",
      libraryVersion: f.first.libraryVersion,
      items: [expect.objectContaining({ id: f.first.id })],
    });
    const strong = await tool("get_prompt", { agentId: f.agentId, query: "container image", consistency: "strong" });
    expect(strong.structuredContent).toMatchObject({ servedFrom: "object", fallbackReason: "strong", experienceIds: [f.first.id] });
  });
});
