import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { Deps } from "../services/deps";
import { type DomainErrorInfo, type DomainErrorKind, type Outcome } from "../core/errors";
import { ProblemError, type ProblemStatus, type ProblemType } from "../core/problem";

/** A route's dependencies for a use case: the same shape a queue job or cron builds for itself. */
export function depsOf(c: Context<AppEnv>): Deps {
  return {
    env: c.env,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    logger: c.get("logger"),
    requestId: c.get("requestId"),
  };
}

/** Each domain error kind as HTTP answers it: the one table of statuses and problem types. */
const HTTP_OF_KIND: Record<DomainErrorKind, { status: ProblemStatus | ((e: DomainErrorInfo) => ProblemStatus); type: ProblemType }> = {
  invalid: { status: 400, type: "validation-failed" },
  unprocessable: { status: 422, type: "unprocessable" },
  unauthorized: { status: 401, type: "unauthorized" },
  forbidden: { status: 403, type: "forbidden" },
  "not-found": { status: 404, type: "not-found" },
  conflict: { status: 409, type: "conflict" },
  "too-large": { status: 413, type: "payload-too-large" },
  "rate-limited": { status: 429, type: "rate-limited" },
  "budget-exceeded": { status: 429, type: "budget-exceeded" },
  "llm-not-configured": { status: 503, type: "llm-not-configured" },
  // Transient upstream trouble is 503 (try later); a provider refusing the request is 502 until the operator fixes it.
  "llm-unavailable": { status: (e) => (e.retryable ? 503 : 502), type: "llm-unavailable" },
  "embedder-not-configured": { status: 503, type: "embedder-not-configured" },
  unavailable: { status: 503, type: "service-unavailable" },
};

/** A domain error as the problem document REST answers with. */
export function problemOf(e: DomainErrorInfo): ProblemError {
  const http = HTTP_OF_KIND[e.kind];
  const status = typeof http.status === "function" ? http.status(e) : http.status;
  return new ProblemError(status, http.type, e.detail, {
    ...(e.data ?? {}),
    ...(e.fields?.length ? { errors: e.fields } : {}),
    ...(e.retryable && e.kind === "conflict" ? { retryable: true } : {}),
    ...(e.retryAfterS !== undefined ? { headers: { "retry-after": String(e.retryAfterS) } } : {}),
  });
}

/** A use case's value, or its domain error thrown as the problem the app's error handler answers. */
export function valueOf<T>(o: Outcome<T>): T {
  if (o.ok) return o.value;
  throw problemOf(o.error);
}
