import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { SqlVectorItems } from "../../durable-objects/agent-memory/vectors/items";
import { decodeSnapshot } from "../../src/core/ranking/snapshot";
import { agentFixture } from "./setup";

type Stub = DurableObjectStub<AgentMemory>;

/** Tables that grow with the library, its retrievals or its history: a statement must find its rows in them by an index. */
const GROWING = [
  "experiences",
  "cases",
  "vectors",
  "vector_slots",
  "vector_pages",
  "q_history",
  "usage_memory",
  "retrievals",
  "library_changes",
  "library_versions",
  "read_changes",
  "read_content_changes",
  "read_fts_log",
  "teach_counts",
  "rewarded_tokens",
];

/**
 * Whether a plan step of `query` visits every row of a GROWING table (named, or by its alias in
 * the query): a scan (but of a `partial` index), or a search whose only constraint is the status.
 */
function visitsAll(detail: string, query: string, partial: ReadonlySet<string>): boolean {
  const tables = new Map(GROWING.map((t) => [t, t]));
  for (const [, table, alias] of query.matchAll(/\b(?:FROM|JOIN)\s+(\w+)\s+(?:AS\s+)?(\w+)/gi))
    if (GROWING.includes(table!)) tables.set(alias!, table!);
  // A partial index holds only the rows its WHERE admits: reading it whole visits those alone.
  const scan = /^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?$/.exec(detail);
  if (scan) return tables.has(scan[1]!) && !partial.has(scan[2] ?? "");
  const search = /^SEARCH (\w+) USING (?:COVERING )?INDEX \w+ \(([^)]*)\)$/.exec(detail);
  return search !== null && tables.has(search[1]!) && search[2]!.split(" AND ").every((c) => /^status[=<>]/.test(c));
}

/**
 * Runs `work` in the agent's object with every SQL statement it executes recorded, then answers
 * the plan steps that visit every row of a GROWING table (see visitsAll): work that does costs
 * time proportional to the library on every call.
 */
async function scansDuring(stub: Stub, work: (obj: AgentMemory) => Promise<unknown>): Promise<string[]> {
  return runInDurableObject(stub, async (obj, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec.bind(sql);
    const seen = new Map<string, SqlStorageValue[]>();
    sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
      seen.set(query, bindings);
      return exec(query, ...bindings);
    }) as typeof sql.exec;
    try {
      await work(obj as unknown as AgentMemory);
    } finally {
      sql.exec = exec;
    }
    const scans: string[] = [];
    const partial = new Set(
      exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'")
        .toArray()
        .map((r) => r.name),
    );
    for (const [query, bindings] of seen) {
      if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)/i.test(query)) continue;
      // A LIMIT without an ORDER BY stops after that many rows.
      if (/\bLIMIT\b/i.test(query) && !/\bORDER BY\b/i.test(query)) continue;
      for (const step of exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, ...bindings)) {
        if (visitsAll(step.detail, query, partial)) scans.push(`${step.detail}  ←  ${query.replace(/\s+/g, " ").trim()}`);
      }
    }
    return scans;
  });
}

