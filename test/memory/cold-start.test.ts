import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { AGENT_MEMORY_SCHEMA } from "../../durable-objects/agent-memory/storage/schema";
import type { LocalVectorIndex } from "../../src/adapters/vector-indexes/local";
import { encodeCode } from "../../src/core/int8-matrix";
import { memoryName } from "../../src/platform/objects/memory-name";
import { call } from "../helpers";
import { agentFixture, undoStepsSinceAdmission } from "./setup";

type Stub = DurableObjectStub<AgentMemory>;
const memoryOf = (tenantId: string, agentId: string) => env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as Stub;

type PerKind = Record<"experience" | "case", string[]>;

interface Indexed {
  /** Per kind, every id the index returns for a query that admits any similarity, with its cosine. */
  hits: PerKind;
  /** Rows the index holds: an id it holds but cannot return (its vector gone) shows up here only. */
  size: number;
  missing: string[];
  /** The active items, per kind, as SQLite has them. */
  active: PerKind;
}

async function indexed(stub: Stub): Promise<Indexed> {
  return runInDurableObject(stub, async (obj, state) => {
    const vectors = (obj as any).mem.vectors;
    const index = vectors.index as LocalVectorIndex;
    const query = Float32Array.from({ length: index.dims }, (_, i) => Math.sin(i + 1));
    const hits: PerKind = { experience: [], case: [] };
    const active: PerKind = { experience: [], case: [] };
    for (const [kind, table] of [
      ["experience", "experiences"],
      ["case", "cases"],
    ] as const) {
      hits[kind] = (await index.query(query, { topK: 10_000, minSim: -1, kind })).map((h) => `${h.id} ${h.sim.toFixed(6)}`).sort();
      active[kind] = state.storage.sql
        .exec<{ id: string }>(`SELECT id FROM ${table} WHERE status = 'active'`)
        .toArray()
        .map((r) => r.id)
        .sort();
    }
    return { hits, size: index.size, missing: [...vectors.missingIds("experience"), ...vectors.missingIds("case")], active };
  });
}

/**
 * The code pages hold exactly one code per stored vector, equal to its quantised vector, where its
 * slot row says, and each model and kind's pages are full but the last.
 */
