import { unitKey, type UnitRef } from "../../src/core/practice/unit-key";
import type { UsageTotals } from "../../src/core/practice/run-types";
import type { UnitLedger } from "../unit-ledger";
import type { RunStore } from "./store";

/** A call's tokens and cost, as reserved before it goes out or as it settled. */
export interface CallTokens {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

/** A call about to go out: what it is for and the client's estimate (the prompt's size, the output cap). */
export interface CallAsk extends CallTokens {
  purpose: string;
}

/**
 * What every phase of a run checks before it creates work: that the run is still going and its
 * budget (its own rollouts plus its held-out evaluations) is not spent. A spent budget stops the
 * run between stages, keeping what its finished steps learned.
 *
 * The budget is also a hard limit per LLM call: a unit's call reserves its estimate here before it
 * goes out (`reserve`), and is refused when the estimate does not fit beside what the run has spent
 * and what its calls in flight hold. The run can thus pass its budget only by what calls use beyond
 * their estimates. A unit's reservations become its usage when it reports (`takeReserved`).
 *
 * The estimate is the client's (the prompt's size and the output cap, 1,024 tokens when a call sets
 * none) until the run has seen a call of the same purpose settle: then the largest output seen and
 * the largest ratio of counted to estimated prompt, since most calls use a fraction of their cap
 * and reserving the cap would stop a run at a third of its budget.
 */
export class RunBudget {
  constructor(
    readonly store: RunStore,
    readonly ledger: UnitLedger,
    readonly now: () => number,
  ) {}

  /** Running and not finishing: the run still takes on work. */
  active(): boolean {
    const run = this.store.mustRun();
    return run.status === "running" && run.finishing === null;
  }

  /**
   * Tokens and cost the run has used or holds: reported units, its evaluations and its calls not yet
   * reported (`inFlight`: the reservations of calls without an outcome yet, which may come back lower).
   */
  private spent(): { tokens: number; cost: number; inFlight: { tokens: number; cost: number } } {
    const run = this.store.mustRun();
    // The run's held-out evaluations are part of what it spends.
    const evals = this.store.sqlOne<{ tokens: number; cost: number }>(
      "SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost FROM run_evals",
    );
    const held = (settled: 0 | 1) =>
      this.store.sqlOne<{ tokens: number; cost: number }>(
        "SELECT COALESCE(SUM(tokens_in + tokens_out), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost FROM reservations WHERE settled = ?",
        settled,
      );
    const used = held(1);
    const inFlight = held(0);
    return {
      tokens: run.tokens_in + run.tokens_out + evals.tokens + used.tokens + inFlight.tokens,
      cost: run.cost_usd + evals.cost + used.cost + inFlight.cost,
      inFlight,
    };
  }

  /** Whether the budget has room for this much more: what the gate asks before it draws more evaluations. */
  roomFor(tokens: number, costUsd: number): boolean {
    const budget = this.store.config().budget;
    if (!budget) return true;
    const spent = this.spent();
    return (
      (budget.maxTokens === undefined || spent.tokens + tokens <= budget.maxTokens) &&
      (budget.maxCostUsd === undefined || spent.cost + costUsd <= budget.maxCostUsd)
    );
  }

  overBudget(): boolean {
    const budget = this.store.config().budget;
    if (!budget) return false;
    const spent = this.spent();
    return (
      (budget.maxTokens !== undefined && spent.tokens >= budget.maxTokens) ||
      (budget.maxCostUsd !== undefined && spent.cost >= budget.maxCostUsd)
    );
  }

  /**
   * Reserves a unit's next call, or says why it may not be made: the run no longer takes work
   * (`inactive`); the call's estimate does not fit in what is left of the budget (`spent`, which
   * stops the run); or it fits only once calls in flight settle (`busy`: ask again shortly, since
   * most calls use less than they reserve). A repeated reservation of the same call changes nothing.
   */
  reserve(unit: string, callId: string, ask: CallAsk): "reserved" | "inactive" | "spent" | "busy" {
    if (!this.active()) return "inactive";
    const budget = this.store.config().budget;
    const estimate = this.sized(ask);
    if (budget) {
      const spent = this.spent();
      const tokens = Math.max(0, estimate.tokensIn) + Math.max(0, estimate.tokensOut);
      const cost = Math.max(0, estimate.costUsd);
      const passes = (heldTokens: number, heldCost: number) =>
        (budget.maxTokens !== undefined && heldTokens + tokens > budget.maxTokens) ||
        (budget.maxCostUsd !== undefined && heldCost + cost > budget.maxCostUsd);
      if (passes(spent.tokens - spent.inFlight.tokens, spent.cost - spent.inFlight.cost)) {
        this.stopForBudget("the run's budget has no room for its next call's reservation");
        return "spent";
      }
      if (passes(spent.tokens, spent.cost)) return "busy";
    }
    this.store.sql(
      "INSERT INTO reservations (call_id, unit_key, purpose, prompt_estimate, tokens_in, tokens_out, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (call_id) DO NOTHING",
      callId,
      unit,
      ask.purpose,
      Math.max(0, Math.round(ask.tokensIn)),
      estimate.tokensIn,
      estimate.tokensOut,
      estimate.costUsd,
    );
    return "reserved";
  }

