import { and, asc, count, eq, gte, inArray, lte, sum } from "drizzle-orm";
import { db } from "../db/client";
import { tenants, usageLedger } from "../db/schema";
import type { Env } from "../env";
import { BudgetExceededError } from "./errors";
import { LlmSettingsError } from "./settings";
import type { BudgetGuard, UsageEntry, UsageRecorder } from "./types";

export const USAGE_GROUP_BY = ["day", "model", "purpose", "agent", "role"] as const;
export type UsageGroupBy = (typeof USAGE_GROUP_BY)[number];

export interface UsageTotals {
  calls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}
export interface UsageGroup extends UsageTotals {
  /** The day (YYYY-MM-DD, UTC), model, purpose, agent id or role; null for calls made without an agent. */
  key: string | null;
}
export interface UsageSummary {
  totals: UsageTotals;
  groups: UsageGroup[];
}

const DAY_MS = 86_400_000;

/** The UTC calendar day of an epoch-ms instant, as YYYY-MM-DD. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);
export const startOfUtcDay = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS;

/** Sums of floats drift (0.1 + 0.2); costs are reported to the micro-dollar. */
const roundUsd = (n: number) => Math.round(n * 1e6) / 1e6;

/** The env-wide default budget; unset or 0 means unlimited. */
export function envDailyTokenBudget(env: Pick<Env, "DAILY_TOKEN_BUDGET">): number | null {
  const raw = env.DAILY_TOKEN_BUDGET?.trim();
  if (!raw) return null;
  if (!/^\d+$/.test(raw)) throw new LlmSettingsError([`DAILY_TOKEN_BUDGET must be a whole number of tokens (got ${JSON.stringify(raw)})`]);
  const n = Number(raw);
  return n > 0 ? n : null;
}

/**
 * The D1 usage ledger: records every LLM call and enforces the per-tenant daily token budget
 * (`tenants.daily_token_budget` when set, else DAILY_TOKEN_BUDGET; 0 or unset = unlimited).
 * The budget is checked before each call against a running daily total (one row, kept in the same
 * batch as each ledger row), so a check costs the same whatever the day's traffic, and concurrent
 * callers overrun it by at most the calls already in flight when it was reached; the next are refused.
 */
export class D1UsageLedger implements UsageRecorder, BudgetGuard {
  private readonly now: () => number;

  constructor(
    private readonly env: Pick<Env, "DB" | "DAILY_TOKEN_BUDGET">,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** One ledger row and the tenant's running daily total, in one D1 batch (both or neither). */
  async record(entry: UsageEntry): Promise<void> {
    const at = this.now();
    const day = utcDay(at);
    const tokensIn = Math.max(0, Math.round(entry.tokensIn));
    const tokensOut = Math.max(0, Math.round(entry.tokensOut));
    await this.env.DB.batch([
      this.env.DB.prepare(
        "INSERT INTO usage_ledger (tenant_id, agent_id, purpose, role, model, tokens_in, tokens_out, cost_usd, at, day) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ).bind(entry.tenantId, entry.agentId ?? null, entry.purpose, entry.role, entry.model, tokensIn, tokensOut, Number.isFinite(entry.costUsd) ? entry.costUsd : 0, at, day),
      this.env.DB.prepare(
        "INSERT INTO tenant_daily_usage (tenant_id, day, tokens) VALUES (?, ?, ?) ON CONFLICT (tenant_id, day) DO UPDATE SET tokens = tokens + excluded.tokens",
      ).bind(entry.tenantId, day, tokensIn + tokensOut),
    ]);
  }

  /** The tenant's daily budget in tokens, or null when unlimited. */
  async dailyBudget(tenantId: string): Promise<number | null> {
    const row = await db(this.env).select({ budget: tenants.dailyTokenBudget }).from(tenants).where(eq(tenants.id, tenantId)).get();
    if (row?.budget !== null && row?.budget !== undefined) return row.budget > 0 ? row.budget : null;
    return envDailyTokenBudget(this.env);
  }

  /** Tokens in + out the tenant used so far in the current UTC day: one row of the running total. */
  async usedToday(tenantId: string): Promise<number> {
    const row = await this.env.DB.prepare("SELECT tokens FROM tenant_daily_usage WHERE tenant_id = ? AND day = ?")
      .bind(tenantId, utcDay(this.now()))
      .first<{ tokens: number }>();
    return Number(row?.tokens ?? 0);
  }

  async assertWithinBudget(tenantId: string): Promise<void> {
    const budget = await this.dailyBudget(tenantId);
    if (budget === null) return;
    const used = await this.usedToday(tenantId);
    if (used >= budget) throw new BudgetExceededError(tenantId, budget, used, startOfUtcDay(this.now()) + DAY_MS);
  }

  /**
   * Usage between `from` and `to` (epoch ms, both inclusive), grouped. `agentIds` limits the rows to
   * those agents (for keys restricted to some agents); null or undefined means the whole tenant.
   */
  async summarize(
    tenantId: string,
    from: number,
    to: number,
    groupBy: UsageGroupBy,
    opts: { agentIds?: string[] | null } = {},
  ): Promise<UsageSummary> {
    const keyColumn = {
      day: usageLedger.day,
      model: usageLedger.model,
      purpose: usageLedger.purpose,
      agent: usageLedger.agentId,
      role: usageLedger.role,
    }[groupBy];
    if (opts.agentIds && opts.agentIds.length === 0) return { totals: { calls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 }, groups: [] };
    const rows = await db(this.env)
      .select({
        key: keyColumn,
        calls: count(),
        tokensIn: sum(usageLedger.tokensIn).mapWith(Number),
        tokensOut: sum(usageLedger.tokensOut).mapWith(Number),
        costUsd: sum(usageLedger.costUsd).mapWith(Number),
      })
      .from(usageLedger)
      .where(
        and(
          eq(usageLedger.tenantId, tenantId),
          gte(usageLedger.at, from),
          lte(usageLedger.at, to),
          opts.agentIds ? inArray(usageLedger.agentId, opts.agentIds) : undefined,
        ),
      )
      .groupBy(keyColumn)
      .orderBy(asc(keyColumn))
      .all();

    const groups: UsageGroup[] = rows.map((r) => ({
      key: r.key ?? null,
      calls: r.calls,
      tokensIn: r.tokensIn ?? 0,
      tokensOut: r.tokensOut ?? 0,
      costUsd: roundUsd(r.costUsd ?? 0),
    }));
    // Days read best in calendar order; everything else by what it consumed, largest first.
    if (groupBy !== "day") {
      groups.sort((a, b) => b.tokensIn + b.tokensOut - (a.tokensIn + a.tokensOut) || b.costUsd - a.costUsd || String(a.key).localeCompare(String(b.key)));
    }
    const totals = groups.reduce<UsageTotals>(
      (t, g) => ({ calls: t.calls + g.calls, tokensIn: t.tokensIn + g.tokensIn, tokensOut: t.tokensOut + g.tokensOut, costUsd: t.costUsd + g.costUsd }),
      { calls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    );
    totals.costUsd = roundUsd(totals.costUsd);
    return { totals, groups };
  }
}
