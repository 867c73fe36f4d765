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

export interface DomainErrorInfo {
  kind: DomainErrorKind;
  detail: string;
  fields?: FieldError[];
  /** The same call may succeed if repeated (a lost race, a transient dependency failure). */
  retryable: boolean;
  /** Seconds a client should wait before repeating (unavailable, rate-limited, budget-exceeded). */
  retryAfterS?: number;
  /** Facts a client acts on, carried into the door's answer as they are (budget figures, setting names). */
  data?: Record<string, unknown>;
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
}

export const invalid = (detail: string, fields?: FieldError[]) => new DomainError("invalid", detail, fields ? { fields } : {});
export const unprocessable = (detail: string, fields?: FieldError[]) => new DomainError("unprocessable", detail, fields ? { fields } : {});
export const notFound = (detail: string) => new DomainError("not-found", detail);
export const forbidden = (detail: string) => new DomainError("forbidden", detail);
export const conflict = (detail: string, more: { retryable?: boolean; data?: Record<string, unknown> } = {}) =>
  new DomainError("conflict", detail, { retryable: more.retryable ?? false, ...(more.data ? { data: more.data } : {}) });
export const unavailable = (detail: string, retryAfterS = 1, data?: Record<string, unknown>) =>
  new DomainError("unavailable", detail, { retryable: true, retryAfterS, ...(data ? { data } : {}) });

/** Zod issues as the field list clients read; paths are dotted (`items.0.text`). */
export function fieldErrors(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string }>, prefix?: string): FieldError[] {
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
