import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { decodeSnapshot, encodeSnapshot } from "../../src/core/ranking/snapshot";
import { SnapshotReader } from "../../src/core/ranking/snapshot-source";
import { rankFrom, type RankingRequest } from "../../src/core/ranking/rank";
import type { MemoryFilter, MemoryKind } from "../../src/core/memory-types";
import int8Scan from "../../src/adapters/vector-indexes/int8-scan.wasm";
import { memoryName } from "../../src/services/agent-memory";
import { agentFixture } from "../memory/setup";
import { call, newKey } from "../helpers";

const TOPICS: Record<string, { nouns: string[]; verbs: string[] }> = {
  deploy: { nouns: ["canary", "rollout", "release branch", "health check", "feature flag", "container image"], verbs: ["roll back", "pin", "promote", "verify", "drain"] },
  db: { nouns: ["query plan", "index", "connection pool", "replica lag", "schema migration", "lock timeout"], verbs: ["analyze", "batch", "retry", "partition", "throttle"] },
  api: { nouns: ["rate limit", "pagination cursor", "webhook", "idempotency key", "retry header", "status code 429"], verbs: ["validate", "paginate", "backoff", "sign", "deduplicate"] },
  testing: { nouns: ["flaky test", "fixture", "mock server", "seed data", "race condition", "integration suite"], verbs: ["isolate", "seed", "stub", "reproduce", "bisect"] },
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
    return { text: `When the ${pick(t.nouns)} misbehaves, ${pick(t.verbs)} the ${pick(t.nouns)} before you ${pick(t.verbs)} again (${i})`, tags: [tag] };
  });
}
function queries(n: number, seed: number) {
  const pick = picker(seed);
  return Array.from({ length: n }, () => {
    const t = TOPICS[pick(TAGS)]!;
    return `how do I ${pick(t.verbs)} a ${pick(t.nouns)} that keeps failing`;
  });
}

const stubOf = (tenantId: string, agentId: string) => env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;

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
  for (const task of ["Roll back the canary after the health check failed", "Paginate the webhook backlog with a cursor", "Seed the test database before the integration suite"]) {
    expect((await f.api("POST", "/cases", { task, reward: 1, answer: `Did it: ${task.toLowerCase()}` })).status).toBe(201);
  }
  // Enough rewards, good and bad, for usage memory and the learned re-ranker to take part.
  for (const [n, q] of queries(24, 5).entries()) {
    const r = await f.api("POST", "/retrieve", { query: q, consistency: "strong" });
    expect(r.status).toBe(200);
    const cited = r.body.items.slice(0, 1).map((i: { id: string }) => i.id);
    expect((await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: n % 3 ? "success" : "failure", citedIds: cited })).status).toBe(200);
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
          const req: RankingRequest = { query: { text, vec }, ...v, threshold: v.threshold ?? rooms.retrieval.threshold(), reranker: rooms.retrieval.reranker.current().state, now };
          const fromStorage = await rankFrom(rooms.retrieval, req);
          const fromSnapshot = await rankFrom(reader.at(now, { text, vec }), req);
          expect(fromSnapshot).toEqual(fromStorage);
          n += fromStorage.ranked.length;
        }
      }
      return n;
    });
    expect(compared).toBeGreaterThan(200);
  });

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
