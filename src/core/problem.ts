
/** The statuses a problem answers with (a subset of what HTTP frameworks accept as a JSON status). */
export type ProblemStatus = 400 | 401 | 402 | 403 | 404 | 405 | 406 | 408 | 409 | 410 | 412 | 413 | 415 | 422 | 423 | 428 | 429 | 500 | 501 | 502 | 503 | 504;

const PROBLEM_STATUSES = new Set<number>([400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 412, 413, 415, 422, 423, 428, 429, 500, 501, 502, 503, 504]);

/** A status from elsewhere (a framework's exception) as a problem status; anything else is a 500. */
export const problemStatus = (status: number): ProblemStatus => (PROBLEM_STATUSES.has(status) ? (status as ProblemStatus) : 500);

export interface FieldError {
  path: string;
  message: string;
  code?: string;
}

/** Stable problem types; the URI path is part of the public contract. */
export const PROBLEM_TITLES = {
  "validation-failed": "Request validation failed",
  "malformed-json": "Request body is not valid JSON",
  unauthorized: "Authentication required",
  forbidden: "Not allowed",
  "not-found": "Resource not found",
  "method-not-allowed": "Method not allowed",
  conflict: "Conflict",
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

export const PROBLEM_BASE = "https://praxis.dev/problems/";

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

export const badRequest = (detail: string, errors?: FieldError[]) =>
  new ProblemError(400, "validation-failed", detail, errors ? { errors } : {});
export const notFound = (detail: string) => new ProblemError(404, "not-found", detail);
export const forbidden = (detail: string) => new ProblemError(403, "forbidden", detail);
export const conflict = (detail: string) => new ProblemError(409, "conflict", detail);
export const unprocessable = (detail: string, errors?: FieldError[]) =>
  new ProblemError(422, "unprocessable", detail, errors ? { errors } : {});

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

/** The problem document itself; MCP tools return it as the structured content of a tool error. */
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

/** Converts zod issues into the field list clients read; paths are dotted (`items.0.text`). */
export function zodFieldErrors(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string }>,
  prefix?: string,
): FieldError[] {
  return issues.map((i) => {
    const path = i.path.map(String).join(".");
    return {
      path: prefix ? (path ? `${prefix}.${path}` : prefix) : path,
      message: i.message,
      ...(i.code ? { code: i.code } : {}),
    };
  });
}
