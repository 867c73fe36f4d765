import { expect, it, vi } from "vitest";
import { retryingFetch } from "../../client/src/transport";

/** The client's answer to overload (429/503 with Retry-After): wait as advised, a bounded number of times. */
const problem = (status: number, retryAfter: string | null, type = "service-unavailable") =>
  new Response(JSON.stringify({ type, status }), {
    status,
    headers: { "content-type": "application/problem+json", ...(retryAfter !== null ? { "retry-after": retryAfter } : {}) },
  });

function scripted(...answers: Response[]) {
  const seen: number[] = [];
  let i = 0;
  const base = async (_req: Request) => {
    seen.push(Date.now());
    return answers[Math.min(i++, answers.length - 1)]!;
  };
  return { base, seen };
}

const get = () => new Request("http://praxis.test/v1/agents/a/experiences");
const write = () =>
  new Request("http://praxis.test/v1/agents/a/experiences", {
    method: "POST",
    headers: { "idempotency-key": "k-1", "content-type": "application/json" },
    body: "{}",
  });

it("retries a 503 and a 429 after their Retry-After, then returns the answer", async () => {
  vi.useFakeTimers();
  try {
    const { base, seen } = scripted(problem(503, "2"), problem(429, "1"), new Response("{}", { status: 201 }));
    const pending = retryingFetch(base, { retries: 2, baseDelayMs: 0 })(write());
    await vi.advanceTimersByTimeAsync(1_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await pending).status).toBe(201);
    expect(seen).toHaveLength(3);
  } finally {
    vi.useRealTimers();
  }
});

it("gives up after the bounded number of attempts and returns the last overload answer", async () => {
  const { base, seen } = scripted(problem(503, "0"));
  const res = await retryingFetch(base, { retries: 2 })(get());
  expect(res.status).toBe(503);
  expect(seen).toHaveLength(3);
});

it("does not wait out a Retry-After beyond the cap (a spent daily budget): one attempt", async () => {
  const { base, seen } = scripted(problem(429, "40000", "budget-exceeded"));
  const res = await retryingFetch(base, { retries: 2 })(get());
  expect(res.status).toBe(429);
  expect(seen).toHaveLength(1);
});

it("sends a write without an Idempotency-Key once: it may have been applied", async () => {
  const { base, seen } = scripted(problem(503, "0"));
  const res = await retryingFetch(base, { retries: 2 })(
    new Request("http://praxis.test/v1/agents/a/rewards", { method: "POST", body: "{}" }),
  );
  expect(res.status).toBe(503);
  expect(seen).toHaveLength(1);
});
