import { unavailable } from "../../core/errors";

/**
 * The failures Cloudflare documents for D1 and Durable Object calls, and what a request does about
 * them: transient ones are retried (few attempts, jittered exponential backoff) when repeating the
 * call cannot double its effect; an overloaded object is never retried; what is left becomes an
 * `unavailable` domain error with a retry delay (a 503 with Retry-After over REST) rather than a bare 500.
 */

/** Extra attempts after the first: the runtime already retries failures that never reached the object. */
const EXTRA_ATTEMPTS = 2;
const BASE_DELAY_MS = 20;

const D1_TRANSIENT =
  /network connection lost|connection reset|storage caused object to be reset|object to be reset|transient issue|D1 DB is overloaded/i;

/** A D1 error worth retrying: the query may not have run, or ran and was lost with the connection. */
export function isTransientD1(err: unknown): boolean {
  const msg = err instanceof Error ? `${err.message} ${String((err as { cause?: unknown }).cause ?? "")}` : String(err);
  return D1_TRANSIENT.test(msg);
}

interface DoError {
  retryable?: boolean;
  overloaded?: boolean;
}
const doFlags = (err: unknown): DoError => (typeof err === "object" && err !== null ? (err as DoError) : {});

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, BASE_DELAY_MS * 2 ** attempt * (0.5 + Math.random())));

/** A D1 read (or an idempotent write): transient failures retried, then a 503. */
export async function d1Read<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransientD1(err)) throw err;
      if (attempt >= EXTRA_ATTEMPTS) throw unavailable("The control-plane database is briefly unavailable; retry shortly.");
      await backoff(attempt);
    }
  }
}

/** A D1 write that must not run twice: a transient failure becomes a 503 the client may retry. */
export async function d1Write<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isTransientD1(err)) throw unavailable("The control-plane database is briefly unavailable; nothing was changed, retry shortly.");
    throw err;
  }
}

/** How an object's faults are told to the caller: what it is, and what to do about a write that was not repeated. */
export interface ObjectFaults {
  subject: string;
  unrepeated: string;
}

export const MEMORY_FAULTS: ObjectFaults = {
  subject: "This agent's memory",
  unrepeated: "retry the request with an Idempotency-Key so it applies once",
};

/**
 * A Durable Object call. `idempotent` calls (reads; writes carrying an idempotency key) are
 * retried on `.retryable` errors, each attempt through a fresh stub (`fn` makes one); `.overloaded`
 * is never retried.
 */
export async function doCall<T>(fn: () => Promise<T>, idempotent: boolean, faults: ObjectFaults = MEMORY_FAULTS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const { retryable, overloaded } = doFlags(err);
      if (overloaded) throw unavailable(`${faults.subject} is overloaded; retry after a short pause.`);
      if (!retryable) throw err;
      if (!idempotent || attempt >= EXTRA_ATTEMPTS) {
        throw unavailable(
          idempotent
            ? `${faults.subject} is briefly unavailable; retry shortly.`
            : `${faults.subject} was briefly unavailable; ${faults.unrepeated}.`,
        );
      }
      await backoff(attempt);
    }
  }
}
