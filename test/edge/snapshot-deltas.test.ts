import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import type { ReadModelAnswer, ReadModelVersion } from "../../durable-objects/agent-memory/retrieval/read-model";
import { ReadModel } from "../../durable-objects/agent-memory/retrieval/read-model";
import { decodeSnapshot, encodeSnapshot } from "../../src/core/ranking/snapshot";
import { SnapshotReader } from "../../src/core/ranking/snapshot-source";
import { rankFrom, type RankingRequest } from "../../src/core/ranking/rank";
import type { MemoryKind } from "../../src/core/memory-types";
import int8Scan from "../../src/adapters/vector-indexes/int8-scan.wasm";
import { memoryName } from "../../src/platform/objects/memory-name";
import { forgetReadModels } from "../../src/platform/edge/read-pipeline";
import { agentFixture } from "../memory/setup";
import { InMemoryVectorize } from "../doubles/vectorize";
import { probedWorker } from "./probe";

const WORDS = {
  deploy: ["canary", "rollout", "release", "health", "flag", "image", "drain", "promote"],
  db: ["index", "replica", "migration", "lock", "pool", "vacuum", "partition", "plan"],
  api: ["webhook", "cursor", "quota", "header", "token", "retry", "backoff", "status"],
};
const TAGS = Object.keys(WORDS) as (keyof typeof WORDS)[];
/** A seeded library: the same lessons on every run, with tags, some `when`s, metadata and domains. */
function lessons(n: number, seed: number) {
  let a = seed >>> 0;
  const pick = <T>(xs: readonly T[]) => {
    a = (Math.imul(a ^ (a >>> 15), 2654435761) + 0x6d2b79f5) >>> 0;
    return xs[a % xs.length]!;
  };
  return Array.from({ length: n }, (_, i) => {
    const tag = TAGS[i % TAGS.length]!;
    const w = WORDS[tag];
    return {
      text: `Check the ${pick(w)} and the ${pick(w)} before you touch the ${pick(w)} (${seed}.${i})`,
      tags: [tag],
      ...(i % 5 === 0 ? { when: `when the ${pick(w)} stalls` } : {}),
      ...(i % 4 === 0 ? { metadata: { team: i % 8 ? "core" : "edge" } } : {}),
      ...(i % 6 === 0 ? { domain: tag } : {}),
    };
  });
}
const QUERIES = ["canary rollout health", "replica lock migration", "webhook retry backoff header", "flag image release", "quota"];

const stubOf = (tenantId: string, agentId: string) =>
  env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;
const BIG = 1 << 28;
const versionOf = (r: SnapshotReader): ReadModelVersion => ({
  incarnation: r.snapshot.incarnation,
  contentVersion: r.snapshot.contentVersion,
  learnSeq: r.snapshot.learnSeq,
});

/** What a Worker does with the object's answer: a new reader for a snapshot, then the deltas in order. */
function applied(reader: SnapshotReader | null, answer: ReadModelAnswer): SnapshotReader {
  if (answer.kind === "snapshot") reader = new SnapshotReader(decodeSnapshot(answer.bytes), int8Scan);
  if (!reader || answer.kind === "unpublishable" || answer.kind === "current") throw new Error(`cannot apply ${answer.kind}`);
  if (answer.content) reader.applyContent(answer.content);
  if (answer.delta) reader.apply(answer.delta);
  return reader;
}

async function seed(n: number, seedNo: number, api: Awaited<ReturnType<typeof agentFixture>>["api"]): Promise<string[]> {
  const ids: string[] = [];
  const all = lessons(n, seedNo);
  for (let i = 0; i < all.length; i += 100) {
    const operations = all.slice(i, i + 100).map((experience) => ({ op: "create", experience }));
    const r = await api("POST", "/library/batch", { reason: "seed", operations });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    ids.push(...r.body.experiences.map((e: { id: string }) => e.id));
  }
  return ids;
}

/**
 * Inside the agent's object: the reader moved by deltas holds what a snapshot built now holds, and
 * ranks every query as that snapshot and the object's own storage do. Returns every id ranked.
 */
