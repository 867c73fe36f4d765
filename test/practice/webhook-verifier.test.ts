import { afterEach, describe, expect, it, vi } from "vitest";
import { verifySignature } from "../../src/core/webhook-signature";
import { signedPost, WebhookError } from "../../src/practice/signed-post";
import { webhookVerify } from "../../src/practice/webhook-verifier";

const URL_ = "https://agent.example.com/verify?token=abc";
const SECRET = "whsec_tenant_secret";
const NOW = 1_760_000_000_000;
const input = { runId: "run_1", taskId: "task_7", task: "2+2?", answer: "4", groundTruth: "4" };

interface Seen {
  url: string;
  init: RequestInit;
  body: string;
  headers: Headers;
}

/** Intercepts the global fetch; each call gets `reply`. */
function intercept(reply: (seen: Seen) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const s = { url: String(input), init: init!, body: String(init!.body), headers: new Headers(init!.headers) };
    seen.push(s);
    return reply(s);
  });
  return seen;
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(WebhookError);
  return e as WebhookError;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("webhookVerify", () => {
  it("POSTs the signed task and answer and returns the webhook's verdict", async () => {
    const seen = intercept(() => json({ reward: 0.75, reasoning: "Mostly right.", extra: "ignored" }));
    const v = await webhookVerify({ url: URL_, timeoutMs: 5000 }, SECRET, input, { now: () => NOW });
    expect(v).toEqual({ reward: 0.75, reasoning: "Mostly right." });
    expect(seen).toHaveLength(1);
    const s = seen[0]!;
    expect(s.url).toBe(URL_);
    expect(s.init.method).toBe("POST");
    expect(s.init.redirect).toBe("manual");
    expect(s.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(s.body)).toEqual({ runId: "run_1", taskId: "task_7", task: "2+2?", answer: "4", groundTruth: "4" });
    const nowSec = NOW / 1000;
    expect(await verifySignature(s.headers.get("x-praxis-signature"), SECRET, s.body, nowSec)).toEqual({ ok: true, timestamp: nowSec });
    expect(await verifySignature(s.headers.get("x-praxis-signature"), "another-secret", s.body, nowSec)).toMatchObject({
      ok: false,
      reason: "mismatch",
    });
  });

  it("sends groundTruth null when the task has none and words a reasoning when the webhook gives none", async () => {
    const seen = intercept(() => json({ reward: 0 }));
    const v = await webhookVerify({ url: URL_, timeoutMs: 5000 }, SECRET, { ...input, groundTruth: undefined });
    expect(JSON.parse(seen[0]!.body).groundTruth).toBeNull();
    expect(v).toEqual({ reward: 0, reasoning: "The verifier webhook returned reward 0." });
  });

  it.each([
    [{ reward: 1.5 }, /reward: .*(less than or equal|<=).*1/i],
    [{ reward: -0.1 }, /reward/],
    [{ score: 1 }, /reward/],
    [{ reward: "1" }, /reward/],
    [[1], /\(body\)/],
  ])("refuses the answer %j", async (body, why) => {
    intercept(() => json(body));
    const e = await failure(webhookVerify({ url: URL_, timeoutMs: 5000 }, SECRET, input));
    expect(e.kind).toBe("invalid-response");
    expect(e.retryable).toBe(false);
    expect(e.message).toMatch(why);
  });

  it("reports a body that is not JSON", async () => {
    intercept(() => new Response("<html>oops</html>", { status: 200 }));
    const e = await failure(webhookVerify({ url: URL_, timeoutMs: 5000 }, SECRET, input));
    expect(e.kind).toBe("invalid-json");
    expect(e.message).toContain("<html>oops</html>");
  });

  it("reports an empty 200 as an invalid answer", async () => {
    intercept(() => new Response(null, { status: 200 }));
    expect((await failure(webhookVerify({ url: URL_, timeoutMs: 5000 }, SECRET, input))).kind).toBe("invalid-response");
  });

  it("times out a webhook that does not answer", async () => {
    intercept(
      ({ init }) =>
        new Promise<Response>((_, reject) => {
          init.signal!.addEventListener("abort", () => reject(init.signal!.reason));
        }),
    );
    const e = await failure(webhookVerify({ url: URL_, timeoutMs: 50 }, SECRET, input));
    expect(e.kind).toBe("timeout");
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(/did not answer within 50 ms/);
    expect(e.message).not.toContain("token=abc");
  });
});

describe("signedPost", () => {
  const post = (over: Partial<Parameters<typeof signedPost>[0]> = {}) =>
    signedPost({ url: URL_, body: { a: 1 }, secret: SECRET, timeoutMs: 5000, ...over });

  it("returns the status and null for an empty body, e.g. a 202 that answers later", async () => {
    intercept(() => new Response(null, { status: 202 }));
    expect(await post()).toEqual({ status: 202, data: null });
  });

  it("uses an injected fetch instead of the global one", async () => {
    const spy = intercept(() => json({ wrong: true }));
    const fetch = vi.fn(async () => json({ ok: true }));
    expect(await post({ fetch })).toEqual({ status: 200, data: { ok: true } });
    expect(fetch).toHaveBeenCalledOnce();
    expect(spy).toHaveLength(0);
  });

  it.each([
    [500, true],
    [503, true],
    [429, true],
    [408, true],
    [400, false],
    [401, false],
    [404, false],
  ])("reports HTTP %i (retryable: %s)", async (status, retryable) => {
    intercept(() => json({ error: "nope" }, status));
    const e = await failure(post());
    expect(e).toMatchObject({ kind: "http", status, retryable });
    expect(e.message).toContain(`answered ${status}`);
    expect(e.message).toContain("nope");
  });

  it("does not follow redirects", async () => {
    intercept(() => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }));
    const e = await failure(post());
    expect(e).toMatchObject({ kind: "http", status: 302, retryable: false });
    expect(e.message).toMatch(/redirects are not followed/);
  });

  it("reports a network failure as retryable", async () => {
    intercept(() => {
      throw new TypeError("connection refused");
    });
    const e = await failure(post());
    expect(e).toMatchObject({ kind: "network", retryable: true });
    expect(e.message).toMatch(/connection refused/);
  });

  it("refuses an oversized answer unread", async () => {
    intercept(() => new Response("{}", { status: 200, headers: { "content-length": "5000000" } }));
    expect((await failure(post())).kind).toBe("invalid-response");
  });
});
