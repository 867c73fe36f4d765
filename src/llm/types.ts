import type { LlmRole } from "./settings";

/** One LLM call's tokens, as written to the usage ledger. */
export interface UsageEntry {
  tenantId: string;
  agentId?: string | null;
  /** What the call was for, e.g. `live-extract`; repair calls carry the suffix `:repair`. */
  purpose: string;
  role: LlmRole;
  model: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

export interface UsageRecorder {
  record(entry: UsageEntry): Promise<void>;
}

export interface BudgetGuard {
  /** Throws BudgetExceededError when the tenant may not start another LLM call today. */
  assertWithinBudget(tenantId: string): Promise<void>;
}
