/** A field the API named in a validation problem. */
export interface ProblemField {
  path: string;
  message: string;
  code?: string;
}

/**
 * An `application/problem+json` answer (or any other non-2xx answer) from the API. `type` is the
 * problem's stable URL (`https://praxis.dev/problems/not-found`); `code` is its last segment.
 */
export class PraxisError extends Error {
  override readonly name = "PraxisError";
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly instance: string | undefined;
  readonly requestId: string | undefined;
  readonly errors: ProblemField[];
  /** The whole problem document, including extension members (e.g. `settings`, `line`). */
  readonly problem: Record<string, unknown>;

  constructor(status: number, body: unknown, requestId?: string | null) {
    const p = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const detail = str(p.detail) ?? (typeof body === "string" && body ? body.slice(0, 500) : `HTTP ${status}`);
    super(detail);
    this.status = typeof p.status === "number" ? p.status : status;
    this.type = str(p.type) ?? "about:blank";
    this.title = str(p.title) ?? `HTTP ${status}`;
    this.detail = detail;
    this.instance = str(p.instance);
    this.requestId = str(p.requestId) ?? requestId ?? undefined;
    this.errors = Array.isArray(p.errors) ? (p.errors as ProblemField[]) : [];
    this.problem = p;
  }

  /** The problem type's short name: `not-found`, `validation-failed`, `llm-not-configured`… */
  get code(): string {
    return this.type.slice(this.type.lastIndexOf("/") + 1);
  }

  /** One line for logs and terminals: status, code, detail, the fields at fault and the request id. */
  override toString(): string {
    const fields = this.errors.length ? ` [${this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}]` : "";
    return `${this.status} ${this.code}: ${this.detail}${fields}${this.requestId ? ` (request ${this.requestId})` : ""}`;
  }
}

/** The API could not be reached (DNS, refused connection, reset) even after the retries. */
export class PraxisConnectionError extends Error {
  override readonly name = "PraxisConnectionError";
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(
      `Could not reach ${url}: ${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)}`,
      { cause },
    );
  }
}
