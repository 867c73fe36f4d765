import { HTTPException } from "hono/http-exception";
import { DomainError, type DomainErrorInfo, type DomainErrorKind, type FieldError } from "../core/errors";

/** The statuses a problem answers with (a subset of what HTTP frameworks accept as a JSON status). */
export type ProblemStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 406
  | 408
  | 409
  | 410
  | 412
  | 413
  | 415
  | 422
  | 423
  | 428
  | 429
  | 500
  | 501
  | 502
  | 503
  | 504;

const PROBLEM_STATUSES = new Set<number>([
  400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 412, 413, 415, 422, 423, 428, 429, 500, 501, 502, 503, 504,
]);

/** A status from elsewhere (a framework's exception) as a problem status; anything else is a 500. */
const problemStatus = (status: number): ProblemStatus => (PROBLEM_STATUSES.has(status) ? (status as ProblemStatus) : 500);

/** Stable problem types; the URI path is part of the public contract. */
export const PROBLEM_TITLES = {
  "validation-failed": "Request validation failed",
  "malformed-json": "Request body is not valid JSON",
  unauthorized: "Authentication required",
  forbidden: "Not allowed",
  "not-found": "Resource not found",
  "method-not-allowed": "Method not allowed",
  conflict: "Conflict",
  "version-not-reached": "Library version not reached",
  "payload-too-large": "Payload too large",
  "unsupported-media-type": "Unsupported media type",
  unprocessable: "Unprocessable request",
  "rate-limited": "Too many requests",
  "budget-exceeded": "Daily token budget exceeded",
  "llm-not-configured": "No LLM is configured",
  "llm-unavailable": "The LLM endpoint failed",
  "embedder-not-configured": "The embedder is not configured",
  "service-unavailable": "Service unavailable",
  internal: "Internal server error",
} as const;

export type ProblemType = keyof typeof PROBLEM_TITLES;

const PROBLEM_BASE = "https://praxis.dev/problems/";

/** An answer of the HTTP door: a status, a problem type and the headers that go with it. */
export class ProblemError extends Error {
  constructor(
    readonly status: ProblemStatus,
    readonly type: ProblemType,
    detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; [k: string]: unknown } = {},
  ) {
    super(detail);
    this.name = "ProblemError";
  }
}

/** The one challenge a 401 carries: both doors take a bearer API key. */
const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="praxis"' };

/** Each domain error kind as HTTP answers it: the one table of statuses and problem types. */
const HTTP_OF_KIND: Record<
  DomainErrorKind,
  { status: ProblemStatus | ((e: DomainErrorInfo) => ProblemStatus); type: ProblemType; headers?: Record<string, string> }
> = {
  invalid: { status: 400, type: "validation-failed" },
  unprocessable: { status: 422, type: "unprocessable" },
  unauthorized: { status: 401, type: "unauthorized", headers: BEARER_CHALLENGE },
  forbidden: { status: 403, type: "forbidden" },
  "not-found": { status: 404, type: "not-found" },
  conflict: { status: 409, type: "conflict" },
  "version-not-reached": { status: 409, type: "version-not-reached" },
  "too-large": { status: 413, type: "payload-too-large" },
  "rate-limited": { status: 429, type: "rate-limited" },
  "budget-exceeded": { status: 429, type: "budget-exceeded" },
  "llm-not-configured": { status: 503, type: "llm-not-configured" },
  // Transient upstream trouble is 503 (try later); a provider refusing the request, or a model
  // answer still unusable after its repair call, is 502 until the operator fixes something.
  "llm-unavailable": { status: (e) => (e.retryable ? 503 : 502), type: "llm-unavailable" },
  "embedder-not-configured": { status: 503, type: "embedder-not-configured" },
  unavailable: { status: 503, type: "service-unavailable" },
};

/** A domain error as the problem document REST answers with. */
export function problemOf(e: DomainErrorInfo): ProblemError {
  const http = HTTP_OF_KIND[e.kind];
  const status = typeof http.status === "function" ? http.status(e) : http.status;
  const headers = { ...http.headers, ...(e.retryAfterS !== undefined ? { "retry-after": String(e.retryAfterS) } : {}) };
  return new ProblemError(status, http.type, e.detail, {
    ...(e.data ?? {}),
    ...(e.fields?.length ? { errors: e.fields } : {}),
    ...(e.retryable && e.kind === "conflict" ? { retryable: true } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  });
}

/**
 * Any failure the doors know as the problem they answer with: a domain error by its kind, the
 * framework's own exceptions (a body that is not JSON, one too large); null for anything else,
 * which each door reports as a 500 (`internalProblem`).
 */
export function toProblem(err: unknown): ProblemError | null {
  if (err instanceof ProblemError) return err;
  if (err instanceof DomainError) return problemOf(err.info);
  if (err instanceof HTTPException) {
    if (err.status === 400 && /json/i.test(err.message)) {
      return new ProblemError(400, "malformed-json", "The request body is not valid JSON.");
    }
    if (err.status === 413) return new ProblemError(413, "payload-too-large", err.message);
    return new ProblemError(problemStatus(err.status), err.status === 401 ? "unauthorized" : "internal", err.message || "Request failed");
  }
  return null;
}

/** A fault no door knows (a bug, a runtime error): its details stay in the log, the caller gets the request id. */
export const internalProblem = () =>
  new ProblemError(500, "internal", "An unexpected error occurred; quote the request id when reporting it.");

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  requestId: string;
  errors?: FieldError[];
  [k: string]: unknown;
}

/** The problem document itself; MCP tools embed it in a tool error (src/mcp/tool.ts). */
export function problemBody(p: ProblemError, instance: string, requestId: string): ProblemBody {
  const { headers: _headers, ...extra } = p.extra;
  return {
    type: PROBLEM_BASE + p.type,
    title: PROBLEM_TITLES[p.type],
    status: p.status,
    detail: p.message,
    instance,
    requestId,
    ...extra,
  };
}

export function problemResponse(p: ProblemError, instance: string, requestId: string): Response {
  const headers = p.extra.headers ?? {};
  return new Response(JSON.stringify(problemBody(p, instance, requestId)), {
    status: p.status,
    headers: { "content-type": "application/problem+json", "x-request-id": requestId, ...headers },
  });
}
