import type { Middleware } from "openapi-fetch";
export interface RetryOptions {
    /** Retries after the first attempt (default 2). */
    retries?: number;
    /** First backoff delay; doubles per retry, capped at 8 s (default 250 ms). A Retry-After header wins. */
    baseDelayMs?: number;
}
/**
 * Gives every write the API can replay one Idempotency-Key for the whole call (retries included),
 * unless the caller set one, so a retried write is applied once.
 */
export declare const idempotencyMiddleware: Middleware;
/**
 * fetch with retries on connection failures and on 429/502/503/504, for requests that are safe to
 * repeat: idempotent methods and writes carrying an Idempotency-Key. Other writes are sent once.
 */
export declare function retryingFetch(base: (input: Request) => Promise<Response>, opts?: RetryOptions): (request: Request) => Promise<Response>;
