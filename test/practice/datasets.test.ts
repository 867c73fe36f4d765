import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectProblem, newAgent, newKey, newTenant, uniq } from "../helpers";
import { splitOf, unitHash } from "../../src/core/practice/split";
import { parseTaskLines } from "../../src/core/practice/dataset-types";
import { memoryName } from "../../src/platform/objects/memory-name";

type Tenant = Awaited<ReturnType<typeof newTenant>>;

const ndjson = (lines: unknown[]) => lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n";
const uploadNdjson = (key: string, datasetId: string, body: string) =>
  call("POST", `/v1/datasets/${datasetId}/tasks`, { key, raw: body, headers: { "content-type": "application/x-ndjson" } });

async function dataset(key: string, body: Record<string, unknown> = {}) {
  const r = await call("POST", "/v1/datasets", { key, body: { name: uniq("ds"), ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

async function allTasks(key: string, datasetId: string, query = "") {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const r: any = await call("GET", `/v1/datasets/${datasetId}/tasks?limit=7${query}${cursor ? `&cursor=${cursor}` : ""}`, { key });
    expect(r.status).toBe(200);
    items.push(...r.body.items);
    cursor = r.body.nextCursor;
  } while (cursor);
  return items;
}

describe("task splits", () => {
  it("a hash of the id decides, stably and roughly in proportion to the holdout fraction", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `task-${i + 1}`);
    for (const f of [0.1, 0.2, 0.5]) {
      const holdout = ids.filter((id) => splitOf(id, f) === "holdout").length;
      expect(holdout).toBeGreaterThan(1000 * f - 50);
      expect(holdout).toBeLessThan(1000 * f + 50);
    }
    expect(ids.map((id) => splitOf(id, 0.2))).toEqual(ids.map((id) => splitOf(id, 0.2)));
    expect(ids.filter((id) => splitOf(id, 0) === "holdout")).toEqual([]);
    // A larger fraction only moves tasks into the holdout split, never out of it.
    expect(ids.filter((id) => splitOf(id, 0.2) === "holdout" && splitOf(id, 0.5) === "train")).toEqual([]);
    expect(new Set(ids.map((id) => Math.floor(unitHash(id) * 10))).size).toBe(10);
  });

  it("NDJSON parsing numbers lines from 1 and skips blank ones", () => {
    const parsed = parseTaskLines('{"task":"a"}\n\n{"task":""}\nnot json\n');
    expect(parsed).toEqual({
      ok: false,
      tooMany: false,
      issues: [
        { line: 3, path: "task", message: "The task must not be blank" },
        { line: 4, path: "", message: "Not valid JSON" },
      ],
    });
  });
});

describe("datasets", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant();
  });

  it("creates, gets with counts per split, lists with a cursor and deletes", async () => {
    const created = await dataset(t.apiKey, {
      description: "arithmetic",
      holdoutFraction: 0.5,
      verifier: { kind: "numeric", absTol: 0.01 },
      tasks: [
        { id: "a", task: "1+1", groundTruth: "2", split: "train" },
        { id: "b", task: "2+2", groundTruth: "4", split: "holdout" },
        { id: "c", task: "name a colour", split: "holdout" },
      ],
    });
    expect(created.datasetId).toMatch(/^ds_/);
    expect(created).toMatchObject({
      description: "arithmetic",
      holdoutFraction: 0.5,
      verifier: { kind: "numeric", absTol: 0.01 },
      counts: { train: 1, holdout: 2, total: 3, withGroundTruth: 2 },
      upload: { inserted: 3, unchanged: 0, conflictCount: 0, conflicts: [] },
    });
    const got = await call("GET", `/v1/datasets/${created.datasetId}`, { key: t.apiKey });
    expect(got.status).toBe(200);
    const { upload: _upload, ...detail } = created;
    expect(got.body).toEqual(detail);

    const second = await dataset(t.apiKey);
    const third = await dataset(t.apiKey);
    expect(third.holdoutFraction).toBe(0.2);
    expect(third.verifier).toBeNull();
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await call("GET", `/v1/datasets?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: t.apiKey });
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      listed.push(...r.body.items.map((d: any) => d.datasetId));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(new Set(listed)).toEqual(new Set([created.datasetId, second.datasetId, third.datasetId]));
    expect(listed).toHaveLength(3);
    expectProblem(await call("GET", "/v1/datasets?cursor=bogus", { key: t.apiKey }), 400, "validation-failed");

    const del = await call("DELETE", `/v1/datasets/${created.datasetId}`, { key: t.apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ datasetId: created.datasetId, deleted: true });
    expectProblem(await call("GET", `/v1/datasets/${created.datasetId}`, { key: t.apiKey }), 404, "not-found");
    expectProblem(await call("DELETE", `/v1/datasets/${created.datasetId}`, { key: t.apiKey }), 404, "not-found");
    const left = await env.DB.prepare("SELECT count(*) AS n FROM dataset_tasks WHERE dataset_id = ?")
      .bind(created.datasetId)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    const audits = await env.DB.prepare("SELECT action FROM audit_log WHERE target = ? ORDER BY id")
      .bind(created.datasetId)
      .all<{ action: string }>();
    expect(audits.results.map((a) => a.action)).toEqual(["dataset.create", "dataset.delete"]);
  });

  it("re-uploading changes nothing; an id stored with other content is kept and reported", async () => {
    const ds = await dataset(t.apiKey);
    const tasks = [
      { id: "q1", task: "What is 6*7?", groundTruth: "42", metadata: { level: 1 } },
      { id: "q2", task: "What is 2^10?", groundTruth: "1024" },
      { task: "Spell 'cat' backwards", groundTruth: "tac" },
    ];
    const first = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, { key: t.apiKey, body: { tasks } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ inserted: 3, unchanged: 0, conflictCount: 0, conflicts: [] });
    const before = await allTasks(t.apiKey, ds.datasetId);
    expect(before.map((x) => x.id).slice(0, 2)).toEqual(["q1", "q2"]);
    expect(before[2].id).toMatch(/^h_[0-9a-f]{32}$/);

    const again = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, { key: t.apiKey, body: { tasks } });
    expect(again.body).toEqual({ inserted: 0, unchanged: 3, conflictCount: 0, conflicts: [] });

    const changed = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, {
      key: t.apiKey,
      body: {
        tasks: [
          { id: "q1", task: "What is 6*7?", groundTruth: "41", metadata: { level: 1 } },
          { id: "q2", task: "What is 2^10?", groundTruth: "1024", metadata: { level: 2 } },
          { id: "q3", task: "What is 3+3?", groundTruth: "6" },
          { id: "q3", task: "What is 3+3?", groundTruth: "6" },
        ],
      },
    });
    expect(changed.body).toEqual({ inserted: 1, unchanged: 1, conflictCount: 2, conflicts: ["q1", "q2"] });
    const after = await allTasks(t.apiKey, ds.datasetId);
    expect(after.slice(0, 3)).toEqual(before);
    expect(after.map((x) => x.id)).toEqual([...before.map((x) => x.id), "q3"]);
    expect((await call("GET", `/v1/datasets/${ds.datasetId}`, { key: t.apiKey })).body.counts.total).toBe(4);
  });

  it("an explicit split wins over the hash, and a task never moves between splits", async () => {
    const ds = await dataset(t.apiKey, { holdoutFraction: 0.3 });
    const ids = Array.from({ length: 40 }, (_, i) => `s-${i}`);
    const trainByHash = ids.find((id) => splitOf(id, 0.3) === "train")!;
    const holdoutByHash = ids.find((id) => splitOf(id, 0.3) === "holdout")!;
    const r = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, {
      key: t.apiKey,
      body: {
        tasks: [
          { id: trainByHash, task: "explicit holdout", split: "holdout" },
          { id: holdoutByHash, task: "explicit train", split: "train" },
          { id: "v-0", task: "explicit validation", split: "validation" },
          ...ids.filter((id) => id !== trainByHash && id !== holdoutByHash).map((id) => ({ id, task: `task ${id}` })),
        ],
      },
    });
    expect(r.body.inserted).toBe(41);
    const stored = new Map((await allTasks(t.apiKey, ds.datasetId)).map((x) => [x.id, x.split]));
    expect(stored.get(trainByHash)).toBe("holdout");
    expect(stored.get(holdoutByHash)).toBe("train");
    // The hash gives train or holdout; validation tasks are only those labelled so.
    expect(stored.get("v-0")).toBe("validation");
    expect([...stored.values()].filter((s) => s === "validation")).toHaveLength(1);
    expect((await call("GET", `/v1/datasets/${ds.datasetId}`, { key: t.apiKey })).body.counts.validation).toBe(1);
    for (const id of ids.filter((id) => id !== trainByHash && id !== holdoutByHash)) expect(stored.get(id)).toBe(splitOf(id, 0.3));
    // Re-uploading without a split keeps the stored one.
    const again = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, {
      key: t.apiKey,
      body: { tasks: [{ id: trainByHash, task: "explicit holdout" }] },
    });
    expect(again.body).toMatchObject({ inserted: 0, unchanged: 1, conflictCount: 0 });
    const moved = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, {
      key: t.apiKey,
      body: { tasks: [{ id: trainByHash, task: "explicit holdout", split: "train" }] },
    });
    expect(moved.body).toEqual({ inserted: 0, unchanged: 0, conflictCount: 1, conflicts: [trainByHash] });
    expect(new Map((await allTasks(t.apiKey, ds.datasetId)).map((x) => [x.id, x.split]))).toEqual(stored);
  });

  it("pages through the tasks of one split in upload order", async () => {
    const ds = await dataset(t.apiKey, { holdoutFraction: 0.5 });
    const ids = Array.from({ length: 30 }, (_, i) => `p-${String(i).padStart(2, "0")}`);
    await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, {
      key: t.apiKey,
      body: { tasks: ids.slice(0, 15).map((id) => ({ id, task: id })) },
    });
    await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, {
      key: t.apiKey,
      body: { tasks: ids.slice(15).map((id) => ({ id, task: id })) },
    });
    const holdout = await allTasks(t.apiKey, ds.datasetId, "&split=holdout");
    const train = await allTasks(t.apiKey, ds.datasetId, "&split=train");
    expect(holdout.map((x) => x.id)).toEqual(ids.filter((id) => splitOf(id, 0.5) === "holdout"));
    expect(train.map((x) => x.id)).toEqual(ids.filter((id) => splitOf(id, 0.5) === "train"));
    expect(holdout.every((x) => x.split === "holdout")).toBe(true);
    const counts = (await call("GET", `/v1/datasets/${ds.datasetId}`, { key: t.apiKey })).body.counts;
    expect(counts).toEqual({ train: train.length, validation: 0, holdout: holdout.length, total: 30, withGroundTruth: 0 });
    expect(holdout.length).toBeGreaterThan(0);
    expect(train.length).toBeGreaterThan(0);
    expectProblem(await call("GET", `/v1/datasets/${ds.datasetId}/tasks?split=test`, { key: t.apiKey }), 400, "validation-failed");
  });

  it("takes NDJSON uploads, one task a line, beyond the JSON and global body limits", async () => {
    const ds = await dataset(t.apiKey);
    const lines = Array.from({ length: 1200 }, (_, i) => ({ id: `n${i}`, task: `${"x".repeat(1000)} ${i}`, groundTruth: String(i) }));
    const body = ndjson(lines).replace("\n", "\r\n\n");
    expect(body.length).toBeGreaterThan(1_048_576);
    const r = await uploadNdjson(t.apiKey, ds.datasetId, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ inserted: 1200, unchanged: 0, conflictCount: 0, conflicts: [] });
    const again = await uploadNdjson(t.apiKey, ds.datasetId, body);
    expect(again.body).toEqual({ inserted: 0, unchanged: 1200, conflictCount: 0, conflicts: [] });
    expect((await call("GET", `/v1/datasets/${ds.datasetId}`, { key: t.apiKey })).body.counts).toMatchObject({
      total: 1200,
      withGroundTruth: 1200,
    });

    // JSON also gets the larger body limit: 100 tasks of 15 KB.
    const big = Array.from({ length: 100 }, (_, i) => ({ id: `big${i}`, task: "y".repeat(15_000) }));
    const json = await call("POST", `/v1/datasets/${ds.datasetId}/tasks`, { key: t.apiKey, body: { tasks: big } });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.body.inserted).toBe(100);
  });

  it("rejects bad uploads with a problem naming the line or field, and stores nothing", async () => {
    const ds = await dataset(t.apiKey, { tasks: [{ id: "keep", task: "kept" }] });
    const path = `/v1/datasets/${ds.datasetId}/tasks`;
    const total = async () => (await call("GET", `/v1/datasets/${ds.datasetId}`, { key: t.apiKey })).body.counts.total;

    const badJson = await uploadNdjson(t.apiKey, ds.datasetId, ndjson([{ id: "l1", task: "ok" }, { id: "l2", task: "ok" }, "{not json"]));
    expectProblem(badJson, 400, "validation-failed");
    expect(badJson.body.line).toBe(3);
    expect(badJson.body.detail).toMatch(/^Line 3\b/);
    expect(badJson.body.errors).toEqual([{ path: "line.3", message: "Not valid JSON" }]);

    const oversizeLine = await uploadNdjson(
      t.apiKey,
      ds.datasetId,
      ndjson([
        { id: "l1", task: "ok" },
        { id: "l2", task: "z".repeat(16_385) },
      ]),
    );
    expectProblem(oversizeLine, 400, "validation-failed");
    expect(oversizeLine.body.line).toBe(2);
    expect(oversizeLine.body.errors[0].path).toBe("line.2.task");

    const tooManyLines = await uploadNdjson(
      t.apiKey,
      ds.datasetId,
      ndjson(Array.from({ length: 5001 }, (_, i) => ({ id: `m${i}`, task: "t" }))),
    );
    expectProblem(tooManyLines, 413, "payload-too-large");
    expectProblem(await uploadNdjson(t.apiKey, ds.datasetId, "\n\n"), 400, "validation-failed");

    const tooMany = await call("POST", path, {
      key: t.apiKey,
      body: { tasks: Array.from({ length: 501 }, (_, i) => ({ id: `j${i}`, task: "t" })) },
    });
    expectProblem(tooMany, 400, "validation-failed");
    expect(tooMany.body.errors[0]).toMatchObject({ path: "tasks" });
    expect(tooMany.body.errors[0].message).toMatch(/x-ndjson/);

    const oversize = await call("POST", path, {
      key: t.apiKey,
      body: {
        tasks: [
          { id: "ok", task: "fine" },
          { id: "big", task: "z".repeat(16_385) },
        ],
      },
    });
    expectProblem(oversize, 400, "validation-failed");
    expect(oversize.body.errors.map((e: any) => e.path)).toEqual(["tasks.1.task"]);
    const cases: unknown[] = [
      [{ id: "bad id!", task: "t" }],
      [{ id: "x".repeat(129), task: "t" }],
      [{ id: "ok", task: "   " }],
      [{ id: "ok", task: "t", groundTruth: "g".repeat(16_385) }],
      [{ id: "ok", task: "t", metadata: { blob: "m".repeat(5000) } }],
      [{ id: "ok", task: "t", split: "test" }],
      [{ id: "ok", task: "t", extra: 1 }],
    ];
    for (const tasks of cases) expectProblem(await call("POST", path, { key: t.apiKey, body: { tasks } }), 400, "validation-failed");
    expectProblem(
      await call("POST", path, { key: t.apiKey, raw: "task: x", headers: { "content-type": "text/plain" } }),
      415,
      "unsupported-media-type",
    );
    expectProblem(
      await call("POST", "/v1/datasets/ds_missing/tasks", { key: t.apiKey, body: { tasks: [{ task: "t" }] } }),
      404,
      "not-found",
    );
    expect(await total()).toBe(1);

    const before = (await call("GET", "/v1/datasets?limit=200", { key: t.apiKey })).body.items.length;
    for (const body of [
      { name: "x", holdoutFraction: 1 },
      { name: "x", holdoutFraction: -0.1 },
      { name: "" },
      {
        name: "x",
        tasks: [
          { id: "good", task: "t" },
          { id: "bad", task: "" },
        ],
      },
    ]) {
      expectProblem(await call("POST", "/v1/datasets", { key: t.apiKey, body }), 400, "validation-failed");
    }
    // A well-formed but unusable verifier is a 422, as it is when a run is created.
    for (const verifier of [{ kind: "telepathy" }, { kind: "regex", pattern: "(" }]) {
      const r = await call("POST", "/v1/datasets", { key: t.apiKey, body: { name: "x", verifier } });
      expectProblem(r, 422, "unprocessable");
      expect(r.body.errors[0].path).toMatch(/^verifier/);
    }
    expect((await call("GET", "/v1/datasets?limit=200", { key: t.apiKey })).body.items.length).toBe(before);
  });
});

describe("dataset access", () => {
  let a: Tenant;
  let b: Tenant;
  let ds: string;
  beforeAll(async () => {
    a = await newTenant();
    b = await newTenant();
    ds = (await dataset(a.apiKey, { tasks: [{ id: "secret", task: "tenant A's task" }] })).datasetId;
  });

  it("another tenant's dataset is a 404 like a missing one on every route, and stays untouched", async () => {
    const routes: [string, string, unknown?][] = [
      ["GET", `/v1/datasets/${ds}`],
      ["GET", `/v1/datasets/${ds}/tasks`],
      ["POST", `/v1/datasets/${ds}/tasks`, { tasks: [{ id: "planted", task: "planted" }] }],
      ["DELETE", `/v1/datasets/${ds}`],
    ];
    for (const [method, path, body] of routes) {
      const foreign = await call(method, path, { key: b.apiKey, body });
      const missing = await call(method, path.replace(ds, "ds_missing"), { key: b.apiKey, body });
      expectProblem(foreign, 404, "not-found");
      expect(missing.status).toBe(404);
      expect(foreign.body.title).toBe(missing.body.title);
    }
    const planted = await uploadNdjson(b.apiKey, ds, ndjson([{ id: "planted", task: "planted" }]));
    expectProblem(planted, 404, "not-found");
    expect((await call("GET", "/v1/datasets", { key: b.apiKey })).body.items).toEqual([]);
    const own = await allTasks(a.apiKey, ds);
    expect(own.map((x) => x.id)).toEqual(["secret"]);
  });

  it("read keys and keys restricted to some agents can read but not write", async () => {
    const read = await newKey(a.apiKey, "read");
    const restricted = await newKey(a.apiKey, "write", [await newAgent(a.apiKey)]);
    for (const key of [read.apiKey, restricted.apiKey]) {
      expect((await call("GET", `/v1/datasets/${ds}`, { key })).status).toBe(200);
      expect((await call("GET", `/v1/datasets/${ds}/tasks`, { key })).status).toBe(200);
      expect((await call("GET", "/v1/datasets", { key })).status).toBe(200);
      expectProblem(await call("POST", "/v1/datasets", { key, body: { name: "nope" } }), 403, "forbidden");
      expectProblem(
        await call("POST", `/v1/datasets/${ds}/tasks`, { key, body: { tasks: [{ id: "nope", task: "t" }] } }),
        403,
        "forbidden",
      );
      expectProblem(await uploadNdjson(key, ds, ndjson([{ id: "nope", task: "t" }])), 403, "forbidden");
      // Refused before its body is read: a malformed upload from such a key is a 403 too, not a 400.
      expectProblem(await uploadNdjson(key, ds, "{not json\n"), 403, "forbidden");
      expectProblem(await call("DELETE", `/v1/datasets/${ds}`, { key }), 403, "forbidden");
    }
    expect((await call("GET", `/v1/datasets/${ds}`, { key: a.apiKey })).body.counts.total).toBe(1);
  });
});

describe("datasets from episodes", () => {
  let t: Tenant;
  let agentId: string;
  const eps: Record<string, string> = {};
  const api = (method: string, path: string, body?: unknown) => call(method, `/v1/agents/${agentId}${path}`, { key: t.apiKey, body });

  async function episode(name: string, task: string, end?: { outcome: string; answer?: string }) {
    const id = (await api("POST", "/episodes", { task })).body.episodeId as string;
    if (end) expect((await api("POST", `/episodes/${id}/end`, end)).status).toBe(200);
    eps[name] = id;
  }

  beforeAll(async () => {
    t = await newTenant();
    agentId = await newAgent(t.apiKey);
    await episode("solved", "What is 6*7?", { outcome: "success", answer: "42" });
    await episode("failed", "What is 2^10?", { outcome: "failure", answer: "1000" });
    await episode("noAnswer", "Tidy the inbox", { outcome: "success" });
    await episode("old", "An old partial task", { outcome: "partial", answer: "half done" });
    await episode("open", "Still working on it");
    // Backdate one episode so that `since` has something to exclude.
    await runInDurableObject(env.AGENT_MEMORY.getByName(memoryName(t.tenantId, agentId)), (_i, state) => {
      state.storage.sql.exec("UPDATE episodes SET ended_at = 1000 WHERE id = ?", eps.old!);
    });
  });

  it("takes the ended episodes' tasks; only a successful episode's answer is the ground truth", async () => {
    const r = await api("POST", "/datasets/from-episodes", { name: "from work", holdoutFraction: 0 });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ name: "from work", counts: { train: 4, holdout: 0, total: 4, withGroundTruth: 1 } });
    const tasks = await allTasks(t.apiKey, r.body.datasetId);
    const byId = new Map(tasks.map((x) => [x.id, x]));
    expect([...byId.keys()].sort()).toEqual([eps.solved, eps.failed, eps.noAnswer, eps.old].sort());
    expect(byId.get(eps.solved!)).toMatchObject({
      task: "What is 6*7?",
      groundTruth: "42",
      metadata: { agentId, episodeId: eps.solved, outcome: "success" },
    });
    expect(byId.get(eps.failed!)!.groundTruth).toBeNull();
    expect(byId.get(eps.noAnswer!)!.groundTruth).toBeNull();
    expect(byId.get(eps.old!)!.groundTruth).toBeNull();
  });

  it("filters by outcome and by end time", async () => {
    const failures = await api("POST", "/datasets/from-episodes", { name: "failures", outcomes: ["failure", "partial"] });
    expect(failures.status).toBe(201);
    expect((await allTasks(t.apiKey, failures.body.datasetId)).map((x) => x.id).sort()).toEqual([eps.failed, eps.old].sort());
    const recent = await api("POST", "/datasets/from-episodes", { name: "recent", since: 2000 });
    expect((await allTasks(t.apiKey, recent.body.datasetId)).map((x) => x.id).sort()).toEqual(
      [eps.solved, eps.failed, eps.noAnswer].sort(),
    );
    const limited = await api("POST", "/datasets/from-episodes", { name: "latest two", limit: 2, since: 2000 });
    expect(limited.body.counts.total).toBe(2);
  });

  it("bad input, no matching episodes, other tenants and read keys create nothing", async () => {
    const count = async () => (await call("GET", "/v1/datasets?limit=200", { key: t.apiKey })).body.items.length;
    const before = await count();
    expectProblem(await api("POST", "/datasets/from-episodes", { name: "x", outcomes: ["great"] }), 400, "validation-failed");
    expectProblem(await api("POST", "/datasets/from-episodes", { name: "x", limit: 0 }), 400, "validation-failed");
    expectProblem(await api("POST", "/datasets/from-episodes", { name: "x", outcomes: ["timeout"] }), 422, "unprocessable");
    const other = await newTenant();
    expectProblem(
      await call("POST", `/v1/agents/${agentId}/datasets/from-episodes`, { key: other.apiKey, body: { name: "x" } }),
      404,
      "not-found",
    );
    const read = await newKey(t.apiKey, "read");
    expectProblem(
      await call("POST", `/v1/agents/${agentId}/datasets/from-episodes`, { key: read.apiKey, body: { name: "x" } }),
      403,
      "forbidden",
    );
    expect(await count()).toBe(before);
    expect((await call("GET", "/v1/datasets", { key: other.apiKey })).body.items).toEqual([]);
  });
});
