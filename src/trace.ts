import { AsyncLocalStorage } from "node:async_hooks";
import { childSpan, formatTraceparent, parseTraceparent, type TraceContext } from "./core/trace-context";

/**
 * The trace of the work in progress, carried across awaits: set for each request (src/app.ts)
 * and each queued job (src/jobs/consumer.ts), read where Praxis calls out — the LLM client's
 * `traceparent` header, and the messages it queues (tracedQueue), so a job joins the request's trace.
 */
const current = new AsyncLocalStorage<TraceContext>();

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

/** Runs `fn` as a new span of the trace `traceparent` names (a new trace when it names none). */
export function withSpan<R>(traceparent: string | null | undefined, fn: (span: TraceContext) => R): R {
  const span = childSpan(parseTraceparent(traceparent), random);
  return current.run(span, () => fn(span));
}

export const currentTraceparent = (): string | undefined => {
  const span = current.getStore();
  return span ? formatTraceparent(span) : undefined;
};

/** `{ traceparent }` for an outbound call made in a span; empty outside one. */
export function traceHeaders(): Record<string, string> {
  const t = currentTraceparent();
  return t ? { traceparent: t } : {};
}

const withTrace = (body: unknown) => {
  const traceparent = currentTraceparent();
  return traceparent && body && typeof body === "object" && !Array.isArray(body) && !("traceparent" in body)
    ? { ...body, traceparent }
    : body;
};

/** The queue, with the current span's `traceparent` added to each message sent in it. */
export function tracedQueue<B>(queue: Queue<B>): Queue<B> {
  return {
    send: (body, options) => queue.send(withTrace(body) as B, options),
    sendBatch: (messages, options) =>
      queue.sendBatch(
        [...messages].map((m) => ({ ...m, body: withTrace(m.body) as B })),
        options,
      ),
  } as Queue<B>;
}
