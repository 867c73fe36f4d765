import { budgetFacts, DomainError, type FieldError } from "../core/errors";
import { LLM_ENV_VARS, llmVariables } from "./settings";

/**
 * The LLM layer's failures are domain errors, each of its kind, so every door answers them and
 * every retry decision classifies them (`isRetryable`) like any other; the classes remain so callers
 * can tell them apart (a budget refusal skips work, a missing LLM stops a run).
 */

/** No LLM is configured (LLM_BASE_URL or LLM_MODEL missing). */
export class LlmNotConfiguredError extends DomainError {
  override name = "LlmNotConfiguredError";
  constructor(
    message = `No LLM is configured. Set ${LLM_ENV_VARS.required.join(" and ")} (and LLM_API_KEY unless the endpoint needs none, e.g. Ollama or vLLM).`,
  ) {
    super("llm-not-configured", message, { data: { variables: llmVariables() } });
  }
}

/** The tenant has used its daily token budget; further LLM work waits for the next UTC day. */
export class BudgetExceededError extends DomainError {
  override name = "BudgetExceededError";
  constructor(
    readonly tenantId: string,
    readonly budget: number,
    readonly used: number,
    /** Epoch ms when the budget resets (the next UTC midnight). */
    readonly resetsAt: number,
    /** The refused call's reservation (prompt estimate + output cap), when a call was refused at opening. */
    readonly requested?: number,
  ) {
    super(
      "budget-exceeded",
      requested === undefined || used >= budget
        ? `The daily token budget of ${budget} tokens is used up (${used} used today, UTC); it resets at ${new Date(resetsAt).toISOString()}.`
        : `The daily token budget of ${budget} tokens has ${budget - used} left today (UTC), less than this call may use (${requested}); it resets at ${new Date(resetsAt).toISOString()}.`,
      budgetFacts({ budget, used, resetsAt }),
    );
  }
}

/**
 * A practice run's own budget (`budget.maxTokens` / `maxCostUsd`) has no room for the next call's
 * reservation: the call is not made and the run stops between stages.
 */
export class RunBudgetSpentError extends DomainError {
  override name = "RunBudgetSpentError";
  constructor(message: string) {
    super("budget-exceeded", message);
  }
}

/** The endpoint failed after the client's retries, or refused the request outright. */
export class LlmUnavailableError extends DomainError {
  override name = "LlmUnavailableError";
  constructor(
    message: string,
    readonly detail: {
      /** HTTP status of the last response, when there was one. */
      status?: number;
      /** True for failures that may pass (429, 5xx, timeouts, connection errors). */
      retryable: boolean;
      attempts?: number;
      /** No call was made: every LLM slot of the isolate stayed busy for the wait bound. */
      saturated?: boolean;
      cause?: unknown;
    },
  ) {
    super("llm-unavailable", message, {
      retryable: detail.retryable,
      // Saturation passes as soon as the calls ahead finish; a failing provider takes longer. A
      // request the provider refuses (bad key, unknown model) waits for the operator, not the clock.
      ...(detail.retryable ? { retryAfterS: detail.saturated ? 2 : 30 } : {}),
      data: { upstreamStatus: detail.status ?? null },
    });
    this.cause = detail.cause;
  }
}

/** The model's answer was not usable JSON for the schema, even after the one repair call. */
export class LlmOutputError extends DomainError {
  override name = "LlmOutputError";
  constructor(
    message: string,
    readonly detail: { schemaName: string; issues: FieldError[]; answer: string; calls: number },
  ) {
    // The client's request was fine; the upstream model's answer was not (a bad gateway, not a retry).
    super("llm-unavailable", message, { fields: detail.issues });
  }
}
