import { APIConnectionError, APIError } from "openai";

/**
 * A Retry-After longer than this is not waited out inside a request (Workers have wall-clock
 * limits); the call fails at once as unavailable instead, and a queue retry can try later.
 */
export const MAX_HONOURED_RETRY_AFTER_MS = 60_000;

/** How long to wait before retrying after `e` (the openai client's policy), or null when it is not retried. */
export function retryDelayMs(e: unknown, attempt: number): number | null {
  if (e instanceof APIError && e.status !== undefined) {
    const should = e.headers?.get("x-should-retry");
    const status = e.status;
    if (should === "false") return null;
    if (should !== "true" && !(status === 408 || status === 409 || status === 429 || status >= 500)) return null;
    const asked = e.headers ? retryAfterMs(e.headers) : null;
    if (asked !== null && asked >= 0 && asked <= MAX_HONOURED_RETRY_AFTER_MS) return asked;
  } else if (!(e instanceof APIConnectionError)) return null;
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - Math.random() * 0.25);
}

export function retryAfterMs(h: Headers): number | null {
  const ms = h.get("retry-after-ms");
  if (ms && !Number.isNaN(parseFloat(ms))) return parseFloat(ms);
  const ra = h.get("retry-after");
  if (!ra) return null;
  const secs = parseFloat(ra);
  if (!Number.isNaN(secs)) return secs * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? null : at - Date.now();
}
