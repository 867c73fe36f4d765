import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { countRetrieval, flushRetrievalCounts } from "../../src/platform/edge/retrieval-counters";
import { signRetrieval, verifyRetrieval } from "../../src/core/retrieval-token";
import { fromBase64url, toBase64url } from "../../src/core/encoding";
import { expectProblem } from "../helpers";
import { agentFixture } from "./setup";

const QUERY = "the API answered 429 too many requests, retry with backoff?";

async function fixture() {
  const f = await agentFixture();
  const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as DurableObjectStub<AgentMemory>;
  const sql = <T extends Record<string, SqlStorageValue>>(query: string, ...args: SqlStorageValue[]) =>
    runInDurableObject(stub, (_i, state) => state.storage.sql.exec<T>(query, ...args).toArray());
  const lessons: string[] = [];
  for (const text of [
    "When the API returns HTTP 429, retry with exponential backoff and jitter",
    "Retry HTTP 429 after the Retry-After header delay",
  ]) {
    lessons.push((await f.api("POST", "/experiences", { text })).body.id);
  }
  /** What reward could move: Q and history of every lesson, the outcomes kept, the usage memory learned. */
  const learned = async () => ({
    lessons: await Promise.all(
      lessons.map(async (id) => ((b) => [b.q, b.counts, b.qHistory.length])((await f.api("GET", `/experiences/${id}`)).body)),
    ),
    rewarded: await sql("SELECT id FROM rewarded_tokens"),
    usage: await sql("SELECT item_id, phrases FROM usage_memory"),
  });
  const secrets = async () =>
    (await sql<{ id: string; key: ArrayBuffer }>("SELECT id, key FROM retrieval_secrets")).map((r) => ({
      id: r.id,
      key: new Uint8Array(r.key),
    }));
  return { ...f, stub, sql, lessons, learned, secrets };
}

const claimsOf = (token: string) =>
  JSON.parse(new TextDecoder().decode(fromBase64url(token.split(".")[2]!))) as { j: string; x: number; i: unknown[][] };

