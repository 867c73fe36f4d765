import { and, asc, count, eq, gte, inArray, lte, sql, sum } from "drizzle-orm";
import { db } from "../db/client";
import { tenants, usageLedger } from "../db/schema";
import type { Env } from "../env";
import { BudgetExceededError } from "./errors";
import { eventMessages } from "../core/events";
import { EMBEDDER_TIMEOUT_MS } from "../adapters/embedders/openai";
import { LlmSettingsError } from "./settings";
import { variableProblems, variables } from "../config";
import type { BudgetGuard, CallOpening, LedgerEntry, LedgerRecorder } from "./types";
import type { CallSettlement, OpenCall } from "../core/metered-call";

export const USAGE_GROUP_BY = ["day", "model", "purpose", "agent", "role"] as const;
export type LedgerGroupBy = (typeof USAGE_GROUP_BY)[number];

export interface LedgerTotals {
  calls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** Calls without an answer on record yet: in flight, or cut off by a crash. Counted at their estimate. */
  openCalls: number;
  /** Calls whose answer never came (open past their timeout, marked by the sweep). Counted at their estimate. */
  abandonedCalls: number;
  /** Calls that ended in an error. */
  failedCalls: number;
  /** Calls whose tokens are estimates (the open ones, and answers that came without usage). */
  estimatedCalls: number;
}
export interface LedgerGroup extends LedgerTotals {
  /** The day (YYYY-MM-DD, UTC), model, purpose, agent id or role; null for calls made without an agent. */
  key: string | null;
}
export interface LedgerSummary {
  totals: LedgerTotals;
  groups: LedgerGroup[];
}

const NO_USAGE: LedgerTotals = {
  calls: 0,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  openCalls: 0,
  abandonedCalls: 0,
  failedCalls: 0,
  estimatedCalls: 0,
};

const DAY_MS = 86_400_000;

/** The UTC calendar day of an epoch-ms instant, as YYYY-MM-DD. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** The `budget.exhausted` events this isolate has queued (see announceExhausted). */
const announced = new Set<string>();
export const startOfUtcDay = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS;

/** Sums of floats drift (0.1 + 0.2); costs are reported to the micro-dollar. */
const roundUsd = (n: number) => Math.round(n * 1e6) / 1e6;

/** The env-wide default budget; unset or 0 means unlimited. */
export function envDailyTokenBudget(env: Pick<Env, "DAILY_TOKEN_BUDGET">): number | null {
  const problems = variableProblems(env, ["DAILY_TOKEN_BUDGET"]);
  if (problems.length > 0) throw new LlmSettingsError(problems);
  return variables(env).DAILY_TOKEN_BUDGET || null;
}

/** Tokens are whole and never negative; a cost that is not a number counts as 0. */
const clean = (u: { tokensIn: number; tokensOut: number; costUsd: number }) => ({
  tokensIn: Math.max(0, Math.round(u.tokensIn)),
  tokensOut: Math.max(0, Math.round(u.tokensOut)),
  costUsd: Number.isFinite(u.costUsd) ? u.costUsd : 0,
});

const INSERT_ROW =
  "INSERT INTO usage_ledger (tenant_id, agent_id, purpose, role, model, tokens_in, tokens_out, cost_usd, at, day, state, estimated, call_id, settled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const ADD_TO_DAY =
  "INSERT INTO tenant_daily_usage (tenant_id, day, tokens) VALUES (?, ?, ?) ON CONFLICT (tenant_id, day) DO UPDATE SET tokens = tokens + excluded.tokens";
/**
 * An open row, written only when the day's total plus this call's estimate stays within the tenant's
 * budget (its own, else ?15, the env default; null or 0 = unlimited). The check and the write are one
 * statement, so concurrent openers cannot both take the last of the budget.
 */
const OPEN_ROW = `INSERT INTO usage_ledger (tenant_id, agent_id, purpose, role, model, tokens_in, tokens_out, cost_usd, at, day, state, estimated, call_id, settled_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'open', 1, ?11, NULL
  WHERE (SELECT CASE WHEN t.daily_token_budget IS NULL THEN ?12 ELSE NULLIF(t.daily_token_budget, 0) END
           FROM (SELECT ?1 AS id) x LEFT JOIN tenants t ON t.id = x.id) IS NULL
     OR COALESCE((SELECT tokens FROM tenant_daily_usage WHERE tenant_id = ?1 AND day = ?10), 0) + ?6 + ?7
        <= (SELECT CASE WHEN t.daily_token_budget IS NULL THEN ?12 ELSE NULLIF(t.daily_token_budget, 0) END
              FROM (SELECT ?1 AS id) x LEFT JOIN tenants t ON t.id = x.id)`;
/** Adds an opened row's estimate to the day, only when the row was written. */
const RESERVE_IN_DAY = `INSERT INTO tenant_daily_usage (tenant_id, day, tokens)
  SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM usage_ledger WHERE call_id = ?4)
  ON CONFLICT (tenant_id, day) DO UPDATE SET tokens = tokens + excluded.tokens`;

