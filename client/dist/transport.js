import { PraxisConnectionError } from "./errors.js";
import { IDEMPOTENT_WRITES } from "./generated/idempotency.js";
/** Methods that may be repeated without changing the outcome. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
/** Answers that say the request was not carried out and may succeed later. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const MAX_DELAY_MS = 8_000;
const MAX_RETRY_AFTER_MS = 30_000;
const sleep = (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted)
        return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
});
function retryAfterMs(res) {
    const h = res.headers.get("retry-after");
    if (!h)
        return undefined;
    const secs = Number(h);
    const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(h) - Date.now();
    return Number.isFinite(ms) ? Math.max(ms, 0) : undefined;
}
/** A 503 that names missing configuration (`llm-not-configured`…) will answer the same next time. */
async function isPermanent(res) {
    if (res.status !== 503 || !res.headers.get("content-type")?.includes("json"))
        return false;
    try {
        const body = (await res.clone().json());
        return typeof body.type === "string" && body.type.endsWith("-not-configured");
    }
    catch {
        return false;
    }
}
/**
 * Gives every write the API can replay one Idempotency-Key for the whole call (retries included),
 * unless the caller set one, so a retried write is applied once.
 */
export const idempotencyMiddleware = {
    onRequest({ request, schemaPath }) {
        if (request.headers.has("idempotency-key") || !IDEMPOTENT_WRITES.has(`${request.method} ${schemaPath}`))
            return undefined;
        const headers = new Headers(request.headers);
        headers.set("idempotency-key", crypto.randomUUID());
        return new Request(request, { headers });
    },
};
/**
 * fetch with retries on connection failures and on 429/502/503/504, for requests that are safe to
 * repeat: idempotent methods and writes carrying an Idempotency-Key. Other writes are sent once.
 */
export function retryingFetch(base, opts = {}) {
    const retries = opts.retries ?? 2;
    const baseDelay = opts.baseDelayMs ?? 250;
    return async (request) => {
        const repeatable = SAFE_METHODS.has(request.method) || request.headers.has("idempotency-key");
        const attempts = repeatable ? retries + 1 : 1;
        for (let attempt = 1;; attempt++) {
            const last = attempt >= attempts;
            let res;
            try {
                res = await base(last ? request : request.clone());
            }
            catch (err) {
                if (request.signal?.aborted)
                    throw err;
                if (last)
                    throw new PraxisConnectionError(new URL(request.url).origin, err);
                await sleep(Math.min(baseDelay * 2 ** (attempt - 1), MAX_DELAY_MS), request.signal);
                continue;
            }
            if (last || !RETRY_STATUSES.has(res.status) || (await isPermanent(res)))
                return res;
            const advised = retryAfterMs(res);
            // Overload passes in seconds; a Retry-After past the cap (a spent daily budget) is not waited out inside one call.
            if (advised !== undefined && advised > MAX_RETRY_AFTER_MS)
                return res;
            const wait = advised ?? Math.min(baseDelay * 2 ** (attempt - 1), MAX_DELAY_MS);
            await res.body?.cancel();
            await sleep(wait, request.signal);
        }
    };
}