describe("retrieval tokens", () => {
  it("a retrieval outside an episode writes nothing; its token is rewarded once, then replays, and another outcome is a 409", async () => {
    const { api, sql, lessons, learned } = await fixture();
    const r = await api("POST", "/retrieve", { query: QUERY });
    expect(r.status).toBe(200);
    const token = r.body.retrievalId as string;
    expect(token).toMatch(/^rt1\.[\w-]+\.[\w-]+\.[\w-]*\.[\w-]{43}$/);
    expect(token.length).toBeLessThanOrEqual(8192);
    expect(await sql("SELECT id FROM retrievals")).toEqual([]);
    expect(claimsOf(token).i.map((i) => i[0])).toEqual(r.body.items.map((i: { id: string }) => i.id));

    const first = await api("POST", "/rewards", { retrievalId: token, outcome: "success" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.replayed).toBe(false);
    expect(first.body.updated.map((u: { id: string }) => u.id).sort()).toEqual([...lessons].sort());
    const after = await learned();
    expect(after.rewarded).toEqual([{ id: claimsOf(token).j }]);
    const history = (await api("GET", `/experiences/${lessons[0]}`)).body.qHistory;
    expect(history.map((h: { retrievalId: string }) => h.retrievalId)).toEqual([claimsOf(token).j]);

    const again = await api("POST", "/rewards", { retrievalId: token, outcome: "success" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, replayed: true });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expectProblem(await api("POST", "/rewards", { retrievalId: token, outcome: "failure" }), 409, "conflict");
    expect(await learned()).toEqual(after);
  });

  it("a tampered, another agent's or an expired token is a 422 that changes nothing", async () => {
    const { api, learned, secrets, lessons } = await fixture();
    const other = await fixture();
    const token = (await api("POST", "/retrieve", { query: QUERY })).body.retrievalId as string;
    const foreign = (await other.api("POST", "/retrieve", { query: QUERY })).body.retrievalId as string;
    const before = await learned();

    const [v, sid, claims, code, mac] = token.split(".") as [string, string, string, string, string];
    // Claims that name only the second lesson, under the original signature.
    const narrowed = { ...claimsOf(token), i: claimsOf(token).i.filter((i) => i[0] === lessons[1]) };
    const forgedClaims = toBase64url(new TextEncoder().encode(JSON.stringify(narrowed)));
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);
    const [secret] = await secrets();
    // Signed with the agent's own secret, but past its expiry.
    const genuine = await verifyRetrieval([secret!], token, Date.now());
    if (!genuine.ok) throw new Error(genuine.reason);
    const expired = (await signRetrieval(secret!, { ...genuine.claims, expiresAt: Date.now() - 1 }))!;

    const refused: [string, string][] = [
      [[v, sid, forgedClaims, code, mac].join("."), "was not issued by this agent"],
      [[v, sid, flip(claims, 10), code, mac].join("."), "was not issued by this agent"],
      [[v, sid, claims, flip(code, 3), mac].join("."), "was not issued by this agent"],
      [[v, sid, claims, code, flip(mac, 0)].join("."), "was not issued by this agent"],
      [[v, flip(sid, 0), claims, code, mac].join("."), "was not issued by this agent"],
      [token.slice(0, -1), "is not a retrieval token"],
      [`${token}.x`, "is not a retrieval token"],
      [foreign, "was not issued by this agent"],
      [expired, "has expired"],
    ];
    for (const [retrievalId, why] of refused) {
      const res = await api("POST", "/rewards", { retrievalId, outcome: "success" });
      expectProblem(res, 422);
      expect(res.body.detail).toContain(why);
      expect(res.body.errors[0].path).toBe("retrievalId");
    }
    expect(await learned()).toEqual(before);
    // The genuine token still takes its reward afterwards.
    expect((await api("POST", "/rewards", { retrievalId: token, outcome: "success" })).body.updated).toHaveLength(2);
  });

  it("a retrieval in an episode is recorded (a `ret_…` id) and credited by the episode's end", async () => {
    const { api, sql } = await fixture();
    const ep = (await api("POST", "/episodes", { task: "Call the rates API" })).body.episodeId;
    const recorded = (await api("POST", "/retrieve", { query: QUERY, episodeId: ep })).body.retrievalId as string;
    expect(recorded).toMatch(/^ret_/);
    expect((await api("GET", `/episodes/${ep}/retrievals`)).body.items.map((r: { retrievalId: string }) => r.retrievalId)).toEqual([
      recorded,
    ]);
    const end = await api("POST", `/episodes/${ep}/end`, { outcome: "success" });
    expect(end.body.result.rewarded).toHaveLength(2);
    expect((await sql<{ n: number }>("SELECT count(*) AS n FROM retrievals"))[0]!.n).toBe(1);
  });

  it("use counters wait for the window, then arrive in one batch; a batch whose sender died goes with the next read; a batch sent twice applies once", async () => {
    const { api, t, agentId, sql, lessons } = await fixture();
    const token = (await api("POST", "/retrieve", { query: QUERY })).body.retrievalId as string;
    const counted = async (id: string) => (await api("GET", `/experiences/${id}`)).body.counts.retrieved as number;
    const base = await counted(lessons[0]!);
    const served = { items: [{ id: lessons[0]!, kind: "experience" as const }], readOnly: false };

    const windowed = { ...env, RETRIEVAL_COUNTS_FLUSH_MS: "300" };
    const waits: Promise<unknown>[] = [];
    const deps = { env: windowed, waitUntil: (p: Promise<unknown>) => void waits.push(p) };
    for (let i = 0; i < 3; i++) countRetrieval(deps, t.tenantId, agentId, token, served);
    expect(waits).toHaveLength(1);
    expect(await counted(lessons[0]!)).toBe(base);
    await Promise.all(waits);
    expect(await counted(lessons[0]!)).toBe(base + 3);
    expect((await sql("SELECT id FROM counter_batches")).length).toBe(2);

    // The read that opened a batch ended before sending it (its wait never runs here); a read after
    // the window and its grace sends it.
    const now = Date.now();
    const long = { ...env, RETRIEVAL_COUNTS_FLUSH_MS: "60000" };
    countRetrieval({ env: long, waitUntil: () => undefined }, t.tenantId, agentId, token, served, now);
    const late: Promise<unknown>[] = [];
    countRetrieval({ env: long, waitUntil: (p) => void late.push(p) }, t.tenantId, agentId, token, served, now + 61_001);
    await Promise.all(late);
    expect(await counted(lessons[0]!)).toBe(base + 5);

    // The object applies a batch, but its answer is lost: the batch goes back and is sent again, once.
    let lost = 0;
    const lossy = {
      ...env,
      RETRIEVAL_COUNTS_FLUSH_MS: "0",
      AGENT_MEMORY: {
        getByName: (name: string) => ({
          applyRetrievalCounts: async (batch: unknown) => {
            await env.AGENT_MEMORY.getByName(name).applyRetrievalCounts(batch as never);
            lost++;
            throw new Error("network connection lost");
          },
        }),
      },
    } as unknown as typeof env;
    const sent: Promise<unknown>[] = [];
    countRetrieval({ env: lossy, waitUntil: (p) => void sent.push(p) }, t.tenantId, agentId, token, served);
    await Promise.all(sent);
    expect(lost).toBe(1);
    expect(await counted(lessons[0]!)).toBe(base + 6);
    await flushRetrievalCounts(env);
    expect(await counted(lessons[0]!)).toBe(base + 6);
  });
});
