/**
 * Domain errors: what went wrong, in the service's own words, with no HTTP status. Services,
 * jobs and the Durable Objects raise them; each door maps a kind to its own answer (src/http: a
 * status and problem type; src/mcp: a tool error). Across an RPC boundary they travel as values
 * (`Outcome`), because an exception crossing it loses its class.
 */
export type DomainErrorKind =
  /** The input breaks a rule a schema can state (a bad cursor, a malformed field): nothing was done. */
  | "invalid"
  /** The input is well formed but cannot be applied to the current state (a rule of the domain). */
  | "unprocessable"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "conflict"
  /** A read asked for a library version (`minVersion`) the agent's library has not reached. */
  | "version-not-reached"
  | "too-large"
  | "rate-limited"
  | "budget-exceeded"
  | "llm-not-configured"
  | "llm-unavailable"
  | "embedder-not-configured"
  /** A dependency (D1, an object, a queue) is briefly unavailable or saturated: retry after `retryAfterS`. */
  | "unavailable";

export interface FieldError {
  path: string;
  message: string;
  code?: string;
}

/**
 * Plain data two levels deep, so an error crosses an RPC boundary as a value and its type survives
 * the stub's typing (`unknown` or a recursive type would drop the error branch of an Outcome).
 */
type Scalar = string | number | boolean | null;
export type ErrorData = { [k: string]: Scalar | Scalar[] | { [k: string]: Scalar | Scalar[] } };

export interface DomainErrorInfo {
  kind: DomainErrorKind;
  detail: string;
  fields?: FieldError[];
  /** The same call may succeed if repeated (a lost race, a transient dependency failure). */
  retryable: boolean;
  /** Seconds a client should wait before repeating (unavailable, rate-limited, budget-exceeded). */
  retryAfterS?: number;
  /** Facts a client acts on, carried into the door's answer as they are (budget figures, setting names). */
  data?: ErrorData;
}

export class DomainError extends Error {
  readonly info: DomainErrorInfo;

  constructor(kind: DomainErrorKind, detail: string, more: Partial<Omit<DomainErrorInfo, "kind" | "detail">> = {}) {
    super(detail);
    this.name = "DomainError";
    this.info = { kind, detail, retryable: false, ...more };
  }

  get kind(): DomainErrorKind {
    return this.info.kind;
  }
  get retryable(): boolean {
    return this.info.retryable;
  }

  static fromInfo(info: DomainErrorInfo): DomainError {
    return new DomainError(info.kind, info.detail, info);
  }

  /** Input a check inside the service or object refused (a zod parse there): each issue is one field of `fields`. */
  static unprocessable(detail: string, issues: ReadonlyArray<Issue> = []) {
    return unprocessable(detail, issues.length ? fieldErrors(issues) : undefined);
  }
  static notFound(detail: string) {
    return notFound(detail);
  }
  static conflict(detail: string) {
    return conflict(detail);
  }
  /** A conflict with a concurrent change, not with the request: the same call may succeed again (jobs retry it). */
  static retryLater(detail: string) {
    return conflict(detail, { retryable: true });
  }
  /** The caller's key may not do this (a write key touching an entry held in quarantine). */
  static forbidden(detail: string) {
    return forbidden(detail);
  }
  /** The deployment's or the agent's embedder settings cannot work; each named setting is one entry of `fields`. */
  static embedderNotConfigured(detail: string, settings: readonly string[]) {
    return new DomainError("embedder-not-configured", detail, {
      fields: settings.map((path) => ({ path, message: "Check this setting" })),
      data: { settings: [...settings] },
    });
  }
}

type Issue = { path: ReadonlyArray<PropertyKey>; message: string; code?: string };

/** A daily token budget's state when it refused work: its size, what the day used, and when it resets (epoch ms). */
export interface TokenBudget {
  budget: number;
  used: number;
  resetsAt: number;
}

/** The figures a budget-exceeded error carries: the budget for the client, and the wait until it resets. */
export const budgetFacts = (b: TokenBudget, now = Date.now()) => ({
  retryAfterS: Math.max(1, Math.ceil((b.resetsAt - now) / 1000)),
  data: { budget: b.budget, used: b.used, resetsAt: b.resetsAt },
});

