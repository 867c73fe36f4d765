import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../../src/db/client";
import { tenants } from "../../src/db/schema";
import { BudgetExceededError, createLlm, D1UsageLedger, type UsageEntry } from "../../src/llm";
import { uniq } from "../helpers";

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
  const ledger = new D1UsageLedger({ ...env, ...extraEnv }, { now: () => now });
  return { ledger, setNow: (t: number) => void (now = t) };
}

const entry = (tenantId: string, over: Partial<UsageEntry> = {}): UsageEntry => ({
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

describe("D1UsageLedger", () => {
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
    await ledger.record(entry(t, { model: "m1", purpose: "live-extract", agentId: "a1", role: "learner", tokensIn: 100, tokensOut: 10, costUsd: 0.1 }));
    await ledger.record(entry(t, { model: "m2", purpose: "live-extract:repair", agentId: "a2", role: "learner", tokensIn: 200, tokensOut: 20, costUsd: 0.2 }));
    setNow(T0 + 24 * HOUR);
    await ledger.record(entry(t, { model: "m1", purpose: "judge", agentId: null, role: "judge", tokensIn: 300, tokensOut: 30, costUsd: 0.3 }));
    await ledger.record(entry(other, { model: "m1", tokensIn: 7777 }));
    setNow(T0 + 10 * 24 * HOUR);
    await ledger.record(entry(t, { model: "m3", tokensIn: 5000 })); // outside the range below

    const from = T0 - HOUR;
    const to = T0 + 25 * HOUR;
    const byModel = await ledger.summarize(t, from, to, "model");
    expect(byModel.totals).toEqual({ calls: 3, tokensIn: 600, tokensOut: 60, costUsd: 0.6 });
    expect(byModel.groups).toEqual([
      { key: "m1", calls: 2, tokensIn: 400, tokensOut: 40, costUsd: 0.4 },
      { key: "m2", calls: 1, tokensIn: 200, tokensOut: 20, costUsd: 0.2 },
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
    expect(onlyA1.groups).toEqual([{ key: "a1", calls: 1, tokensIn: 100, tokensOut: 10, costUsd: 0.1 }]);
  });

  it("a client from createLlm records each call in D1 and is refused, with no fetch, once over budget", async () => {
    const t = await makeTenant(150);
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
    const ledger = new D1UsageLedger(llmEnv);
    expect(await ledger.usedToday(t)).toBe(160);
    const s = await ledger.summarize(t, 0, Date.now() + HOUR, "purpose");
    expect(s.groups).toEqual([{ key: "summary", calls: 1, tokensIn: 120, tokensOut: 40, costUsd: 0.0002 }]);

    await expect(llm.chat({ role: "summarizer", purpose: "summary", messages: [{ role: "user", content: "again" }] })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
    expect(spy).toHaveBeenCalledTimes(1);
    // raising the tenant's budget lets work continue
    await db(env).update(tenants).set({ dailyTokenBudget: 10_000 }).where(eq(tenants.id, t)).run();
    await llm.chat({ role: "summarizer", purpose: "summary", messages: [{ role: "user", content: "again" }] });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("four concurrent consumers overrun the daily budget by at most the calls in flight, and the check reads one running total", async () => {
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
          await llm.chat({ role: "policy", purpose: "practice-rollout", messages: [{ role: "user", content: "go" }] });
        } catch (err) {
          if (err instanceof BudgetExceededError) return;
          throw err;
        }
      }
    };
    await Promise.all([consumer(), consumer(), consumer(), consumer()]);
    const ledger = new D1UsageLedger(llmEnv);
    const used = await ledger.usedToday(t);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n, SUM(tokens_in + tokens_out) AS tokens FROM usage_ledger WHERE tenant_id = ?").bind(t).first<{ n: number; tokens: number }>();
    // The running total agrees with the ledger, call for call.
    expect(rows).toEqual({ n: calls, tokens: used });
    expect(used).toBeGreaterThanOrEqual(2000);
    const overrun = used - 2000;
    expect(overrun).toBeLessThan(4 * 150);
    expect(maxInFlight).toBeGreaterThan(1);
    // The check reads the running total, not the day's rows.
    await env.DB.prepare("DELETE FROM usage_ledger WHERE tenant_id = ?").bind(t).run();
    await expect(createLlm(llmEnv, { tenantId: t }).chat({ role: "policy", purpose: "x", messages: [{ role: "user", content: "go" }] })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
  });
});
