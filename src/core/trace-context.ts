import { toHex } from "./encoding";

/**
 * W3C Trace Context (`traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`). Praxis
 * joins the caller's trace when a request carries one, and starts one otherwise; each unit of its
 * own work (a request, a queued job) is a span of that trace.
 */
export interface TraceContext {
  traceId: string;
  spanId: string;
  flags: string;
}

const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** The context a header names; null for a missing or invalid one (all-zero ids, version ff), which is then ignored, as the spec asks. */
export function parseTraceparent(header: string | null | undefined): TraceContext | null {
  const m = TRACEPARENT_RE.exec((header ?? "").trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags] = m as unknown as [string, string, string, string, string];
  if (version === "ff" || (version === "00" && header!.trim().length !== 55)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, flags };
}

export const formatTraceparent = (t: TraceContext) => `00-${t.traceId}-${t.spanId}-${t.flags}`;

/** A new span of the parent's trace, or the first span of a new (sampled) trace. */
export function childSpan(parent: TraceContext | null, random: (n: number) => Uint8Array): TraceContext {
  return { traceId: parent?.traceId ?? toHex(random(16)), spanId: toHex(random(8)), flags: parent?.flags ?? "01" };
}