async function pagesMatchVectors(stub: Stub): Promise<number> {
  return runInDurableObject(stub, (_obj, state) => {
    const sql = state.storage.sql;
    const pages = sql
      .exec<{ model: string; kind: string; page: number; n: number; ids: string; codes: ArrayBuffer }>(
        "SELECT model, kind, page, n, ids, codes FROM vector_pages ORDER BY model, kind, page",
      )
      .toArray();
    const slots = new Map(
      sql
        .exec<{ item_id: string; model: string; kind: string; page: number; slot: number }>("SELECT * FROM vector_slots")
        .toArray()
        .map((s) => [`${s.item_id} ${s.model}`, s]),
    );
    const vectors = new Map(
      sql
        .exec<{ item_id: string; model: string; kind: string; vec: ArrayBuffer }>("SELECT item_id, model, kind, vec FROM vectors")
        .toArray()
        .map((v) => [`${v.item_id} ${v.model}`, v]),
    );
    const seen = new Set<string>();
    const groups = new Map<string, number[]>();
    for (const p of pages) {
      const ids = JSON.parse(p.ids) as string[];
      expect(ids.length).toBe(p.n);
      const width = p.codes.byteLength / p.n;
      ids.forEach((id, slot) => {
        const key = `${id} ${p.model}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
        expect(slots.get(key)).toEqual({ item_id: id, model: p.model, kind: p.kind, page: p.page, slot });
        const v = vectors.get(key)!;
        expect(v.kind).toBe(p.kind);
        expect(new Uint8Array(p.codes, slot * width, width)).toEqual(encodeCode(new Float32Array(v.vec)));
      });
      const sizes = groups.get(`${p.model} ${p.kind}`) ?? [];
      expect(p.page).toBe(sizes.length);
      groups.set(`${p.model} ${p.kind}`, [...sizes, p.n]);
    }
    for (const sizes of groups.values()) {
      for (const n of sizes.slice(0, -1)) expect(n).toBe(sizes[0]);
      expect(sizes.at(-1)!).toBeLessThanOrEqual(sizes[0]!);
    }
    expect([...seen].sort()).toEqual([...slots.keys()].sort());
    expect([...seen].sort()).toEqual([...vectors.keys()].sort());
    return pages.length;
  });
}

const lesson = (i: number) =>
  `Lesson ${i}: retry the ${["payments", "search", "billing", "upload"][i % 4]} API after ${i % 7} seconds when it answers 429`;

describe("a cold start", () => {
  it("rebuilds the index it had, from the code pages, after creates, updates, archives, deletes, rollbacks and imports", async () => {
    const { t, agentId, api } = await agentFixture();
    const stub = memoryOf(t.tenantId, agentId);
    // Several pages of 384-dimensional codes, so removals move codes across pages.
    const created = await api("POST", "/library/batch", {
      reason: "seed",
      operations: Array.from({ length: 400 }, (_, i) => ({ op: "create", experience: { text: lesson(i) } })),
    });
    expect(created.status).toBe(200);
    const ids: string[] = created.body.experiences.map((e: any) => e.id);
    const seeded = created.body.libraryVersion;
    const cases = [];
    for (let i = 0; i < 3; i++)
      cases.push((await api("POST", "/cases", { task: `Rebuild index ${i} after the schema change`, reward: 1 })).body.id);

    const edits = await api("POST", "/library/batch", {
      reason: "edit",
      operations: [
        ...[3, 170, 399].map((i) => ({ op: "update", id: ids[i], patch: { text: `Rewritten lesson ${i}: back off exponentially` } })),
        ...[5, 200, 398].map((i) => ({ op: "archive", id: ids[i] })),
        ...[0, 168, 250, 397].map((i) => ({ op: "delete", id: ids[i] })),
      ],
    });
    expect(edits.status).toBe(200);
    expect((await api("DELETE", `/cases/${cases[1]}`)).status).toBe(200);
    expect((await api("PATCH", `/cases/${cases[2]}`, { status: "archived" })).status).toBe(200);
    expect(
      (
        await api("POST", "/library/batch", {
          reason: "more",
          operations: [
            { op: "delete", id: ids[1] },
            { op: "create", experience: { text: "A lesson added late" } },
          ],
        })
      ).status,
    ).toBe(200);
    // Back to the seed: deleted lessons return, archived and rewritten ones are as they were, the late one goes.
    const rb = await api("POST", "/library/rollback", { version: seeded });
    expect(rb.status, JSON.stringify(rb.body)).toBe(200);
    expect((await api("DELETE", `/experiences/${ids[2]}`)).status).toBe(200);
    expect(
      (await api("POST", "/library/batch", { reason: "fade", operations: [10, 300].map((i) => ({ op: "archive", id: ids[i] })) })).status,
    ).toBe(200);

    const sourceId = `cold-src-${Date.now().toString(36)}`;
    await call("PUT", `/v1/agents/${sourceId}`, { key: t.apiKey, body: {} });
    const src = (m: string, p: string, body?: unknown) => call(m, `/v1/agents/${sourceId}${p}`, { key: t.apiKey, body });
    for (const text of ["Imported: pin dependency versions", "Imported: read the changelog before upgrading"])
      await src("POST", "/experiences", { text });
    expect((await api("POST", "/library/import", { mode: "merge", library: (await src("GET", "/library/export")).body })).status).toBe(200);

    const before = await indexed(stub);
    expect(before.hits.experience).toHaveLength(400 - 1 - 2 + 2);
    expect(before.hits.experience.map((h) => h.split(" ")[0]).sort()).toEqual(before.active.experience);
    expect(before.hits.case.map((h) => h.split(" ")[0])).toEqual([cases[0]]);
    expect(before.size).toBe(before.hits.experience.length + before.hits.case.length);
    expect(before.missing).toEqual([]);
    expect(await pagesMatchVectors(stub)).toBeGreaterThan(2);

    await evictDurableObject(stub);
    expect(await indexed(stub)).toEqual(before);
    const hit = await api("POST", "/retrieve", { query: "retry the payments API when it answers 429" });
    expect(hit.status).toBe(200);
    expect(hit.body.items.length).toBeGreaterThan(0);
    expect(hit.body.items.every((i: any) => before.active.experience.includes(i.id) || before.active.case.includes(i.id))).toBe(true);
  });

  it("loads an agent stored with one code row per memory, after the schema step that pages them", async () => {
    const { t, agentId, api } = await agentFixture();
    const stub = memoryOf(t.tenantId, agentId);
    const created = await api("POST", "/library/batch", {
      reason: "seed",
      operations: Array.from({ length: 200 }, (_, i) => ({ op: "create", experience: { text: lesson(i) } })),
    });
    const ids: string[] = created.body.experiences.map((e: any) => e.id);
    await api("PATCH", `/experiences/${ids[7]}`, { status: "archived" });
    await api("POST", "/cases", { task: "Rebuild the search index", reward: 1 });
    const before = await indexed(stub);

    await runInDurableObject(stub, (_obj, state) => {
      const sql = state.storage.sql;
      // The layout before the paging step: its schema version, its table, one code per stored vector.
      const paging = AGENT_MEMORY_SCHEMA.findIndex((step) => step.includes("CREATE TABLE vector_pages"));
      sql.exec("DROP TABLE vector_pages");
      sql.exec("DROP TABLE vector_slots");
      // The steps after paging are undone too, so the migration replays them as on an agent that old.
      undoStepsSinceAdmission(sql);
      sql.exec(AGENT_MEMORY_SCHEMA[paging - 1]!);
      for (const v of sql
        .exec<{ item_id: string; model: string; kind: string; vec: ArrayBuffer }>("SELECT item_id, model, kind, vec FROM vectors")
        .toArray()) {
        sql.exec(
          "INSERT INTO vector_codes (item_id, model, kind, code) VALUES (?, ?, ?, ?)",
          v.item_id,
          v.model,
          v.kind,
          encodeCode(new Float32Array(v.vec)),
        );
      }
      sql.exec("UPDATE _schema SET version = ?", paging);
    });
    await evictDurableObject(stub);

    expect(await indexed(stub)).toEqual(before);
    expect(before.hits.experience).toHaveLength(199);
    await pagesMatchVectors(stub);
    const version = await runInDurableObject(stub, (_obj, state) => ({
      schema: state.storage.sql.exec<{ version: number }>("SELECT version FROM _schema").one().version,
      tables: state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE name = 'vector_codes'").toArray(),
    }));
    expect(version).toEqual({ schema: AGENT_MEMORY_SCHEMA.length, tables: [] });
  });
});
