import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../../src/db/client";
import { tenants } from "../../src/db/schema";
import { abandonAfterMs, BudgetExceededError, createLlm, LlmLedger, type LedgerEntry } from "../../src/llm";
import { CRON_FREQUENT, cronTasks } from "../../src/cron";
import { uniq } from "../helpers";

/** Rows written in one step after their answer: none open, failed or estimated. */
const ALL_SETTLED = { openCalls: 0, abandonedCalls: 0, failedCalls: 0, estimatedCalls: 0 };

const T0 = Date.UTC(2026, 2, 10, 12, 0, 0); // 2026-03-10 12:00 UTC
const HOUR = 3_600_000;

async function makeTenant(budget: number | null = null) {
  const id = uniq("ten");
  await db(env).insert(tenants).values({ id, name: id, dailyTokenBudget: budget }).run();
  return id;
}

/** A ledger whose clock the test moves. */
function ledgerAt(start: number, extraEnv: Record<string, string> = {}) {
  let now = start;
  const ledger = new LlmLedger({ ...env, ...extraEnv }, { now: () => now });
  return { ledger, setNow: (t: number) => void (now = t) };
}

const entry = (tenantId: string, over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  tenantId,
  agentId: "a1",
  purpose: "live-extract",
  role: "learner",
  model: "m1",
  tokensIn: 100,
  tokensOut: 10,
  costUsd: 0.001,
  ...over,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("LlmLedger", () => {
  it("sums tokens per tenant for the current UTC day only", async () => {
    const a = await makeTenant();
    const b = await makeTenant();
    const { ledger, setNow } = ledgerAt(T0 - 24 * HOUR);
    await ledger.record(entry(a, { tokensIn: 5000, tokensOut: 5000 })); // yesterday
    setNow(T0);
    await ledger.record(entry(a, { tokensIn: 300, tokensOut: 40 }));
    await ledger.record(entry(a, { tokensIn: 60, tokensOut: 0, agentId: null }));
    await ledger.record(entry(b, { tokensIn: 999, tokensOut: 1 }));
    expect(await ledger.usedToday(a)).toBe(400);
    expect(await ledger.usedToday(b)).toBe(1000);
    setNow(T0 + 13 * HOUR); // past midnight: a new day
    expect(await ledger.usedToday(a)).toBe(0);
  });

  it("takes the tenant's budget over DAILY_TOKEN_BUDGET, and treats unset or 0 as unlimited", async () => {
    const own = await makeTenant(500);
    const none = await makeTenant(null);
    const zero = await makeTenant(0);
    const { ledger } = ledgerAt(T0, { DAILY_TOKEN_BUDGET: "2000" });
    expect(await ledger.dailyBudget(own)).toBe(500);
    expect(await ledger.dailyBudget(none)).toBe(2000);
    expect(await ledger.dailyBudget(zero)).toBeNull();
    expect(await ledgerAt(T0, { DAILY_TOKEN_BUDGET: "0" }).ledger.dailyBudget(none)).toBeNull();
    expect(await ledgerAt(T0).ledger.dailyBudget(none)).toBeNull();
  });

  it("refuses once the day's tokens reach the budget, and allows again the next UTC day", async () => {
    const t = await makeTenant(1000);
    const { ledger, setNow } = ledgerAt(T0);
    await ledger.record(entry(t, { tokensIn: 900, tokensOut: 50 }));
    await expect(ledger.assertWithinBudget(t)).resolves.toBeUndefined();
    await ledger.record(entry(t, { tokensIn: 40, tokensOut: 10 }));
    const err = await ledger.assertWithinBudget(t).catch((e) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({ budget: 1000, used: 1000, resetsAt: Date.UTC(2026, 2, 11) });
    setNow(Date.UTC(2026, 2, 11, 0, 0, 1));
    await expect(ledger.assertWithinBudget(t)).resolves.toBeUndefined();
  });

  it("summarizes a range grouped by model, purpose, agent, role and day", async () => {
    const t = await makeTenant();
    const other = await makeTenant();
    const { ledger, setNow } = ledgerAt(T0);
    await ledger.record(
      entry(t, { model: "m1", purpose: "live-extract", agentId: "a1", role: "learner", tokensIn: 100, tokensOut: 10, costUsd: 0.1 }),
    );
    await ledger.record(
      entry(t, { model: "m2", purpose: "live-extract:repair", agentId: "a2", role: "learner", tokensIn: 200, tokensOut: 20, costUsd: 0.2 }),
    );
    setNow(T0 + 24 * HOUR);
    await ledger.record(
      entry(t, { model: "m1", purpose: "judge", agentId: null, role: "judge", tokensIn: 300, tokensOut: 30, costUsd: 0.3 }),
    );
    await ledger.record(entry(other, { model: "m1", tokensIn: 7777 }));
    setNow(T0 + 10 * 24 * HOUR);
    await ledger.record(entry(t, { model: "m3", tokensIn: 5000 })); // outside the range below

    const from = T0 - HOUR;
    const to = T0 + 25 * HOUR;
    const byModel = await ledger.summarize(t, from, to, "model");
    expect(byModel.totals).toEqual({ calls: 3, tokensIn: 600, tokensOut: 60, costUsd: 0.6, ...ALL_SETTLED });
    expect(byModel.groups).toEqual([
      { key: "m1", calls: 2, tokensIn: 400, tokensOut: 40, costUsd: 0.4, ...ALL_SETTLED },
      { key: "m2", calls: 1, tokensIn: 200, tokensOut: 20, costUsd: 0.2, ...ALL_SETTLED },
    ]);
    const byDay = await ledger.summarize(t, from, to, "day");
    expect(byDay.groups.map((g) => [g.key, g.calls, g.tokensIn])).toEqual([
      ["2026-03-10", 2, 300],
      ["2026-03-11", 1, 300],
    ]);
    const byAgent = await ledger.summarize(t, from, to, "agent");
    expect(byAgent.groups.map((g) => [g.key, g.tokensIn])).toEqual([
      [null, 300],
      ["a2", 200],
      ["a1", 100],
    ]);
    const byRole = await ledger.summarize(t, from, to, "role");
    expect(byRole.groups.map((g) => [g.key, g.calls])).toEqual([
      ["judge", 1],
      ["learner", 2],
    ]);
    const byPurpose = await ledger.summarize(t, from, to, "purpose");
    expect(byPurpose.groups.map((g) => g.key).sort()).toEqual(["judge", "live-extract", "live-extract:repair"]);
    const onlyA1 = await ledger.summarize(t, from, to, "agent", { agentIds: ["a1"] });
    expect(onlyA1.groups).toEqual([{ key: "a1", calls: 1, tokensIn: 100, tokensOut: 10, costUsd: 0.1, ...ALL_SETTLED }]);
  });

  it("a client from createLlm records each call in D1 and is refused, with no fetch, once its reservation would pass the budget", async () => {
    // The first call reserves its prompt and the default output cap (1,024) and uses 160; the second
    // would reserve as much again on top of those 160: more than is left, so it is never sent.
    const t = await makeTenant(1100);
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
      Response.json({
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "fine", refusal: null }, finish_reason: "stop" }],
        usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
      }),
    );
    const llmEnv = { ...env, LLM_BASE_URL: "https://llm.test/v1", LLM_MODEL: "m", LLM_PRICES: '{"m": {"input": 1, "output": 2}}' };
    const llm = createLlm(llmEnv, { tenantId: t, agentId: "bot" });
    const first = await llm.chat({ role: "summarizer", purpose: "summary", messages: [{ role: "user", content: "sum up" }] });
    expect(first.text).toBe("fine");
    expect(spy).toHaveBeenCalledTimes(1);
    const ledger = new LlmLedger(llmEnv);
    expect(await ledger.usedToday(t)).toBe(160);
    const s = await ledger.summarize(t, 0, Date.now() + HOUR, "purpose");
    expect(s.groups).toEqual([{ key: "summary", calls: 1, tokensIn: 120, tokensOut: 40, costUsd: 0.0002, ...ALL_SETTLED }]);

    await expect(
      llm.chat({ role: "summarizer", purpose: "summary", messages: [{ role: "user", content: "again" }] }),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(spy).toHaveBeenCalledTimes(1);
    // raising the tenant's budget lets work continue
    await db(env).update(tenants).set({ dailyTokenBudget: 10_000 }).where(eq(tenants.id, t)).run();
    await llm.chat({ role: "summarizer", purpose: "summary", messages: [{ role: "user", content: "again" }] });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("four concurrent consumers never take the day past its budget: each call reserves its estimate first, and the check reads one running total", async () => {
    const t = await makeTenant(2000);
    let calls = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      calls++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Answers take a few ms, so the consumers' budget checks and records interleave.
      await scheduler.wait(3);
      inFlight--;
      return Response.json({
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "ok", refusal: null }, finish_reason: "stop" }],
        usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
      });
    });
    const llmEnv = { ...env, LLM_BASE_URL: "https://llm.test/v1", LLM_MODEL: "m", LLM_MAX_CONCURRENCY: "8" };
    const consumer = async () => {
      const llm = createLlm(llmEnv, { tenantId: t, agentId: "bot" });
      for (;;) {
        try {
          await llm.chat({ role: "policy", purpose: "practice-rollout", maxTokens: 200, messages: [{ role: "user", content: "go" }] });
        } catch (err) {
          if (err instanceof BudgetExceededError) return;
          throw err;
        }
      }
    };
    await Promise.all([consumer(), consumer(), consumer(), consumer()]);
    const ledger = new LlmLedger(llmEnv);
    const used = await ledger.usedToday(t);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n, SUM(tokens_in + tokens_out) AS tokens FROM usage_ledger WHERE tenant_id = ?")
      .bind(t)
      .first<{ n: number; tokens: number }>();
    // The running total agrees with the ledger, call for call.
    expect(rows).toEqual({ n: calls, tokens: used });
    // Each call reserved 201 and used 150: none passed the budget, and the consumers stopped only
    // when the next reservation did not fit beside the calls in flight.
    expect(used).toBeLessThanOrEqual(2000);
    expect(used).toBeGreaterThan(2000 - 4 * 201);
    const open = await env.DB.prepare("SELECT COUNT(*) AS n FROM usage_ledger WHERE tenant_id = ? AND state = 'open'")
      .bind(t)
      .first<{ n: number }>();
    expect(open!.n).toBe(0);
    expect(maxInFlight).toBeGreaterThan(1);
    // The check reads the running total, not the day's rows.
    await env.DB.prepare("DELETE FROM usage_ledger WHERE tenant_id = ?").bind(t).run();
    await expect(
      createLlm(llmEnv, { tenantId: t }).chat({ role: "policy", purpose: "x", messages: [{ role: "user", content: "go" }] }),
    ).rejects.toBeInstanceOf(BudgetExceededError);
  });
});

