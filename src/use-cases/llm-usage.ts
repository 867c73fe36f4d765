import { invalid, outcome } from "../core/errors";
import { requireScope, requireSystem } from "../core/principal";
import { abandonAfterMs, LlmLedger, type LedgerGroupBy } from "../llm/ledger";
import type { Caller, Deps } from "../platform/deps";

const DAY_MS = 86_400_000;
/** The range a report covers when it names no start: this many days up to its end. */
export const DEFAULT_RANGE_DAYS = 30;

/**
 * The tenant's LLM calls, tokens and estimated cost from the usage ledger, grouped. The range ends
 * now unless told otherwise; a key restricted to some agents sees only those agents' calls.
 */
export const usageReport = (deps: Deps, caller: Caller, q: { from?: number; to?: number; groupBy: LedgerGroupBy }) =>
  outcome(async () => {
    const key = requireScope(caller, "read");
    const to = q.to ?? Date.now();
    const from = q.from ?? to - DEFAULT_RANGE_DAYS * DAY_MS;
    if (from > to) {
      throw invalid("`from` must not be after `to` (which defaults to now).", [
        { path: "query.from", message: "`from` must not be after `to`" },
      ]);
    }
    const summary = await new LlmLedger(deps.env).summarize(key.tenantId, from, to, q.groupBy, { agentIds: key.agentIds });
    return { from, to, groupBy: q.groupBy, ...summary };
  });

/** The cron's part: usage rows whose call never settled (its isolate died) are closed as abandoned. */
export const reapAbandonedUsage = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return new LlmLedger(deps.env, { now: () => input.at }).reapOpen(abandonAfterMs(deps.env));
  });