/**
 * How long past a call's timeout its open row is left before the sweep calls it abandoned: time for
 * the settle write of an answer that arrived at the last moment.
 */
export const ABANDON_GRACE_MS = 60_000;

/** The age at which an open row is abandoned: the longest a call's attempt may take, plus the grace. */
export function abandonAfterMs(env: object): number {
  // An invalid timeout reads as the default: such a configuration makes no calls, and rows left from before it use the default.
  return Math.max(variables(env).LLM_TIMEOUT_MS, EMBEDDER_TIMEOUT_MS) + ABANDON_GRACE_MS;
}

/**
 * The D1 usage ledger: records every LLM call and enforces the per-tenant daily token budget
 * (`tenants.daily_token_budget` when set, else DAILY_TOKEN_BUDGET; 0 or unset = unlimited).
 *
 * Calls are recorded in two phases. Before the request goes out, `open` writes the call's row
 * (state `open`, tokens at an estimate: the prompt's size plus the output cap) and adds the
 * estimate to the tenant's running daily total, so the budget check sees calls in flight as
 * reservations. After the answer, `settle` puts the provider's count in the row and moves the
 * total by the difference (one batch). A call cut off by a crash keeps its open row: counted once,
 * at its estimate, marked estimated (and `abandoned` once the sweep finds it past the call's
 * timeout). Opening is where the budget holds: a call whose estimate does not fit in what is left of
 * the day is never made. `assertWithinBudget` is the cheap check before a call waits for its turn.
 */
export class LlmLedger implements LedgerRecorder, BudgetGuard {
  private readonly now: () => number;

