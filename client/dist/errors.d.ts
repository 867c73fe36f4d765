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
export declare class PraxisError extends Error {
    readonly name = "PraxisError";
    readonly status: number;
    readonly type: string;
    readonly title: string;
    readonly detail: string;
    readonly instance: string | undefined;
    readonly requestId: string | undefined;
    readonly errors: ProblemField[];
    /** The whole problem document, including extension members (e.g. `settings`, `line`). */
    readonly problem: Record<string, unknown>;
    constructor(status: number, body: unknown, requestId?: string | null);
    /** The problem type's short name: `not-found`, `validation-failed`, `llm-not-configured`… */
    get code(): string;
    /** One line for logs and terminals: status, code, detail, the fields at fault and the request id. */
    toString(): string;
}
/** The API could not be reached (DNS, refused connection, reset) even after the retries. */
export declare class PraxisConnectionError extends Error {
    readonly url: string;
    readonly name = "PraxisConnectionError";
    constructor(url: string, cause: unknown);
}
