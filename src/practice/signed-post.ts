import { signPayload } from "../core/webhook-signature";

export const SIGNATURE_HEADER = "X-Praxis-Signature";
/** A webhook's reply is a small JSON document; anything larger is refused unread. */
export const MAX_RESPONSE_BYTES = 1_000_000;

export type WebhookFailure = "timeout" | "network" | "http" | "invalid-json" | "invalid-response" | "refused-url";

/** Why a call to a tenant's webhook failed; `retryable` says whether trying again may help. */
export class WebhookError extends Error {
  override name = "WebhookError";
  readonly retryable: boolean;
  constructor(
    readonly kind: WebhookFailure,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retryable =
      kind === "timeout" ||
      kind === "network" ||
      (kind === "http" && status !== undefined && (status === 408 || status === 429 || status >= 500));
  }
}

export interface SignedPostRequest {
  url: string;
  body: unknown;
  /** The tenant's webhook secret. */
  secret: string;
  timeoutMs: number;
  /** Defaults to the global fetch, looked up at call time (so tests can intercept it). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Epoch ms for the signature's timestamp. */
  now?: () => number;
  /** Sent besides the content type and signature (an event's id and type, a trace context). */
  headers?: Record<string, string>;
}

export interface SignedPostResult {
  status: number;
  /** The parsed JSON body; null when the body is empty (a 202 that answers later, say). */
  data: unknown;
}

/**
 * POSTs `body` as JSON, signed like Praxis's inbound webhooks (`t=<unix>,v1=<HMAC>` over
 * `<t>.<body>`, see src/core/webhook-signature.ts) so the receiver can check it with the same
 * secret. The whole exchange, body included, is bounded by `timeoutMs`. Redirects are not
 * followed: a redirect could lead to an address the URL check would have refused.
 */
export async function signedPost(req: SignedPostRequest): Promise<SignedPostResult> {
  const payload = JSON.stringify(req.body);
  const timestamp = Math.floor((req.now ?? Date.now)() / 1000);
  const signature = await signPayload(req.secret, timestamp, payload);
  const doFetch = req.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init));
  const signal = AbortSignal.timeout(req.timeoutMs);
  const where = describeUrl(req.url);

  const timedOut = (e: unknown) =>
    signal.aborted || (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError"))
      ? new WebhookError("timeout", `${where} did not answer within ${req.timeoutMs} ms.`, undefined, { cause: e })
      : null;

  let res: Response;
  try {
    res = await doFetch(req.url, {
      method: "POST",
      headers: { ...req.headers, "Content-Type": "application/json", [SIGNATURE_HEADER]: signature },
      body: payload,
      redirect: "manual",
      signal,
    });
  } catch (e) {
    throw (
      timedOut(e) ??
      new WebhookError("network", `Could not reach ${where}: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e })
    );
  }

  let text: string;
  try {
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > MAX_RESPONSE_BYTES)
      throw new WebhookError(
        "invalid-response",
        `${where} answered with ${declared} bytes; at most ${MAX_RESPONSE_BYTES} are read.`,
        res.status,
      );
    text = await res.text();
  } catch (e) {
    if (e instanceof WebhookError) throw e;
    throw (
      timedOut(e) ??
      new WebhookError("network", `Reading the answer of ${where} failed: ${e instanceof Error ? e.message : String(e)}`, res.status, {
        cause: e,
      })
    );
  }

  if (res.status < 200 || res.status > 299) {
    const detail = text.trim() === "" ? "" : `: ${text.trim().slice(0, 200)}`;
    const redirect = res.status >= 300 && res.status < 400 ? " (redirects are not followed; configure the final URL)" : "";
    throw new WebhookError("http", `${where} answered ${res.status}${redirect}${detail}`, res.status);
  }
  if (text.length > MAX_RESPONSE_BYTES)
    throw new WebhookError("invalid-response", `${where} answered with more than ${MAX_RESPONSE_BYTES} bytes.`, res.status);
  if (text.trim() === "") return { status: res.status, data: null };
  try {
    return { status: res.status, data: JSON.parse(text) };
  } catch (e) {
    throw new WebhookError(
      "invalid-json",
      `${where} answered ${res.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`,
      res.status,
      { cause: e },
    );
  }
}

/** The URL without its query string, which may carry tokens that do not belong in logs. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `the webhook ${u.origin}${u.pathname}`;
  } catch {
    return "the webhook";
  }
}
