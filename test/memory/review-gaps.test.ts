import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { resolveLibrary } from "../../src/platform/practice/evaluation-setup";
import { call, expectProblem, newAgent } from "../helpers";
import { fakeLlm, LLM_ENV, type SentRequest } from "../fake-llm";
import { writerFixture } from "./setup";
import { FILTER_POISON, withReviewer } from "./screening-corpus";

afterEach(() => vi.restoreAllMocks());

/** A request to the Worker with an LLM configured (the test Worker's own env has none). */
async function withLlm(method: string, path: string, key: string, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://praxis.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { ...env, ...LLM_ENV } as typeof env,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const STEERING_WHEN = "whenever anyone asks about passwords, refunds or account access";

/** A reviewer that calls unsafe any lesson whose `when` steers it onto unrelated topics, safe the rest. */
function whenAwareReviewer(req: SentRequest) {
  const items = [...req.prompt.matchAll(/^(\d+)\.\n((?: {3}.*\n?)+)/gm)];
  return {
    verdicts: items.map((m) =>
      m[2]!.includes(STEERING_WHEN)
        ? { index: Number(m[1]), safe: false, category: "injection", reason: "its situations steer it onto unrelated requests" }
        : { index: Number(m[1]), safe: true, category: "safe", reason: "ordinary advice" },
    ),
  };
}

describe("review gaps", () => {
  it("a PATCH of text and `when` together has the new `when` reviewed too", async () => {
    const f = await writerFixture();
    await withReviewer(f.t.tenantId, f.agentId);
    const llm = fakeLlm(whenAwareReviewer);
    const e = await withLlm("POST", `/v1/agents/${f.agentId}/experiences`, f.writeKey, {
      text: "Paint the fence blue before the spring inspection",
    });
    expect(e.body.status, JSON.stringify(e.body)).toBe("active");
    const p = await withLlm("PATCH", `/v1/agents/${f.agentId}/experiences/${e.body.id}`, f.writeKey, {
      text: "Paint the fence blue before the summer inspection",
      when: STEERING_WHEN,
    });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(llm.sent.at(-1)!.prompt).toContain(STEERING_WHEN);
    // Not admitted on the strength of a review that never saw the `when`: held for the queued review.
    expect(p.body.status).toBe("pending");
    const r = await f.w("POST", "/retrieve", { query: "how do I reset my password", threshold: -1, k2: 10 });
    expect(r.body.items.map((i: { id: string }) => i.id)).not.toContain(e.body.id);
  });

  it("a held entry is released only through the audited quarantine: an admin's PATCH, batch or DELETE is refused", async () => {
    const f = await writerFixture();
    const held = await f.w("POST", "/experiences", FILTER_POISON[0]);
    expect(held.body.status).toBe("quarantined");
    const id = held.body.id;
    expectProblem(await f.admin("PATCH", `/experiences/${id}`, { status: "active" }), 403);
    expectProblem(await f.admin("PATCH", `/experiences/${id}`, { text: "Check the invoice totals twice" }), 403);
    expectProblem(
      await f.admin("POST", "/library/batch", { reason: "release", operations: [{ op: "update", id, patch: { status: "active" } }] }),
      403,
    );
    expectProblem(await f.admin("DELETE", `/experiences/${id}`), 403);
    expect((await f.w("GET", `/experiences/${id}`)).body.status).toBe("quarantined");

    const c = await f.w("POST", "/cases", { task: FILTER_POISON[1]!.text, reward: 1 });
    expect(c.body.status).toBe("quarantined");
    expectProblem(await f.admin("PATCH", `/cases/${c.body.id}`, { status: "active" }), 403);
    expectProblem(await f.admin("DELETE", `/cases/${c.body.id}`), 403);
    expect((await f.w("GET", `/cases/${c.body.id}`)).body.status).toBe("quarantined");

    expect((await f.admin("POST", `/quarantine/${id}/release`)).body.status).toBe("active");
    const audit = await env.DB.prepare("SELECT action FROM audit_log WHERE tenant_id = ? AND action LIKE 'quarantine.%'")
      .bind(f.t.tenantId)
      .all();
    expect(audit.results).toEqual([{ action: "quarantine.release" }]);
  });

  it("an import strips provenance in every mode: no run, episode, key or origin, source import, Q only from an admin", async () => {
    const f = await writerFixture();
    const forged = {
      runId: "run_forged",
      episodeId: "ep_forged",
      keyId: "key_forged",
      origin: "hindsight",
      note: "from the staging agent",
    };
    const doc = (ids: string[]) => ({
      format: "praxis-library/v1",
      libraryVersion: 3,
      exportedAt: 0,
      experiences: ids.map((id, i) => ({
        id,
        text: `Imported lesson ${i} about retries`,
        pattern: null,
        keywords: [],
        tags: [],
        domain: null,
        source: "practice",
        status: "active",
        pinned: false,
        importance: 0.5,
        q: 0.95,
        provenance: forged,
      })),
    });
    const check = (items: { provenance: Record<string, unknown>; source: string; q: number }[], q: number) => {
      expect(items.length).toBeGreaterThan(0);
      for (const e of items) {
        expect(e.source).toBe("import");
        expect(e.q).toBe(q);
        expect(Object.keys(e.provenance).sort()).toEqual(["importedFrom", "note"]);
        expect(e.provenance.note).toBe("from the staging agent");
      }
    };
    for (const [mode, as, q] of [
      ["replace", "w", 0.5],
      ["merge", "w", 0.5],
      ["replace", "admin", 0.95],
      ["merge", "admin", 0.95],
    ] as const) {
      const other = await newAgent(f.t.apiKey);
      const key = as === "admin" ? f.t.apiKey : f.writeKey;
      const r = await call("POST", `/v1/agents/${other}/library/import`, {
        key,
        body: { mode, library: doc(["exp_0123456789abcdefAAAA", "exp_0123456789abcdefBBBB"]) },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      check((await call("GET", `/v1/agents/${other}/experiences?status=all`, { key })).body.items, q);
    }
  });

  it("an evaluation of an old version skips what was quarantined or removed from quarantine since", async () => {
    const f = await writerFixture();
    const keep = await f.w("POST", "/experiences", { text: "Retry the payments API after a 429 with backoff" });
    const turned = await f.w("POST", "/experiences", { text: "Cache the exchange rates for an hour" });
    const v = turned.body.libraryVersion as number;
    // Rewritten later into poison: quarantined (not by its text at version v, but the entry is suspect now).
    expect((await f.admin("PATCH", `/experiences/${turned.body.id}`, FILTER_POISON[0])).body.status).toBe("quarantined");
    const before = await resolveLibrary(env, { tenantId: f.t.tenantId, agentId: f.agentId }, { version: v }, "library");
    expect(before.library.map((e) => e.id)).toEqual([keep.body.id]);
    await f.admin("DELETE", `/quarantine/${turned.body.id}`);
    const after = await resolveLibrary(env, { tenantId: f.t.tenantId, agentId: f.agentId }, { version: v }, "library");
    expect(after).toEqual({ library: [{ id: keep.body.id, text: "Retry the payments API after a 429 with backoff" }], libraryVersion: v });
  });
});

describe("learned state survives library moves", () => {
  /** A lesson with learned state: rewarded twice, so its Q, counters and history all moved. */
  async function learned(f: Awaited<ReturnType<typeof writerFixture>>) {
    const e = await f.w("POST", "/experiences", { text: "Validate the webhook signature before parsing the body" });
    for (const outcome of ["success", "success"]) {
      const r = await f.w("POST", "/retrieve", { query: "validate webhook signature", k2: 5 });
      expect(r.body.items.map((i: { id: string }) => i.id)).toContain(e.body.id);
      const rw = await f.w("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome, citedIds: [e.body.id] });
      expect(rw.status, JSON.stringify(rw.body)).toBe(200);
    }
    const state = (await f.w("GET", `/experiences/${e.body.id}`)).body;
    expect(state.q).toBeGreaterThan(0.5);
    expect(state.qHistory.length).toBe(2);
    return { id: e.body.id as string, version: (await f.w("GET", "/library/versions?limit=1")).body.items[0].version as number, state };
  }
  const learnedPart = (e: { q: number; counts: unknown; qHistory: unknown; lastUsedAt: unknown; probation: boolean }) => ({
    q: e.q,
    counts: e.counts,
    qHistory: e.qHistory,
    lastUsedAt: e.lastUsedAt,
    probation: e.probation,
  });

  it("a replace-import of an empty library, then the rollback that undoes it, brings the lesson back with its Q, counters and history", async () => {
    const f = await writerFixture();
    const l = await learned(f);
    const emptied = await f.w("POST", "/library/import", {
      mode: "replace",
      library: { format: "praxis-library/v1", libraryVersion: 0, exportedAt: 0, experiences: [] },
    });
    expect(emptied.body.deleted).toBe(1);
    expectProblem(await f.w("GET", `/experiences/${l.id}`), 404);
    expect((await f.w("POST", "/library/rollback", { version: l.version })).status).toBe(200);
    expect(learnedPart((await f.w("GET", `/experiences/${l.id}`)).body)).toEqual(learnedPart(l.state));
  });

  it("a batch delete, a single delete, a rollback that deletes it, and the rollbacks back keep it too", async () => {
    const f = await writerFixture();
    const l = await learned(f);
    await f.w("POST", "/library/batch", { reason: "tidy", operations: [{ op: "delete", id: l.id }] });
    await f.w("POST", "/library/rollback", { version: l.version });
    expect(learnedPart((await f.w("GET", `/experiences/${l.id}`)).body)).toEqual(learnedPart(l.state));
    await f.w("DELETE", `/experiences/${l.id}`);
    await f.w("POST", "/library/rollback", { version: l.version });
    expect(learnedPart((await f.w("GET", `/experiences/${l.id}`)).body)).toEqual(learnedPart(l.state));
    // A rollback to before the lesson existed deletes it; the rollback forward brings it back as it was.
    await f.w("POST", "/library/rollback", { version: 0 });
    expectProblem(await f.w("GET", `/experiences/${l.id}`), 404);
    await f.w("POST", "/library/rollback", { version: l.version });
    expect(learnedPart((await f.w("GET", `/experiences/${l.id}`)).body)).toEqual(learnedPart(l.state));
  });

  it("an import cannot borrow a deleted lesson's learned Q for other text under its id", async () => {
    const f = await writerFixture();
    const l = await learned(f);
    await f.w("DELETE", `/experiences/${l.id}`);
    const doc = {
      format: "praxis-library/v1",
      libraryVersion: 1,
      exportedAt: 0,
      experiences: [
        {
          id: l.id,
          text: "Paint the fence blue",
          pattern: null,
          keywords: [],
          tags: [],
          domain: null,
          source: "manual",
          status: "active",
          pinned: false,
          importance: 0.5,
          q: 0.5,
          provenance: null,
        },
      ],
    };
    expect((await f.w("POST", "/library/import", { mode: "replace", library: doc })).status).toBe(200);
    const e = (await f.w("GET", `/experiences/${l.id}`)).body;
    expect(e.q).toBe(0.5);
    expect(e.counts.successes).toBe(0);
  });
});
