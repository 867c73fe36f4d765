import { DomainError } from "../core/errors";
import { problemOf } from "../http/use-case";
import { ProblemError, type FieldError, type ProblemType } from "../core/problem";
import { LLM_ENV_VARS, LlmSettingsError } from "./settings";

/** No LLM is configured (LLM_BASE_URL or LLM_MODEL missing). */
export class LlmNotConfiguredError extends Error {
  override name = "LlmNotConfiguredError";
  constructor(
    message = `No LLM is configured. Set ${LLM_ENV_VARS.required.join(" and ")} (and LLM_API_KEY unless the endpoint needs none, e.g. Ollama or vLLM).`,
  ) {
    super(message);
  }
}

/** The tenant has used its daily token budget; further LLM work waits for the next UTC day. */
export class BudgetExceededError extends Error {
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
      requested === undefined || used >= budget
        ? `The daily token budget of ${budget} tokens is used up (${used} used today, UTC); it resets at ${new Date(resetsAt).toISOString()}.`
        : `The daily token budget of ${budget} tokens has ${budget - used} left today (UTC), less than this call may use (${requested}); it resets at ${new Date(resetsAt).toISOString()}.`,
    );
  }
}

/**
 * A practice run's own budget (`budget.maxTokens` / `maxCostUsd`) has no room for the next call's
 * reservation: the call is not made and the run stops between stages.
 */
export class RunBudgetSpentError extends Error {
  override name = "RunBudgetSpentError";
}

/** The endpoint failed after the client's retries, or refused the request outright. */
export class LlmUnavailableError extends Error {
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
    super(message, { cause: detail.cause });
  }
}

/** The model's answer was not usable JSON for the schema, even after the one repair call. */
export class LlmOutputError extends Error {
  override name = "LlmOutputError";
  constructor(
    message: string,
    readonly detail: { schemaName: string; issues: FieldError[]; answer: string; calls: number },
  ) {
    super(message);
  }
}

/**
 * Maps LLM-layer errors (and ProblemErrors) to a ProblemError; null for anything else, which the
 * app's error handler then reports as a 500. Routes usually call `rethrowAsProblem` in a catch.
 */
export function toProblem(err: unknown): ProblemError | null {
  if (err instanceof ProblemError) return err;
  if (err instanceof DomainError) return problemOf(err.info);
  if (err instanceof LlmNotConfiguredError) {
    return new ProblemError(503, "llm-not-configured", err.message, {
      variables: { required: [...LLM_ENV_VARS.required], optional: [...LLM_ENV_VARS.optional] },
    });
  }
  if (err instanceof LlmSettingsError) {
    return new ProblemError(503, "llm-not-configured", `${err.message}. Fix these variables and redeploy.`, {
      variables: { required: [...LLM_ENV_VARS.required], optional: [...LLM_ENV_VARS.optional] },
      problems: err.problems,
    });
  }
  if (err instanceof BudgetExceededError) {
    const retryAfter = Math.max(1, Math.ceil((err.resetsAt - Date.now()) / 1000));
    return new ProblemError(429, "budget-exceeded", err.message, {
      budget: err.budget,
      used: err.used,
      resetsAt: err.resetsAt,
      headers: { "retry-after": String(retryAfter) },
    });
  }
  if (err instanceof LlmUnavailableError) {
    // Transient upstream trouble is 503 (try later); a request the provider refuses (bad key, unknown
    // model) is 502, since retrying will not help until the operator fixes the configuration.
    return err.detail.retryable
      ? new ProblemError(503, "llm-unavailable", err.message, {
          upstreamStatus: err.detail.status ?? null,
          // Saturation here passes as soon as the calls ahead finish; a failing provider takes longer.
          headers: { "retry-after": err.detail.saturated ? "2" : "30" },
        })
      : new ProblemError(502, "llm-unavailable", err.message, { upstreamStatus: err.detail.status ?? null });
  }
  if (err instanceof LlmOutputError) {
    // The client's request was fine; the upstream model's answer was not, hence 502 (bad gateway).
    return new ProblemError(502, "llm-unavailable", err.message, { errors: err.detail.issues });
  }
  return null;
}

/** `catch (e) { rethrowAsProblem(e); }`: LLM errors become their problem, others are rethrown as they are. */
export function rethrowAsProblem(err: unknown): never {
  throw toProblem(err) ?? err;
}

/** Problems that answer 5xx or 429 but are settled by configuration or the calendar, not by waiting a few minutes. */
const SETTLED_PROBLEMS = new Set<ProblemType>(["budget-exceeded", "llm-not-configured", "embedder-not-configured"]);

/**
 * Whether the same work may succeed if tried again later: the one classification of failures for
 * retries (the queue consumer and the job records it keeps). Transient: an LLM failure the client
 * marked retryable, a problem answering 5xx, 408 or 429, and anything unclassified (network and
 * runtime errors such as a reset Durable Object). Not: a missing or invalid LLM configuration, a
 * spent budget, a model answer that stayed unusable after its repair call, a provider that refused
 * the request, and every other 4xx (validation, not found, a conflict with the request itself; a
 * conflict with a concurrent write is marked `retryable` and retried).
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof LlmUnavailableError) return err.detail.retryable;
  if (err instanceof LlmNotConfiguredError || err instanceof LlmSettingsError || err instanceof BudgetExceededError || err instanceof RunBudgetSpentError || err instanceof LlmOutputError) return false;
  if (err instanceof ProblemError) {
    if (SETTLED_PROBLEMS.has(err.type)) return false;
    // A 409 that lost a race with a concurrent change (the agent's object marks it) may pass next time.
    if (err.extra.retryable === true) return true;
    // 502 llm-unavailable is how toProblem reports a refused request or unusable output.
    if (err.type === "llm-unavailable" && err.status === 502) return false;
    return err.status >= 500 || err.status === 408 || err.status === 429;
  }
  // Errors that carry their own verdict: Cloudflare's Durable Object errors and webhook failures.
  // An overloaded object says `retryable: false` for an immediate retry; later is another matter.
  const flags = typeof err === "object" && err !== null ? (err as { retryable?: unknown; overloaded?: unknown }) : {};
  if (flags.overloaded === true) return true;
  return typeof flags.retryable === "boolean" ? flags.retryable : true;
}