async function expectParity(stub: DurableObjectStub<AgentMemory>, reader: SnapshotReader): Promise<Set<string>> {
  return runInDurableObject(stub, async (obj) => {
    const rooms = (obj as any).rooms;
    const fresh = new SnapshotReader(decodeSnapshot(encodeSnapshot(await rooms.readModel.snapshot())), int8Scan);
    const [s, t] = [reader.snapshot, fresh.snapshot];
    expect(s.contentVersion).toBe(t.contentVersion);
    // A decoded item reads its text from the snapshot's packed texts, an applied one holds it.
    const plain = <T extends { text: string }>(items: T[]) => items.map((i) => ({ ...i, text: i.text }));
    expect(plain(s.lessons)).toEqual(plain(t.lessons));
    expect(plain(s.cases)).toEqual(plain(t.cases));
    expect(s.lexical).toEqual(t.lexical);
    expect(s.unembedded).toEqual(t.unembedded);
    expect({ anyWhen: s.anyWhen, config: s.config }).toEqual({ anyWhen: t.anyWhen, config: t.config });
    const ranked = new Set<string>();
    const variants: { kinds: MemoryKind[]; k1: number; k2: number; lambda: number }[] = [
      { kinds: ["experience", "case"], k1: 20, k2: 8, lambda: 0.5 },
      { kinds: ["experience"], k1: 40, k2: 15, lambda: 0.9 },
    ];
    for (const text of QUERIES) {
      const vec = (await rooms.retrieval.embedQuery(text)).vec as Float32Array;
      const ids = [...s.lessons, ...s.cases].map((i) => i.id);
      expect(await reader.vectorSimilarities(vec, ids)).toEqual(await fresh.vectorSimilarities(vec, ids));
      expect(reader.whenSimilar(vec, 50, -1)).toEqual(fresh.whenSimilar(vec, 50, -1));
      for (const v of variants) {
        const now = Date.now();
        const req: RankingRequest = {
          query: { text, vec },
          ...v,
          threshold: rooms.retrieval.threshold(),
          reranker: rooms.retrieval.reranker.current().state,
          now,
        };
        const fromStorage = await rankFrom(rooms.retrieval, req);
        expect(await rankFrom(reader.at(now, { text, vec }), req)).toEqual(fromStorage);
        expect(await rankFrom(fresh.at(now, { text, vec }), req)).toEqual(fromStorage);
        for (const r of fromStorage.ranked) ranked.add(r.id);
      }
    }
    return ranked;
  });
}

