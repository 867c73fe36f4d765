import type { LlmRole } from "./settings";
import type { CallSettlement, OpenCall } from "../core/metered-call";

/** One LLM call's tokens, as written to the usage ledger. */
export interface LedgerEntry {
  tenantId: string;
  agentId?: string | null;
  /** What the call was for, e.g. `live-extract`; repair calls carry the suffix `:repair`; `embed` for embeddings. */
  purpose: string;
  /** The LLM role, or `embedder` for a paid embedder's requests. */
  role: LlmRole | "embedder";
  model: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

/** A call about to be made: its ledger row is written before the request goes out. */
export interface CallOpening extends Omit<LedgerEntry, "tokensIn" | "tokensOut" | "costUsd"> {
  /** Unique per call; sent to the provider as `X-Client-Request-Id`, so its logs can be matched to the row. */
  callId: string;
  /** What the call may consume (prompt estimate + its output cap): reserved against the budget until settled. */
  estimate: { tokensIn: number; tokensOut: number; costUsd: number };
}

export interface LedgerRecorder {
  /** One call whose usage is already known, written in one step. */
  record(entry: LedgerEntry): Promise<void>;
  /**
   * Two-phase recording: the call's row is written (open, at its estimate) before the request goes
   * out and settled after, so a call cut off by a crash is still counted. Recorders without it
   * are given one `record` per answered call.
   */
  open?(call: CallOpening): Promise<OpenCall>;
}

export interface BudgetGuard {
  /** Throws BudgetExceededError when the tenant may not start another LLM call today. */
  assertWithinBudget(tenantId: string): Promise<void>;
}

/**
 * A second budget a call must fit in besides the tenant's (a practice run's own): the call is
 * reserved there before its ledger row opens, and `reserve` throws when it may not be made.
 */
export interface CallGate {
  reserve(call: CallOpening): Promise<void>;
  settle(callId: string, outcome: CallSettlement): Promise<void>;
}