  constructor(
    private readonly env: Pick<Env, "DB" | "DAILY_TOKEN_BUDGET"> & Partial<Pick<Env, "JOBS">>,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** A settled row for a call whose usage is already known, with the running daily total, in one D1 batch. */
  async record(entry: LedgerEntry): Promise<void> {
    const at = this.now();
    const day = utcDay(at);
    const u = clean(entry);
    await this.env.DB.batch([
      this.env.DB.prepare(INSERT_ROW).bind(
        entry.tenantId,
        entry.agentId ?? null,
        entry.purpose,
        entry.role,
        entry.model,
        u.tokensIn,
        u.tokensOut,
        u.costUsd,
        at,
        day,
        "settled",
        0,
        crypto.randomUUID(),
        at,
      ),
      this.env.DB.prepare(ADD_TO_DAY).bind(entry.tenantId, day, u.tokensIn + u.tokensOut),
    ]);
  }

  /**
   * Writes the call's open row at its estimate and reserves the estimate in the daily total (one
   * batch), unless the estimate would take the day past the tenant's budget: then nothing is written
   * and BudgetExceededError says so. A budget is thus a hard limit on what calls may reserve; what a
   * day can exceed it by is what calls use beyond their estimates (a prompt counted low).
   */
  async open(call: CallOpening): Promise<OpenCall> {
    const at = this.now();
    const day = utcDay(at);
    const u = clean(call.estimate);
    const [opened] = await this.env.DB.batch([
      this.env.DB.prepare(OPEN_ROW).bind(
        call.tenantId,
        call.agentId ?? null,
        call.purpose,
        call.role,
        call.model,
        u.tokensIn,
        u.tokensOut,
        u.costUsd,
        at,
        day,
        call.callId,
        envDailyTokenBudget(this.env),
      ),
      this.env.DB.prepare(RESERVE_IN_DAY).bind(call.tenantId, day, u.tokensIn + u.tokensOut, call.callId),
    ]);
    if (!opened?.meta.changes) {
      const budget = (await this.dailyBudget(call.tenantId)) ?? 0;
      const used = await this.usedToday(call.tenantId);
      await this.announceExhausted(call.tenantId, day, budget, used, at);
      throw new BudgetExceededError(call.tenantId, budget, used, startOfUtcDay(at) + DAY_MS, u.tokensIn + u.tokensOut);
    }
    return { settle: (outcome) => this.settle(call.callId, outcome) };
  }

  /**
   * `budget.exhausted`, once per tenant and UTC day: the event id names the day, so the fan-out sends
   * it once however many refused calls report it, and this isolate reports it only once. Best effort:
   * the refusal stands whether the event could be queued or not.
   */
  private async announceExhausted(tenantId: string, day: string, budget: number, used: number, at: number) {
    const id = `budget.exhausted:${tenantId}:${day}`;
    if (announced.has(id)) return;
    announced.add(id);
    if (announced.size > 10_000) announced.clear();
    const event = {
      id,
      type: "budget.exhausted" as const,
      tenantId,
      occurredAt: at,
      data: { day, budget, used, resetsAt: startOfUtcDay(at) + DAY_MS },
    };
    const [message] = eventMessages(tenantId, [event]);
    await this.env.JOBS?.send(message!).catch(() => announced.delete(id));
  }

  /**
   * Open rows older than `olderThanMs` (a call's timeout and its retries are long over) become
   * `abandoned`: the answer will never be settled, so the row keeps its estimate in the day's total
   * for good and stops counting as in flight. Returns how many rows it marked.
   */
  async reapOpen(olderThanMs: number, limit = 1000): Promise<number> {
    const res = await this.env.DB.prepare(
      `UPDATE usage_ledger SET state = 'abandoned', settled_at = ?1
        WHERE id IN (SELECT id FROM usage_ledger WHERE state = 'open' AND at < ?2 ORDER BY at LIMIT ?3)`,
    )
      .bind(this.now(), this.now() - olderThanMs, limit)
      .run();
    return res.meta.changes ?? 0;
  }

  /**
   * Puts the outcome in an open row and moves the daily total of the row's day by the difference
   * from its estimate. Only an open row is settled, so a second settle changes nothing.
   */
  async settle(callId: string, outcome: CallSettlement): Promise<void> {
    const u = clean(outcome);
    const tokens = u.tokensIn + u.tokensOut;
    // The total is moved first, while the row still holds its estimate; both in one transaction.
    await this.env.DB.batch([
      this.env.DB.prepare(
        `UPDATE tenant_daily_usage SET tokens = MAX(0, tokens + ? - (SELECT tokens_in + tokens_out FROM usage_ledger WHERE call_id = ?))
         WHERE (tenant_id, day) = (SELECT tenant_id, day FROM usage_ledger WHERE call_id = ? AND state = 'open')`,
      ).bind(tokens, callId, callId),
      this.env.DB.prepare(
        "UPDATE usage_ledger SET tokens_in = ?, tokens_out = ?, cost_usd = ?, state = ?, estimated = ?, settled_at = ? WHERE call_id = ? AND state = 'open'",
      ).bind(u.tokensIn, u.tokensOut, u.costUsd, outcome.failed ? "failed" : "settled", outcome.estimated ? 1 : 0, this.now(), callId),
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
    groupBy: LedgerGroupBy,
    opts: { agentIds?: string[] | null } = {},
  ): Promise<LedgerSummary> {
    const keyColumn = {
      day: usageLedger.day,
      model: usageLedger.model,
      purpose: usageLedger.purpose,
      agent: usageLedger.agentId,
      role: usageLedger.role,
    }[groupBy];
    if (opts.agentIds && opts.agentIds.length === 0) return { totals: { ...NO_USAGE }, groups: [] };
    const rows = await db(this.env)
      .select({
        key: keyColumn,
        calls: count(),
        tokensIn: sum(usageLedger.tokensIn).mapWith(Number),
        tokensOut: sum(usageLedger.tokensOut).mapWith(Number),
        costUsd: sum(usageLedger.costUsd).mapWith(Number),
        openCalls: sql<number>`SUM(${usageLedger.state} = 'open')`.mapWith(Number),
        abandonedCalls: sql<number>`SUM(${usageLedger.state} = 'abandoned')`.mapWith(Number),
        failedCalls: sql<number>`SUM(${usageLedger.state} = 'failed')`.mapWith(Number),
        estimatedCalls: sql<number>`SUM(${usageLedger.estimated})`.mapWith(Number),
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

    const groups: LedgerGroup[] = rows.map((r) => ({
      key: r.key ?? null,
      calls: r.calls,
      tokensIn: r.tokensIn ?? 0,
      tokensOut: r.tokensOut ?? 0,
      costUsd: roundUsd(r.costUsd ?? 0),
      openCalls: r.openCalls ?? 0,
      abandonedCalls: r.abandonedCalls ?? 0,
      failedCalls: r.failedCalls ?? 0,
      estimatedCalls: r.estimatedCalls ?? 0,
    }));
    // Days read best in calendar order; everything else by what it consumed, largest first.
    if (groupBy !== "day") {
      groups.sort(
        (a, b) =>
          b.tokensIn + b.tokensOut - (a.tokensIn + a.tokensOut) || b.costUsd - a.costUsd || String(a.key).localeCompare(String(b.key)),
      );
    }
    const totals = groups.reduce<LedgerTotals>(
      (t, g) => ({
        calls: t.calls + g.calls,
        tokensIn: t.tokensIn + g.tokensIn,
        tokensOut: t.tokensOut + g.tokensOut,
        costUsd: t.costUsd + g.costUsd,
        openCalls: t.openCalls + g.openCalls,
        abandonedCalls: t.abandonedCalls + g.abandonedCalls,
        failedCalls: t.failedCalls + g.failedCalls,
        estimatedCalls: t.estimatedCalls + g.estimatedCalls,
      }),
      { ...NO_USAGE },
    );
    totals.costUsd = roundUsd(totals.costUsd);
    return { totals, groups };
  }
}