describe("incremental snapshots", () => {
  it("after adds, edits, quarantines, archives and deletes, a snapshot moved by deltas equals a fresh one and ranks as the object does", async () => {
    const f = await agentFixture();
    const ids = await seed(90, 3, f.api);
    for (const task of ["Promote the canary after the health check", "Rebuild the replica index"])
      expect((await f.api("POST", "/cases", { task, reward: 1, answer: `Done: ${task}` })).status).toBe(201);
    const stub = stubOf(f.t.tenantId, f.agentId);
    const ask = (have: ReadModelVersion | null) =>
      runInDurableObject(stub, (obj) => (obj as any).rooms.readModel.answer(have, BIG) as Promise<ReadModelAnswer>);
    let reader = applied(null, await ask(null));
    const step = async () => {
      const answer = await ask(versionOf(reader));
      expect(answer.kind).toBe("delta");
      expect(answer.kind === "delta" && answer.content).toBeTruthy();
      reader = applied(reader, answer);
      return expectParity(stub, reader);
    };
    const gone: string[] = [];

    const added = await f.api("POST", "/experiences", {
      text: "Drain the pool before the migration takes its lock",
      tags: ["db"],
      when: "when a migration waits on a lock",
    });
    expect(added.status).toBe(201);
    expect((await f.api("POST", "/cases", { task: "Backoff on the webhook quota", reward: 0, answer: "Waited" })).status).toBe(201);
    expect(await step()).toContain(added.body.id);

    expect(
      (await f.api("PATCH", `/experiences/${ids[1]}`, { text: "Pin the image digest before a canary rollout", tags: ["deploy", "db"] }))
        .status,
    ).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[5]}`, { when: "when the release flag flips" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[10]}`, { when: null, metadata: { team: "edge" } })).status).toBe(200);
    await step();

    expect((await f.api("PATCH", `/experiences/${ids[2]}`, { status: "quarantined" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[3]}`, { status: "archived" })).status).toBe(200);
    gone.push(ids[2]!, ids[3]!);
    const afterHolds = await step();
    for (const id of gone) expect(afterHolds).not.toContain(id);

    expect((await f.api("DELETE", `/experiences/${ids[4]}`)).status).toBe(200);
    expect((await f.api("DELETE", `/quarantine/${ids[2]}`)).status).toBe(200);
    expect((await f.api("DELETE", `/experiences/${added.body.id}`)).status).toBe(200);
    gone.push(ids[4]!, added.body.id);
    const afterDeletes = await step();
    for (const id of gone) expect(afterDeletes).not.toContain(id);
    for (const id of gone) expect(reader.snapshot.lessons.map((l) => l.id)).not.toContain(id);

    // Several changes of one item within one delta: the counts move from its text then to its text now.
    const twice = await f.api("POST", "/experiences", { text: "Vacuum the partition after the bulk delete", tags: ["db"] });
    expect(twice.status).toBe(201);
    expect((await f.api("PATCH", `/experiences/${twice.body.id}`, { text: "Vacuum the partition and replan the index" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${twice.body.id}`, { when: "when the partition bloats" })).status).toBe(200);
    const brief = await f.api("POST", "/experiences", { text: "Throttle the webhook retries under quota", tags: ["api"] });
    expect((await f.api("DELETE", `/experiences/${brief.body.id}`)).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[6]}`, { text: "Promote the release flag only after the canary" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[6]}`, { text: "Promote the release image after the health check" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[7]}`, { text: "Rotate the header token on a quota error" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[7]}`, { status: "archived" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[8]}`, { when: "when the cursor resets" })).status).toBe(200);
    expect((await f.api("PATCH", `/experiences/${ids[8]}`, { when: null })).status).toBe(200);
    await step();
    const held = new Map(reader.snapshot.lessons.map((l) => [l.id, l.text]));
    expect(held.get(twice.body.id)).toBe("Vacuum the partition and replan the index");
    expect(held.get(ids[6]!)).toBe("Promote the release image after the health check");
    expect(held.has(brief.body.id) || held.has(ids[7]!)).toBe(false);

    // Brought back, and taught by rewards, as one more round of deltas.
    expect((await f.api("PATCH", `/experiences/${ids[3]}`, { status: "active" })).status).toBe(200);
    for (const query of QUERIES.slice(0, 3)) {
      const r = await f.api("POST", "/retrieve", { query, consistency: "strong" });
      const cited = r.body.items.slice(0, 1).map((i: { id: string }) => i.id);
      expect((await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: "success", citedIds: cited })).status).toBe(200);
    }
    await step();
  }, 120_000);

  it("a Worker that missed many deltas, and compactions since, converges on a snapshot; deltas stay small meanwhile", async () => {
    const f = await agentFixture();
    await seed(60, 5, f.api);
    const stub = stubOf(f.t.tenantId, f.agentId);
    const ask = (have: ReadModelVersion | null) =>
      runInDurableObject(stub, async (obj) => {
        const model = (obj as any).rooms.readModel;
        const answer = (await model.answer(have, BIG)) as ReadModelAnswer;
        // A compaction the answer started runs on in the object; let it land before the next write.
        await model.building;
        return answer;
      });
    const floor = () =>
      runInDurableObject(
        stub,
        (_obj, state) => state.storage.sql.exec<{ value: number }>("SELECT value FROM counters WHERE name = 'read_floor'").one().value,
      );
    const behind = applied(null, await ask(null));
    let current = applied(null, await ask(null));
    // Each round is smaller than a delta may be; the rounds add up past the compaction's mark, twice.
    for (let round = 0; round < 8 && (await floor()) <= behind.snapshot.contentVersion; round++) {
      await seed(120, 100 + round, f.api);
      const answer = await ask(versionOf(current));
      expect(answer.kind).toBe("delta");
      current = applied(current, answer);
    }
    expect(await floor()).toBeGreaterThan(behind.snapshot.contentVersion);
    await expectParity(stub, current);
    const caughtUp = await ask(versionOf(behind));
    expect(caughtUp.kind).toBe("snapshot");
    await expectParity(stub, applied(behind, caughtUp));
  }, 180_000);
});

describe("an agent searched in Vectorize", () => {
  it("is never published: the read model answers remote-index, and no snapshot is built", async () => {
    const f = await agentFixture();
    await seed(12, 9, f.api);
    const stub = stubOf(f.t.tenantId, f.agentId);
    const answers = await runInDurableObject(stub, async (obj) => {
      const instance = obj as any;
      const local = (await instance.rooms.readModel.answer(null, BIG)) as ReadModelAnswer;
      instance.env = { ...instance.env, VECTOR_INDEX: "vectorize", VECTORIZE: new InMemoryVectorize({ dimensions: 384 }) };
      instance.mem.vectors = await instance.buildVectorStore();
      await instance.mem.vectors.load();
      const remote = (await instance.rooms.readModel.answer(null, BIG)) as ReadModelAnswer;
      return { local: local.kind, remote: remote.kind === "unpublishable" ? remote.reason : remote.kind };
    });
    expect(answers).toEqual({ local: "snapshot", remote: "remote-index" });
  });
});

describe("an embedder change", () => {
  it("a Worker holding the old embedder's snapshot ends up on the new one's, as a fresh snapshot ranks", async () => {
    const f = await agentFixture();
    await seed(20, 13, f.api);
    const stub = stubOf(f.t.tenantId, f.agentId);
    const ask = (have: ReadModelVersion | null) =>
      runInDurableObject(stub, (obj) => (obj as any).rooms.readModel.answer(have, BIG) as Promise<ReadModelAnswer>);
    const held = applied(null, await ask(null));
    expect((await f.api("PATCH", "/config", { embedder: { provider: "semantic" } })).status).toBe(200);
    let answer = await ask(versionOf(held));
    // As revalidation does: a delta of another embedder's vectors is not applied, the Worker starts from nothing.
    const other = answer.kind === "delta" && answer.content !== null && answer.content.model !== held.snapshot.model;
    if (other) answer = await ask(null);
    const reader = applied(other ? null : held, answer);
    expect(reader.snapshot.model).not.toBe(held.snapshot.model);
    await expectParity(stub, reader);
  });
});

describe("the change log's bound", () => {
  it("the upkeep drops a long log of an agent no Worker asked about; a Worker holding an older version then converges on a snapshot", async () => {
    const f = await agentFixture();
    const ids = await seed(30, 7, f.api);
    const stub = stubOf(f.t.tenantId, f.agentId);
    const ask = (have: ReadModelVersion | null) =>
      runInDurableObject(stub, (obj) => (obj as any).rooms.readModel.answer(have, BIG) as Promise<ReadModelAnswer>);
    const held = applied(null, await ask(null));
    for (const id of ids.slice(0, 3)) expect((await f.api("DELETE", `/experiences/${id}`)).status).toBe(200);
    // A restarted object holds no base: nothing a Worker needs is kept for it.
    await evictDurableObject(stub);
    const trimmed = await runInDurableObject(stub, async (obj, state) => {
      const model = (obj as any).rooms.readModel;
      const sql = state.storage.sql;
      const kept = () => model.trimLog() as boolean;
      const short = kept();
      // As if many edits since: replaced texts past the bound.
      sql.exec(
        "INSERT INTO read_fts_log (seq, fts, item_id, body) SELECT (SELECT value FROM counters WHERE name = 'read_model'), 'experience', 'exp_gone', 'an old text' FROM json_each(?)",
        JSON.stringify(Array.from({ length: 1100 }, (_, i) => i)),
      );
      const long = kept();
      const left = sql
        .exec<{ n: number }>("SELECT (SELECT count(*) FROM read_content_changes) + (SELECT count(*) FROM read_fts_log) AS n")
        .one().n;
      return { short, long, left };
    });
    expect(trimmed).toEqual({ short: false, long: true, left: 0 });
    const caughtUp = await ask(versionOf(held));
    expect(caughtUp.kind).toBe("snapshot");
    const reader = applied(held, caughtUp);
    for (const id of ids.slice(0, 3)) expect(reader.snapshot.lessons.map((l) => l.id)).not.toContain(id);
    await expectParity(stub, reader);
  });
});

describe("write, then read your write at the edge", () => {
  it("applies a delta (the object builds no snapshot), and a deleted lesson never comes back, not from the location's cache either", async () => {
    const f = await agentFixture();
    const ids = await seed(40, 9, f.api);
    const w = probedWorker({}, { READ_STALENESS_MS: "60000" });
    const read = (extra: Record<string, unknown> = {}) =>
      w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "canary rollout health image", k2: 40, ...extra });
    expect((await read()).body.servedFrom).toBe("edge");
    const built = vi.spyOn(ReadModel.prototype, "snapshot");
    const asked = vi.spyOn(ReadModel.prototype, "answer");
    try {
      const added = await f.api("POST", "/experiences", { text: "Bake the canary rollout before you promote the image", tags: ["deploy"] });
      const mine = await read({ minVersion: added.body.libraryVersion });
      expect(mine.body).toMatchObject({ servedFrom: "edge" });
      expect(mine.body.items.map((i: { id: string }) => i.id)).toContain(added.body.id);
      expect(mine.trips.AGENT_MEMORY).toBe(1);
      expect((await asked.mock.results.at(-1)!.value).kind).toBe("delta");

      const shown = mine.body.items.map((i: { id: string }) => i.id).filter((id: string) => ids.includes(id));
      const doomed = [added.body.id, shown[0]];
      let version = 0;
      for (const id of doomed) version = (await f.api("DELETE", `/experiences/${id}`)).body.libraryVersion;
      const after = await read({ minVersion: version });
      expect(after.body.servedFrom).toBe("edge");
      for (const id of doomed) expect(after.body.items.map((i: { id: string }) => i.id)).not.toContain(id);
      expect(built).not.toHaveBeenCalled();

      // A fresh isolate starts from the snapshot in its location's cache, which still holds them.
      forgetReadModels();
      const fresh = await read();
      expect(fresh.body.servedFrom).toBe("edge");
      for (const id of doomed) expect(fresh.body.items.map((i: { id: string }) => i.id)).not.toContain(id);
      const strong = await read({ consistency: "strong" });
      expect(fresh.body.items.map((i: { id: string }) => i.id)).toEqual(strong.body.items.map((i: { id: string }) => i.id));
    } finally {
      built.mockRestore();
      asked.mockRestore();
    }
  });
});
