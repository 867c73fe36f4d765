import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/api-key";
import { REVOCATION_BOUND_S, rewriteRecentTombstones } from "../../src/platform/edge/key-store";
import { call, expectProblem, newAgent, newKey, newTenant } from "../helpers";
import { coldKey, freshIsolate, probedWorker } from "./probe";

const kvRecord = async (apiKey: string) => env.PRAXIS_KEYS!.get(`key:${await sha256Hex(apiKey)}`, "json") as Promise<any>;

describe("API keys at the edge", () => {
  it("a revoked key is refused at once by the isolate that revoked it, without asking D1", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const w = probedWorker();
    const reader = await newKey(t.apiKey, "read");
    expect((await w.call("GET", `/v1/agents/${agentId}/prompt`, reader.apiKey)).status).toBe(200);

    const revoked = await w.call("DELETE", `/v1/keys/${reader.id}`, t.apiKey);
    expect(revoked.status).toBe(200);
    const refused = await w.call("GET", `/v1/agents/${agentId}/prompt`, reader.apiKey);
    expectProblem(refused, 401, "unauthorized");
    expect(refused.trips).toMatchObject({ DB: 0, AGENT_MEMORY: 0 });
  });

  it("revoking a key voids rewards for the retrievals it made: another key's reward of them is refused and moves nothing", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const lesson = await call("POST", `/v1/agents/${agentId}/experiences`, { key: t.apiKey, body: { text: "Pin the image digest" } });
    const [retriever, rewarder] = [await newKey(t.apiKey, "write"), await newKey(t.apiKey, "write")];
    const retrieve = async () =>
      (await call("POST", `/v1/agents/${agentId}/retrieve`, { key: retriever.apiKey, body: { query: "image digest" } })).body
        .retrievalId as string;
    const reward = (retrievalId: string) =>
      call("POST", `/v1/agents/${agentId}/rewards`, { key: rewarder.apiKey, body: { retrievalId, outcome: "success" } });
    const q = async () => (await call("GET", `/v1/agents/${agentId}/experiences/${lesson.body.id}`, { key: t.apiKey })).body.q as number;

    // While the retrieving key is active, another key may reward what it retrieved.
    expect((await reward(await retrieve())).status).toBe(200);
    const before = await q();
    const made = await retrieve();
    expect((await call("DELETE", `/v1/keys/${retriever.id}`, { key: t.apiKey })).status).toBe(200);
    const refused = await reward(made);
    expectProblem(refused, 422, "unprocessable");
    expect(refused.body.errors).toMatchObject([{ path: "retrievalId" }]);
    expect(await q()).toBe(before);
    // Nothing was recorded for it: the same reward again is refused again, not replayed.
    expectProblem(await reward(made), 422, "unprocessable");
    expect(await q()).toBe(before);
  });

  it("every other isolate refuses it once its cached copy expires: KV holds the revocation, versioned", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const w = probedWorker();
    const writer = await newKey(t.apiKey, "write");
    expect((await w.call("GET", `/v1/agents/${agentId}/prompt`, writer.apiKey)).status).toBe(200);
    const before = await kvRecord(writer.apiKey);
    expect(before).toMatchObject({ keyId: writer.id, scope: "write", revoked: false });
    expect(JSON.stringify(before)).not.toContain(writer.apiKey);

    expect((await w.call("DELETE", `/v1/keys/${writer.id}`, t.apiKey)).status).toBe(200);
    const after = await kvRecord(writer.apiKey);
    expect(after).toMatchObject({ keyId: writer.id, revoked: true });
    expect(after.version).toBeGreaterThanOrEqual(before.version);

    // Another isolate (its LRU entry past its TTL) reads KV: refused, still without D1.
    freshIsolate();
    const elsewhere = await w.call("GET", `/v1/agents/${agentId}/prompt`, writer.apiKey);
    expectProblem(elsewhere, 401);
    expect(elsewhere.trips).toMatchObject({ DB: 0, PRAXIS_KEYS: 1 });
    // And where KV has nothing (expired), D1 answers.
    await coldKey(writer.apiKey);
    const cold = await w.call("GET", `/v1/agents/${agentId}/prompt`, writer.apiKey);
    expectProblem(cold, 401);
    expect(cold.trips.DB).toBe(1);
    expect(REVOCATION_BOUND_S).toBeLessThanOrEqual(70);
  });

  it("a stale fill racing the revocation is overwritten by its second write", async () => {
    const t = await newTenant();
    const w = probedWorker();
    const reader = await newKey(t.apiKey, "read");
    const stale = { tenantId: t.tenantId, keyId: reader.id, scope: "read", agentIds: null, revoked: false, version: 1 };
    const hash = await sha256Hex(reader.apiKey);
    // The racing fill lands just after the revocation's first write; `call` waits for waitUntil work.
    const revoking = w.call("DELETE", `/v1/keys/${reader.id}`, t.apiKey);
    await new Promise((r) => setTimeout(r, 300));
    await env.PRAXIS_KEYS!.put(`key:${hash}`, JSON.stringify(stale));
    expect((await revoking).status).toBe(200);
    expect(await kvRecord(reader.apiKey)).toMatchObject({ revoked: true });
  });

  it("a fill that read D1 before the revocation and whose KV write lands after all of its writes does not revive the key", async () => {
    const t = await newTenant();
    const reader = await newKey(t.apiKey, "read");
    await coldKey(reader.apiKey);
    // The filling isolate's first KV write is held until the revocation (and its second write) is done.
    let putStarted!: () => void;
    const started = new Promise<void>((r) => (putStarted = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = false;
    const filler = probedWorker({
      before: async (binding, op) => {
        if (binding !== "PRAXIS_KEYS" || op !== "put" || held) return;
        held = true;
        putStarted();
        await released;
      },
    });
    const filling = filler.call("GET", "/v1/keys/current", reader.apiKey);
    await started;
    const revoked = await probedWorker().call("DELETE", `/v1/keys/${reader.id}`, t.apiKey);
    expect(revoked.status).toBe(200);
    expect(revoked.body.edgeCache).toBe("written");
    expect(await kvRecord(reader.apiKey)).toMatchObject({ revoked: true });
    release();
    expect((await filling).status).toBe(200);

    expect(await kvRecord(reader.apiKey)).toMatchObject({ revoked: true });
    freshIsolate();
    const elsewhere = await probedWorker().call("GET", "/v1/keys/current", reader.apiKey);
    expectProblem(elsewhere, 401);
    expect(elsewhere.trips.DB).toBe(0);
  });

  it("a fill returning in the isolate that revoked the key does not replace the revocation it holds", async () => {
    const t = await newTenant();
    const reader = await newKey(t.apiKey, "read");
    await coldKey(reader.apiKey);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let readStarted!: () => void;
    const started = new Promise<void>((r) => (readStarted = r));
    let held = false;
    // The fill's D1 read answers (the key active) only after the revocation went through here.
    const filler = probedWorker({
      after: async (binding) => {
        if (binding !== "DB" || held) return;
        held = true;
        readStarted();
        await released;
      },
    });
    const filling = filler.call("GET", "/v1/keys/current", reader.apiKey);
    await started;
    expect((await probedWorker().call("DELETE", `/v1/keys/${reader.id}`, t.apiKey)).status).toBe(200);
    release();
    await filling;
    expectProblem(await probedWorker().call("GET", "/v1/keys/current", reader.apiKey), 401);
  });

  it("a KV outage never refuses a valid key: D1 answers", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const w = probedWorker({
      before: (binding) => {
        if (binding === "PRAXIS_KEYS") throw new Error("KV GET failed: 503 Service Unavailable");
      },
    });
    freshIsolate();
    // Through the object: a read at the edge would also check the key's revocation in D1 (edge-reads.test.ts).
    const r = await w.call("POST", `/v1/agents/${agentId}/retrieve`, t.apiKey, { query: "anything", consistency: "strong" });
    expect(r.status).toBe(200);
    expect(r.trips).toMatchObject({ DB: 1, AGENT_MEMORY: 1 });
  });

  it("a revocation that cannot reach KV answers 503 and is not lost: repeating it writes it through", async () => {
    const t = await newTenant();
    const reader = await newKey(t.apiKey, "read");
    await call("GET", "/v1/keys/current", { key: reader.apiKey });
    let kvDown = true;
    const w = probedWorker({
      before: (binding, op) => {
        if (kvDown && binding === "PRAXIS_KEYS" && op === "put") throw new Error("KV PUT failed: 500");
      },
    });
    const failed = await w.call("DELETE", `/v1/keys/${reader.id}`, t.apiKey);
    expectProblem(failed, 503, "service-unavailable");
    expect(failed.headers.get("retry-after")).toBeTruthy();
    expect(failed.body).toMatchObject({ revoked: true, edgeCache: "pending" });
    // The cron keeps writing the tombstone while KV refuses, and lands it once KV is back.
    expect(await rewriteRecentTombstones(w.env, Date.now())).toBe(0);
    expect(await kvRecord(reader.apiKey)).toMatchObject({ revoked: false });
    kvDown = false;
    expect(await rewriteRecentTombstones(w.env, Date.now())).toBeGreaterThanOrEqual(1);
    expect(await kvRecord(reader.apiKey)).toMatchObject({ revoked: true });
    const again = await w.call("DELETE", `/v1/keys/${reader.id}`, t.apiKey);
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBeTypeOf("number");
    expect(await kvRecord(reader.apiKey)).toMatchObject({ revoked: true });
    freshIsolate();
    expectProblem(await call("GET", "/v1/keys/current", { key: reader.apiKey }), 401);
  });

  it("a burst of requests with a key the isolate does not hold yet makes one D1 query between them", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    let queries = 0;
    const w = probedWorker({
      before: (binding) => {
        if (binding === "DB") queries++;
      },
    });
    await coldKey(t.apiKey);
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => w.call("GET", `/v1/agents/${agentId}/prompt?consistency=strong`, t.apiKey)),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(8).fill(200));
    // One lookup for the burst, and the fill's check after its KV write (off the requests' path).
    expect(queries).toBe(2);
  });

  it("a made-up key is remembered as unknown briefly, so repeating it does not reach D1 again", async () => {
    const w = probedWorker();
    const fake = `pxk_${"a".repeat(12)}_${"b".repeat(43)}`;
    freshIsolate();
    const first = await w.call("GET", "/v1/keys/current", fake);
    expectProblem(first, 401);
    const second = await w.call("GET", "/v1/keys/current", fake);
    expectProblem(second, 401);
    expect(second.trips.DB).toBe(0);
  });
});