/** The tenant's daily token budget has no room for the work asked (an LLM call, a paid embedding). */
export const budgetExceeded = (detail: string, b: TokenBudget) => new DomainError("budget-exceeded", detail, budgetFacts(b));

export const invalid = (detail: string, fields?: FieldError[]) => new DomainError("invalid", detail, fields ? { fields } : {});
export const unprocessable = (detail: string, fields?: FieldError[]) => new DomainError("unprocessable", detail, fields ? { fields } : {});
export const unauthorized = (detail: string) => new DomainError("unauthorized", detail);
export const notFound = (detail: string) => new DomainError("not-found", detail);
export const forbidden = (detail: string) => new DomainError("forbidden", detail);
export const conflict = (detail: string, more: { retryable?: boolean; data?: ErrorData } = {}) =>
  new DomainError("conflict", detail, { retryable: more.retryable ?? false, ...(more.data ? { data: more.data } : {}) });
export const unavailable = (detail: string, retryAfterS = 1, data?: ErrorData) =>
  new DomainError("unavailable", detail, { retryable: true, retryAfterS, ...(data ? { data } : {}) });
/** The read's `minVersion` is past the agent's library version: no write it waited for made that version. */
export const versionNotReached = (minVersion: number, libraryVersion: number) =>
  new DomainError(
    "version-not-reached",
    `This agent's library is at version ${libraryVersion}; minVersion ${minVersion} was not reached. Pass a libraryVersion a write answered.`,
    { fields: [{ path: "minVersion", message: `At most ${libraryVersion}` }], data: { minVersion, libraryVersion } },
  );
export const rateLimited = (detail: string, retryAfterS: number) => new DomainError("rate-limited", detail, { retryAfterS });

/** Zod issues as the field list clients read; paths are dotted (`items.0.text`). */
export function fieldErrors(issues: ReadonlyArray<Issue>, prefix?: string): FieldError[] {
  return issues.map((i) => {
    const path = i.path.map(String).join(".");
    return { path: prefix ? (path ? `${prefix}.${path}` : prefix) : path, message: i.message, ...(i.code ? { code: i.code } : {}) };
  });
}

/** What a use case or an object method answers: its value, or the domain error that stopped it. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: DomainErrorInfo };

/** Runs a body, turning domain errors into values; anything else still throws (a real fault). */
export async function outcome<T>(fn: () => T | Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof DomainError) return { ok: false, error: err.info };
    throw err;
  }
}

/** The value of an outcome, or its error thrown again as a DomainError (for a use case calling another). */
export function unwrap<T>(o: Outcome<T>): T {
  if (o.ok) return o.value;
  throw DomainError.fromInfo(o.error);
}

/** Kinds that pass by waiting whatever the error says: a busy dependency, a rate limit. */
const TRANSIENT_KINDS = new Set<DomainErrorKind>(["rate-limited", "unavailable"]);

/**
 * Whether the same work may succeed if tried again later: the one classification of failures for
 * retries (the queue consumer, the jobs and the records they keep). A domain error by its kind and
 * its own `retryable` (a lost race, an LLM failure that may pass); the rest (a missing or invalid
 * configuration, a spent budget, a refused request) is settled until someone changes something.
 * Errors from below the domain carry their own verdict (Cloudflare's Durable Object errors and
 * webhook failures: an overloaded object says `retryable: false` for an immediate retry, later is
 * another matter); anything unclassified (a network or runtime error) is transient.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof DomainError) return err.retryable || TRANSIENT_KINDS.has(err.kind);
  const flags = typeof err === "object" && err !== null ? (err as { retryable?: unknown; overloaded?: unknown }) : {};
  if (flags.overloaded === true) return true;
  return typeof flags.retryable === "boolean" ? flags.retryable : true;
}

/** Kinds the deployment's configuration or a dependency causes: the request itself may be fine. */
const NOT_THE_REQUEST = new Set<DomainErrorKind>(["llm-not-configured", "llm-unavailable", "embedder-not-configured", "unavailable"]);

/** A domain error that lies with the request or the state it meets (invalid, not found, a conflict, a spent budget), not with the deployment. */
export const isRequestFault = (err: unknown): err is DomainError => err instanceof DomainError && !NOT_THE_REQUEST.has(err.kind);
