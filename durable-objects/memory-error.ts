/**
 * Domain errors of the AgentMemory DO. They travel over RPC as values (`MemoryOutcome`), not as
 * thrown exceptions: an exception crossing the RPC boundary loses its class and is reported by the
 * runtime as uncaught, while a value keeps its kind, detail and field errors intact.
 */
export type MemoryErrorKind = "invalid" | "not-found" | "conflict" | "forbidden" | "embedder-not-configured" | "budget-exceeded";

export interface MemoryErrorInfo {
  kind: MemoryErrorKind;
  detail: string;
  errors: { path: string; message: string }[];
  /** The request itself is fine and lost a race (the library or the embedder changed meanwhile): the same call may succeed again. */
  retryable?: boolean;
  /** budget-exceeded: the tenant's budget (tokens), what the day used, and when it resets (epoch ms). */
  budget?: { budget: number; used: number; resetsAt: number };
}

export type MemoryOutcome<T> = { ok: true; value: T } | { ok: false; error: MemoryErrorInfo };

export class MemoryError extends Error {
  readonly info: MemoryErrorInfo;

  constructor(kind: MemoryErrorKind, detail: string, errors: { path: string; message: string }[] = []) {
    super(detail);
    this.name = "MemoryError";
    this.info = { kind, detail, errors };
  }

  static invalid(detail: string, issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> = []) {
    return new MemoryError(
      "invalid",
      detail,
      issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    );
  }
  static notFound(detail: string) {
    return new MemoryError("not-found", detail);
  }
  static conflict(detail: string) {
    return new MemoryError("conflict", detail);
  }
  /** A conflict with a concurrent change, not with the request: a 409 like any conflict, but worth retrying (jobs do). */
  static retryLater(detail: string) {
    const err = new MemoryError("conflict", detail);
    err.info.retryable = true;
    return err;
  }
  /** The caller's key may not do this (a write key touching an entry held in quarantine). */
  static forbidden(detail: string) {
    return new MemoryError("forbidden", detail);
  }
  /** The deployment's or the agent's embedder settings cannot work; each named setting is one entry of `errors`. */
  static embedderNotConfigured(detail: string, settings: readonly string[]) {
    return new MemoryError(
      "embedder-not-configured",
      detail,
      settings.map((path) => ({ path, message: "Check this setting" })),
    );
  }
}

/** The tenant's daily token budget has no room for the embedding request this needs (a paid embedder). */
export function budgetExceeded(detail: string, budget: { budget: number; used: number; resetsAt: number }): MemoryError {
  const err = new MemoryError("budget-exceeded", detail);
  err.info.budget = budget;
  return err;
}

/** Runs a DO method body, turning domain errors into values; anything else still throws (a real 500). */
export async function outcome<T>(fn: () => T | Promise<T>): Promise<MemoryOutcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof MemoryError) return { ok: false, error: err.info };
    throw err;
  }
}