describe("the object's hot writes do not scan the library", () => {
  it("a reward, by retrieval and by memory ids, finds every row it reads or writes by an index", async () => {
    const f = await agentFixture();
    const operations = Array.from({ length: 40 }, (_, i) => ({
      op: "create",
      experience: { text: `Check the retry budget of service ${i} before raising its timeout` },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    const r = await f.api("POST", "/retrieve", { query: "retry budget timeout", consistency: "strong" });
    expect(r.body.items.length).toBeGreaterThan(0);
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
    const ids = r.body.items.map((i: { id: string }) => i.id);
    const byRetrieval = await scansDuring(stub, (obj) => obj.reward({ reward: { retrievalId: r.body.retrievalId, outcome: "success" } }));
    const byIds = await scansDuring(stub, (obj) => obj.reward({ reward: { memoryIds: ids.slice(0, 3), reward: 0.5 } }));
    expect([...byRetrieval, ...byIds]).toEqual([]);
    // The rewards landed: the statements seen are the ones that did the work.
    const after = await f.api("GET", `/experiences/${ids[0]}`);
    expect(after.body.q).not.toBe(0);
  });

  it("a new lesson and a new case find every row they read or write by an index", async () => {
    const f = await agentFixture();
    const operations = Array.from({ length: 40 }, (_, i) => ({
      op: "create",
      experience: { text: `Drain the queue of worker ${i} before a deploy` },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    expect((await f.api("POST", "/cases", { task: "Deploy the worker fleet", reward: 1 })).status).toBe(201);
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
    const lesson = await scansDuring(stub, (obj) =>
      obj.createExperience({ experience: { text: "Pin the base image digest in every Dockerfile" }, author: "test" }),
    );
    const kase = await scansDuring(stub, (obj) =>
      obj.createCase({ case: { task: "Roll back the failed canary", reward: -0.5, episodeId: "ep-canary" } }),
    );
    expect([...lesson, ...kase]).toEqual([]);
    expect((await f.api("GET", "/experiences?limit=100")).body.items.length).toBe(41);
  });

  it("a Worker one write behind gets its delta without visiting every lesson or case", async () => {
    const f = await agentFixture();
    const operations = Array.from({ length: 40 }, (_, i) => ({
      op: "create",
      experience: { text: `Warm the cache of shard ${i} before the traffic switch`, ...(i % 8 ? {} : { when: `shard ${i} goes cold` }) },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    expect((await f.api("POST", "/cases", { task: "Switch the traffic to the new shards", reward: 1 })).status).toBe(201);
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
    type Model = { answer(have: unknown, maxBytes: number): Promise<{ kind: string; bytes?: Uint8Array }> };
    const model = (obj: AgentMemory) => (obj as unknown as { rooms: { readModel: Model } }).rooms.readModel;
    const have = await runInDurableObject(stub, async (obj) => {
      const first = await model(obj as unknown as AgentMemory).answer(null, 1 << 28);
      expect(first.kind).toBe("snapshot");
      const s = decodeSnapshot(first.bytes!);
      return { incarnation: s.incarnation, contentVersion: s.contentVersion, learnSeq: s.learnSeq };
    });
    expect(
      (await f.api("POST", "/experiences", { text: "Drain the old shard only after the switch", when: "a shard drains" })).status,
    ).toBe(201);
    expect((await f.api("POST", "/cases", { task: "Drain the old shard", reward: 0.5 })).status).toBe(201);
    let kind = "";
    const scans = await scansDuring(stub, async (obj) => {
      kind = (await model(obj).answer(have, 1 << 28)).kind;
    });
    expect(kind).toBe("delta");
    expect(scans).toEqual([]);
    // The edge's batch of use counts, which every few reads send, finds its items by id too.
    const listed = (await f.api("GET", "/experiences?limit=3")).body.items as { id: string }[];
    const counts = await scansDuring(stub, (obj) =>
      obj.applyRetrievalCounts({
        id: "batch-plans",
        items: listed.map((e) => ({ id: e.id, kind: "experience" as const, n: 2, lastUsedAt: Date.now() })),
        retrievals: [{ day: Math.floor(Date.now() / 86_400_000), n: 2 }],
      }),
    );
    expect(counts).toEqual([]);
    expect((await f.api("GET", `/experiences/${listed[0]!.id}`)).body.counts.retrieved).toBe(2);
  });

  it("labels follow each version's changes as the whole library read again gives them", async () => {
    const f = await agentFixture();
    const created = await f.api("POST", "/library/batch", {
      reason: "seed",
      operations: Array.from({ length: 12 }, (_, i) => ({
        op: "create",
        experience: { text: `Rotate the signing key of tenant ${i} yearly` },
      })),
    });
    const ids = (created.body.experiences as { id: string }[]).map((e) => e.id);
    const batches = [
      [
        { op: "archive", id: ids[2] },
        { op: "delete", id: ids[5] },
        { op: "create", experience: { text: "Revoke a leaked key at once" } },
      ],
      [
        { op: "update", id: ids[2], patch: { status: "active" } },
        { op: "update", id: ids[7], patch: { text: "Rotate keys monthly" } },
      ],
      [
        { op: "archive", id: ids[0] },
        { op: "archive", id: ids[11] },
      ],
    ];
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
    for (const operations of batches) {
      expect((await f.api("POST", "/library/batch", { reason: "change", operations })).status).toBe(200);
      const [kept, fresh] = await runInDurableObject(stub, (obj, state) => {
        const rows = state.storage.sql.exec<{ seq: number }>("SELECT seq FROM experiences ORDER BY seq").toArray();
        const library = (obj as unknown as { rooms: { library: { labelOf(seq: number): string | null; refreshLabels(): void } } }).rooms
          .library;
        const kept = rows.map((r) => library.labelOf(r.seq));
        library.refreshLabels();
        return [kept, rows.map((r) => library.labelOf(r.seq))];
      });
      expect(kept).toEqual(fresh);
      expect(kept.filter((l) => l !== null).length).toBe((await f.api("GET", "/experiences?limit=100&status=active")).body.items.length);
    }
  });

  it("the first retrieval after a restart reads the lessons' `when` codes without visiting every lesson", async () => {
    const f = await agentFixture();
    const operations = Array.from({ length: 40 }, (_, i) => ({
      op: "create",
      experience: {
        text: `Throttle the batch importer ${i} at night`,
        ...(i % 10 === 0 ? { when: `importer ${i} saturates the disk` } : {}),
      },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    expect((await f.api("POST", "/retrieve", { query: "importer saturates disk", consistency: "strong" })).status).toBe(200);
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
    await evictDurableObject(stub);
    let found = 0;
    const scans = await scansDuring(stub, async (obj) => {
      const answer = await obj.retrieve({ request: { query: "importer saturates the disk", consistency: "strong" } } as never);
      found = answer.ok ? answer.value.items.length : -1;
    });
    expect(scans).toEqual([]);
    expect(found).toBeGreaterThan(0);
  });

  it("a start reads the ids of archived items from an index of those alone", async () => {
    const f = await agentFixture();
    const created = await f.api("POST", "/library/batch", {
      reason: "seed",
      operations: Array.from({ length: 30 }, (_, i) => ({ op: "create", experience: { text: `Cache the lookup table of region ${i}` } })),
    });
    const ids = (created.body.experiences as { id: string }[]).map((e) => e.id);
    const operations = ids.slice(0, 10).map((id) => ({ op: "archive", id }));
    expect((await f.api("POST", "/library/batch", { reason: "archive", operations })).status).toBe(200);
    const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as Stub;
    let inactive: string[] = [];
    const scans = await scansDuring(stub, async (obj) => {
      inactive = new SqlVectorItems((obj as unknown as { ctx: DurableObjectState }).ctx.storage.sql).inactive();
    });
    expect(scans).toEqual([]);
    expect(inactive.sort()).toEqual(ids.slice(0, 10).sort());
  });
});