describe("the last unrestricted admin key", () => {
  it("two admins revoking each other at once: exactly one wins, the tenant keeps an admin", async () => {
    for (let round = 0; round < 5; round++) {
      const t = await newTenant();
      const second = await newKey(t.apiKey, "admin");
      const [a, b] = await Promise.all([
        call("DELETE", `/v1/keys/${second.id}`, { key: t.apiKey }),
        call("DELETE", `/v1/keys/${t.keyId}`, { key: second.apiKey }),
      ]);
      const statuses = [a.status, b.status].sort();
      expect(statuses[0]).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      const active = await env.DB.prepare(
        "SELECT count(*) AS n FROM api_keys WHERE tenant_id = ? AND scope = 'admin' AND agent_ids IS NULL AND revoked_at IS NULL",
      )
        .bind(t.tenantId)
        .first<{ n: number }>();
      expect(active!.n).toBe(1);
    }
  });

  it("three admins each revoking the others at once leave exactly one", async () => {
    const t = await newTenant();
    const keys = [{ id: t.keyId, apiKey: t.apiKey }, await newKey(t.apiKey, "admin"), await newKey(t.apiKey, "admin")];
    await Promise.all(
      keys.flatMap((by) => keys.filter((k) => k !== by).map((k) => call("DELETE", `/v1/keys/${k.id}`, { key: by.apiKey }))),
    );
    const active = await env.DB.prepare(
      "SELECT id FROM api_keys WHERE tenant_id = ? AND scope = 'admin' AND agent_ids IS NULL AND revoked_at IS NULL",
    )
      .bind(t.tenantId)
      .all<{ id: string }>();
    expect(active.results).toHaveLength(1);
    const survivor = keys.find((k) => k.id === active.results[0]!.id)!;
    expect((await call("GET", "/v1/keys", { key: survivor.apiKey })).status).toBe(200);
    expectProblem(await call("DELETE", `/v1/keys/${survivor.id}`, { key: survivor.apiKey }), 409, "conflict");
  });
});
