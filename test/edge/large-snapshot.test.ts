import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { decodeSnapshot, encodeSnapshot } from "../../src/core/ranking/snapshot";
import { SnapshotReader } from "../../src/core/ranking/snapshot-source";
import { rankFrom, type RankingRequest } from "../../src/core/ranking/rank";
import { decodedBytes } from "../../src/core/ranking/snapshot-footprint";
import int8Scan from "../../src/adapters/vector-indexes/int8-scan.wasm";
import { memoryName } from "../../src/platform/objects/memory-name";
import { readModelsHeld } from "../../src/platform/edge/read-pipeline";
import { agentFixture } from "../memory/setup";
import { newKey } from "../helpers";
import { probedWorker, WARM_READS } from "./probe";

const MiB = 1024 * 1024;
const NOUNS = [
  "canary",
  "rollout",
  "query plan",
  "connection pool",
  "rate limit",
  "webhook",
  "fixture",
  "seed data",
  "replica lag",
  "feature flag",
];
const VERBS = ["roll back", "pin", "analyze", "batch", "backoff", "sign", "isolate", "bisect", "drain", "throttle"];

/** A lesson near the 600-character limit, its words drawn by `i`: the same library on every run. */
function lessonText(i: number): string {
  const parts: string[] = [];
  for (let n = 0; parts.join(" ").length < 520; n++) {
    const a = (i * 7 + n * 13) % NOUNS.length;
    const b = (i * 3 + n * 11) % VERBS.length;
    parts.push(`When the ${NOUNS[a]} misbehaves, ${VERBS[b]} the ${NOUNS[(a + n + 1) % NOUNS.length]} first (step ${n} of case ${i}).`);
  }
  return parts.join(" ").slice(0, 590);
}

describe("a library over the old 8 MiB gate", () => {
  it("is served at the edge under the default limits, ranked as its object ranks it", async () => {
    const f = await agentFixture();
    const LESSONS = 7_500;
    for (let i = 0; i < LESSONS; i += 500) {
      const operations = Array.from({ length: 500 }, (_, n) => ({
        op: "create",
        experience: { text: lessonText(i + n), tags: [NOUNS[(i + n) % NOUNS.length]!.split(" ")[0]!] },
      }));
      const r = await f.api("POST", "/library/batch", { reason: "seed", operations });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (let i = 0; i < 20; i++) {
      const task = `Drain the ${NOUNS[i % NOUNS.length]} before you ${VERBS[i % VERBS.length]} it again, case ${i}`;
      expect((await f.api("POST", "/cases", { task, reward: 1, answer: `Did it: ${task.toLowerCase()}` })).status).toBe(201);
    }
    const w = probedWorker({}, WARM_READS);
    // A read key's reads count no use, so no read moves what the next ranks on (last use sets recency).
    const key = (await newKey(f.t.apiKey, "read")).apiKey;
    const read = (query: string, more: object = {}) => w.call("POST", `/v1/agents/${f.agentId}/retrieve`, key, { query, k2: 10, ...more });
    const first = await read("roll back the canary rollout");
    expect(first.body, JSON.stringify(first.body)).toMatchObject({ servedFrom: "edge" });
    const published = (await f.api("GET", "/retriever")).body.snapshot.bytes as number;
    expect(published).toBeGreaterThan(8 * MiB);
    // What the isolate holds for it is the estimate, within its budget.
    const held = readModelsHeld(w.env);
    expect(held.agents).toBe(1);
    expect(held.bytes).toBeGreaterThan(published);
    expect(held.bytes).toBeLessThanOrEqual(held.budget);
    expect(held.bytes).toBeLessThan(decodedBytes(published, 0));

    // The same items, order and scores at the edge as through the object, over HTTP and ranking for ranking.
    const questions = [
      "roll back the canary rollout",
      "batch the query plan",
      "sign the webhook rate limit",
      "bisect the fixture seed data",
    ];
    for (const query of questions) {
      const edge = await read(query);
      const strong = await read(query, { consistency: "strong" });
      expect(edge.body.servedFrom).toBe("edge");
      expect(strong.body.servedFrom).toBe("object");
      expect(edge.body.items.length).toBe(10);
      expect(edge.body.items.map((i: { id: string }) => i.id)).toEqual(strong.body.items.map((i: { id: string }) => i.id));
      edge.body.items.forEach((item: Record<string, number>, i: number) => {
        for (const field of ["sim", "lexical", "relevance", "q", "score"]) expect(item[field]).toBeCloseTo(strong.body.items[i][field], 9);
      });
    }
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as DurableObjectStub<AgentMemory>;
    const compared = await runInDurableObject(stub, async (obj) => {
      const rooms = (obj as any).rooms;
      const reader = new SnapshotReader(decodeSnapshot(encodeSnapshot(await rooms.readModel.snapshot())), int8Scan);
      let n = 0;
      for (const text of [...questions, "drain the connection pool", "throttle replica lag", "pin the feature flag"]) {
        const vec = (await rooms.retrieval.embedQuery(text)).vec as Float32Array;
        const now = Date.now();
        const req: RankingRequest = {
          query: { text, vec },
          kinds: ["experience", "case"],
          k1: 40,
          k2: 10,
          lambda: 0.5,
          threshold: rooms.retrieval.threshold(),
          reranker: rooms.retrieval.reranker.current().state,
          now,
        };
        const fromStorage = await rankFrom(rooms.retrieval, req);
        expect(await rankFrom(reader.at(now, { text, vec }), req)).toEqual(fromStorage);
        n += fromStorage.ranked.length;
      }
      return n;
    });
    expect(compared).toBe(70);
  }, 300_000);
});