  /** The call's reservation: the client's estimate, made closer by the calls of its purpose seen so far. */
  private sized(ask: CallAsk): CallTokens {
    const tokensIn = Math.max(0, Math.round(ask.tokensIn));
    const tokensOut = Math.max(0, Math.round(ask.tokensOut));
    const seen = this.store.sqlAll<{ max_out: number; max_in_ratio: number }>(
      "SELECT max_out, max_in_ratio FROM call_sizes WHERE purpose = ?",
      ask.purpose,
    )[0];
    if (!seen) return { tokensIn, tokensOut, costUsd: Math.max(0, ask.costUsd) };
    const sizedIn = Math.ceil(tokensIn * seen.max_in_ratio);
    const sizedOut = Math.min(tokensOut, seen.max_out);
    const whole = tokensIn + tokensOut;
    // The cost estimate shrinks with the tokens (a close enough split for a reservation).
    return { tokensIn: sizedIn, tokensOut: sizedOut, costUsd: whole > 0 ? (Math.max(0, ask.costUsd) * (sizedIn + sizedOut)) / whole : 0 };
  }

  /** A reserved call's outcome replaces its estimate (once); an answered call teaches the sizes of its purpose. */
  settle(callId: string, used: CallTokens & { failed: boolean }): void {
    const row = this.store.sqlAll<{ purpose: string; prompt_estimate: number }>(
      "SELECT purpose, prompt_estimate FROM reservations WHERE call_id = ? AND settled = 0",
      callId,
    )[0];
    if (!row) return;
    if (!used.failed) {
      this.store.sql(
        `INSERT INTO call_sizes (purpose, max_out, max_in_ratio) VALUES (?1, ?2, ?3)
         ON CONFLICT (purpose) DO UPDATE SET max_out = MAX(max_out, ?2), max_in_ratio = MAX(max_in_ratio, ?3)`,
        row.purpose,
        Math.max(0, Math.round(used.tokensOut)),
        row.prompt_estimate > 0 ? Math.max(0, used.tokensIn) / row.prompt_estimate : 1,
      );
    }
    this.store.sql(
      "UPDATE reservations SET tokens_in = ?, tokens_out = ?, cost_usd = ?, settled = 1 WHERE call_id = ? AND settled = 0",
      Math.max(0, Math.round(used.tokensIn)),
      Math.max(0, Math.round(used.tokensOut)),
      Math.max(0, Number.isFinite(used.costUsd) ? used.costUsd : 0),
      callId,
    );
  }

  /**
   * What a reporting unit's calls used, every attempt of it (a call never settled at its estimate),
   * taken out of the reservations; undefined when it reserved nothing (a webhook unit).
   */
  takeReserved(unit: string): UsageTotals | undefined {
    const r = this.store.sqlOne<{ calls: number; tokens_in: number; tokens_out: number; cost: number }>(
      "SELECT COUNT(*) AS calls, COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out, COALESCE(SUM(cost_usd), 0) AS cost FROM reservations WHERE unit_key = ?",
      unit,
    );
    if (!r.calls) return undefined;
    this.store.sql("DELETE FROM reservations WHERE unit_key = ?", unit);
    return { calls: r.calls, tokensIn: r.tokens_in, tokensOut: r.tokens_out, costUsd: r.cost };
  }

  /** Stops the run between stages: the step in flight is abandoned, finished steps' learning is kept. */
  stopForBudget(reason: string): void {
    const run = this.store.mustRun();
    if (run.finishing || run.status !== "running") return;
    this.abandonStep(run.epoch, run.step);
    this.store.updateRun({ finishing: "budget-exhausted", error: reason });
    this.store.event("budget", { reason, epoch: run.epoch, step: run.step });
  }

  abandonStep(epoch: number, step: number): void {
    this.store.sql(
      "UPDATE steps SET status = 'abandoned', ended_at = ? WHERE epoch = ? AND step = ? AND status = 'running'",
      this.now(),
      epoch,
      step,
    );
  }

  /** Checks the run may still spend; a spent budget stops it instead. */
  mayProceed(): boolean {
    if (!this.active()) return false;
    if (!this.overBudget()) return true;
    this.stopForBudget("the run's budget is spent");
    return false;
  }

  /** Creates units unless the run's budget is spent, which stops the run instead. */
  createUnits(refs: UnitRef[]): void {
    if (!this.mayProceed()) return;
    for (const r of refs)
      this.ledger.create(unitKey(r), { epoch: r.epoch, step: r.step, task: r.task, rollout: r.rollout, stage: r.stage });
  }
}