describe("two-phase recording", () => {
  const answer = (usage: Record<string, number> | undefined = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 }) =>
    Response.json({
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "ok", refusal: null }, finish_reason: "stop" }],
      ...(usage ? { usage } : {}),
    });
  const llmEnv = { ...env, LLM_BASE_URL: "https://llm.test/v1", LLM_MODEL: "m", LLM_MAX_RETRIES: "0", LLM_MAX_CONCURRENCY: "8" };
  const rowsOf = (t: string) =>
    env.DB.prepare("SELECT state, estimated, tokens_in, tokens_out, call_id, settled_at FROM usage_ledger WHERE tenant_id = ? ORDER BY id")
      .bind(t)
      .all<{
        state: string;
        estimated: number;
        tokens_in: number;
        tokens_out: number;
        call_id: string;
        settled_at: number | null;
      }>();

  it("writes the call's row, open at its estimate and reserved in the daily total, before the request goes out; settles it after", async () => {
    const t = await makeTenant();
    const ledger = new LlmLedger(llmEnv);
    let seenWhileInFlight: unknown = null;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get("x-client-request-id");
      const { results } = await rowsOf(t);
      seenWhileInFlight = { rows: results, used: await ledger.usedToday(t), header };
      return answer();
    });
    const llm = createLlm(llmEnv, { tenantId: t, agentId: "bot" });
    await llm.chat({ role: "policy", purpose: "p", maxTokens: 200, messages: [{ role: "user", content: "x".repeat(400) }] });

    const inFlight = seenWhileInFlight as {
      rows: { state: string; estimated: number; tokens_in: number; tokens_out: number; call_id: string }[];
      used: number;
      header: string;
    };
    expect(inFlight.rows).toHaveLength(1);
    expect(inFlight.rows[0]).toMatchObject({ state: "open", estimated: 1, tokens_out: 200 });
    expect(inFlight.rows[0]!.tokens_in).toBeGreaterThan(50); // the prompt's size, estimated
    expect(inFlight.used).toBe(inFlight.rows[0]!.tokens_in + 200);
    // The provider sees the row's id, so its logs can be matched to the ledger.
    expect(inFlight.header).toBe(inFlight.rows[0]!.call_id);

    const { results } = await rowsOf(t);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ state: "settled", estimated: 0, tokens_in: 120, tokens_out: 30, call_id: inFlight.header });
    expect(results[0]!.settled_at).not.toBeNull();
    expect(await ledger.usedToday(t)).toBe(150);
  });

  it("a call never settled (its runtime died) stays counted once, at its estimate, shown as open and estimated", async () => {
    const t = await makeTenant();
    const { ledger } = ledgerAt(T0);
    await ledger.record(entry(t, { tokensIn: 100, tokensOut: 10 }));
    const cut = await ledger.open({
      tenantId: t,
      agentId: "a1",
      purpose: "practice-rollout",
      role: "policy",
      model: "m1",
      callId: crypto.randomUUID(),
      estimate: { tokensIn: 300, tokensOut: 1024, costUsd: 0 },
    });
    expect(await ledger.usedToday(t)).toBe(110 + 1324);
    const s = await ledger.summarize(t, T0 - HOUR, T0 + HOUR, "purpose");
    expect(s.totals).toEqual({
      calls: 2,
      tokensIn: 400,
      tokensOut: 1034,
      costUsd: 0.001,
      openCalls: 1,
      abandonedCalls: 0,
      failedCalls: 0,
      estimatedCalls: 1,
    });
    expect(s.groups.find((g) => g.key === "practice-rollout")).toMatchObject({ calls: 1, openCalls: 1, estimatedCalls: 1 });

    // Settling is once only: a late or repeated settle changes nothing more.
    await cut.settle({ tokensIn: 250, tokensOut: 50, costUsd: 0.002, estimated: false, failed: false });
    await cut.settle({ tokensIn: 9999, tokensOut: 9999, costUsd: 9, estimated: false, failed: false });
    expect(await ledger.usedToday(t)).toBe(110 + 300);
    const after = await ledger.summarize(t, T0 - HOUR, T0 + HOUR, "day");
    expect(after.totals).toEqual({
      calls: 2,
      tokensIn: 350,
      tokensOut: 60,
      costUsd: 0.003,
      openCalls: 0,
      abandonedCalls: 0,
      failedCalls: 0,
      estimatedCalls: 0,
    });
  });

  it("settles against the day the call was opened, also when the answer comes after midnight", async () => {
    const t = await makeTenant();
    const { ledger, setNow } = ledgerAt(T0 + 11 * HOUR + 59 * 60_000); // 23:59 UTC
    const call = await ledger.open({
      tenantId: t,
      purpose: "p",
      role: "policy",
      model: "m",
      callId: crypto.randomUUID(),
      estimate: { tokensIn: 100, tokensOut: 500, costUsd: 0 },
    });
    setNow(T0 + 12 * HOUR + 60_000); // 00:01 the next day
    await call.settle({ tokensIn: 80, tokensOut: 20, costUsd: 0, estimated: false, failed: false });
    expect(await ledger.usedToday(t)).toBe(0);
    setNow(T0);
    expect(await ledger.usedToday(t)).toBe(100);
  });

  it("an error answer settles the call as failed with 0 tokens, and releases its reservation", async () => {
    const t = await makeTenant();
    vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
      Response.json({ error: { message: "bad request", type: "invalid_request_error" } }, { status: 400 }),
    );
    const llm = createLlm(llmEnv, { tenantId: t });
    await expect(llm.chat({ role: "policy", purpose: "p", messages: [{ role: "user", content: "go" }] })).rejects.toThrow(/answered 400/);
    const { results } = await rowsOf(t);
    expect(results).toEqual([expect.objectContaining({ state: "failed", estimated: 0, tokens_in: 0, tokens_out: 0 })]);
    const ledger = new LlmLedger(llmEnv);
    expect(await ledger.usedToday(t)).toBe(0);
    expect((await ledger.summarize(t, 0, Date.now() + HOUR, "day")).totals).toMatchObject({
      calls: 1,
      failedCalls: 1,
      openCalls: 0,
      tokensIn: 0,
    });
  });

  it("a timed-out call settles as failed but keeps its estimate: the provider may have done the work", async () => {
    const t = await makeTenant();
    vi.spyOn(globalThis, "fetch").mockImplementation(
      (_input: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted", "AbortError")));
        }),
    );
    const llm = createLlm({ ...llmEnv, LLM_TIMEOUT_MS: "20" }, { tenantId: t });
    await expect(llm.chat({ role: "policy", purpose: "p", maxTokens: 300, messages: [{ role: "user", content: "go" }] })).rejects.toThrow(
      /timed out/,
    );
    const { results } = await rowsOf(t);
    expect(results).toEqual([expect.objectContaining({ state: "failed", estimated: 1, tokens_out: 300 })]);
    expect(await new LlmLedger(llmEnv).usedToday(t)).toBe(results[0]!.tokens_in + 300);
  });

  it("the budget check counts calls in flight at their reservation", async () => {
    const t = await makeTenant(1000);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let fetches = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      fetches++;
      await held;
      return answer();
    });
    const llm = createLlm(llmEnv, { tenantId: t });
    const first = llm.chat({ role: "policy", purpose: "p", maxTokens: 900, messages: [{ role: "user", content: "go" }] });
    while (fetches === 0) await scheduler.wait(1);
    // The first call's reservation (901) leaves 99: a call that may use 501 is not made.
    await expect(
      llm.chat({ role: "policy", purpose: "p", maxTokens: 500, messages: [{ role: "user", content: "again" }] }),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(fetches).toBe(1);
    release();
    await first;
    // Settled at the 150 tokens it used, the rest of the budget is free again.
    await llm.chat({ role: "policy", purpose: "p", maxTokens: 500, messages: [{ role: "user", content: "again" }] });
    expect(fetches).toBe(2);
  });

  it("a day overruns its budget by at most one call's use beyond its estimate (a provider that ignores the output cap)", async () => {
    const t = await makeTenant(2000);
    let fetches = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      fetches++;
      return answer({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 });
    });
    const llm = createLlm(llmEnv, { tenantId: t });
    // Each call reserves its tiny prompt and 100 output tokens (101) but uses 150: 49 beyond its estimate.
    for (;;) {
      const r = await llm
        .chat({ role: "policy", purpose: "p", maxTokens: 100, messages: [{ role: "user", content: "go" }] })
        .catch((e) => e);
      if (r instanceof BudgetExceededError) break;
    }
    const used = await new LlmLedger(llmEnv).usedToday(t);
    expect(used).toBe(fetches * 150);
    // Checking only what was used before each call would have let the 14th call take the day to 2,100.
    expect(used - 2000).toBeLessThanOrEqual(150 - 101);
  });

  it("each attempt of a retried call has its own row, and a budget spent by the first attempt stops the retry", async () => {
    const t = await makeTenant();
    let fetches = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      fetches++;
      return fetches === 1 ? Response.json({ error: { message: "busy" } }, { status: 503, headers: { "retry-after-ms": "1" } }) : answer();
    });
    const retrying = { ...llmEnv, LLM_MAX_RETRIES: "2" };
    await createLlm(retrying, { tenantId: t }).chat({
      role: "policy",
      purpose: "p",
      maxTokens: 100,
      messages: [{ role: "user", content: "go" }],
    });
    expect(fetches).toBe(2);
    const { results } = await rowsOf(t);
    expect(results.map((r) => [r.state, r.tokens_in + r.tokens_out])).toEqual([
      ["failed", 0],
      ["settled", 150],
    ]);
    expect(new Set(results.map((r) => r.call_id)).size).toBe(2);

    // An attempt that times out keeps its estimate (the provider may have done the work): the retry's
    // reservation no longer fits, so no second request is sent.
    const tight = await makeTenant(1500);
    fetches = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(
      (_input: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          fetches++;
          init?.signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted", "AbortError")));
        }),
    );
    const err = await createLlm({ ...retrying, LLM_TIMEOUT_MS: "20" }, { tenantId: tight })
      .chat({ role: "policy", purpose: "p", maxTokens: 1000, messages: [{ role: "user", content: "go" }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(fetches).toBe(1);
    const rows = (await rowsOf(tight)).results;
    expect(rows.map((r) => [r.state, r.estimated])).toEqual([["failed", 1]]);
    expect(await new LlmLedger(llmEnv).usedToday(tight)).toBe(rows[0]!.tokens_in + rows[0]!.tokens_out);
  });

  it("an open row past its call's timeout is marked abandoned by the cron: counted once at its estimate, no longer in flight", async () => {
    const t = await makeTenant();
    const { ledger, setNow } = ledgerAt(T0);
    const cut = await ledger.open({
      tenantId: t,
      purpose: "p",
      role: "policy",
      model: "m",
      callId: crypto.randomUUID(),
      estimate: { tokensIn: 100, tokensOut: 400, costUsd: 0 },
    });
    const live = ledgerAt(T0 + 60_000);
    const young = await live.ledger.open({
      tenantId: t,
      purpose: "p",
      role: "policy",
      model: "m",
      callId: crypto.randomUUID(),
      estimate: { tokensIn: 10, tokensOut: 40, costUsd: 0 },
    });
    setNow(T0 + abandonAfterMs(llmEnv) + 1);
    expect(await ledger.reapOpen(abandonAfterMs(llmEnv))).toBe(1);
    const s = await ledger.summarize(t, T0 - HOUR, T0 + HOUR, "day");
    expect(s.totals).toMatchObject({ calls: 2, tokensIn: 110, tokensOut: 440, openCalls: 1, abandonedCalls: 1, estimatedCalls: 2 });
    expect(await ledger.usedToday(t)).toBe(550);
    // An answer arriving after all changes nothing: the row is no longer open.
    await cut.settle({ tokensIn: 1, tokensOut: 1, costUsd: 0, estimated: false, failed: false });
    expect(await ledger.usedToday(t)).toBe(550);
    await young.settle({ tokensIn: 5, tokensOut: 5, costUsd: 0, estimated: false, failed: false });
    expect(await ledger.usedToday(t)).toBe(510);
    // The frequent cron runs the same sweep.
    const leftOpen = await ledger.open({
      tenantId: t,
      purpose: "p",
      role: "policy",
      model: "m",
      callId: crypto.randomUUID(),
      estimate: { tokensIn: 1, tokensOut: 1, costUsd: 0 },
    });
    void leftOpen;
    const ran = await cronTasks[CRON_FREQUENT]!(env, Date.now() + 24 * HOUR * 365 * 10);
    expect(ran.usageRowsAbandoned).toBeGreaterThanOrEqual(1);
    expect((await ledger.summarize(t, 0, T0 + 365 * 24 * HOUR * 20, "day")).totals.openCalls).toBe(0);
  });
});
