import { randomBytes } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { devServer } from "../../bench/lib/dev-server.mjs";

/**
 * kill -9 of the whole runtime (wrangler dev's process group) while the Worker holds use counters of
 * token retrievals (src/platform/edge/retrieval-counters.ts), then a restart on the same state. Counters
 * older than the flush window reached the agent's object without any later request; those of the
 * last window are all that the crash may take.
 */

const WINDOW_MS = 1500;
const BEFORE = 5;
const LAST = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = devServer({ tmpPrefix: "praxis-counters-crash-" });
afterAll(() => server.cleanup());

async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

it("a crash loses at most the last flush window of use counters", { timeout: 300_000 }, async () => {
  const adminKey = `pxadmin_${randomBytes(18).toString("base64url")}`;
  const vars = { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn", RETRIEVAL_COUNTS_FLUSH_MS: String(WINDOW_MS) };
  let { base } = await server.start({ firstPort: 9100 + Math.floor(Math.random() * 800), vars });
  const tenant = await call(base, "POST", "/v1/tenants", adminKey, { name: `counters crash ${Date.now().toString(36)}` });
  expect(tenant.status).toBe(201);
  const key: string = tenant.body.apiKey;
  expect((await call(base, "PUT", "/v1/agents/counted", key, { displayName: "counted" })).status).toBeLessThan(300);
  const lesson = await call(base, "POST", "/v1/agents/counted/experiences", key, {
    text: "When npm install fails with EACCES, fix the cache permissions",
  });
  expect(lesson.status).toBe(201);
  const retrieve = async () => {
    const r = await call(base, "POST", "/v1/agents/counted/retrieve", key, { query: "npm install fails with EACCES" });
    expect(r.status).toBe(200);
    expect(r.body.retrievalId).toMatch(/^rt1\./);
    expect(r.body.items.map((i: { id: string }) => i.id)).toEqual([lesson.body.id]);
  };
  const counted = async () =>
    (await call(base, "GET", `/v1/agents/counted/experiences/${lesson.body.id}`, key)).body.counts.retrieved as number;

  for (let i = 0; i < BEFORE; i++) await retrieve();
  // Nothing else is asked of the Worker: the batch goes once its window has passed (polled, bounded).
  let seen = await counted();
  for (let i = 0; i < 60 && seen < BEFORE; i++) {
    await sleep(250);
    seen = await counted();
  }
  expect(seen).toBe(BEFORE);

  for (let i = 0; i < LAST; i++) await retrieve();
  ({ base } = await server.restart({ signal: "SIGKILL" }));

  const after = await counted();
  // Everything older than the window survived; the crash took at most the reads of the last window.
  expect(after).toBeGreaterThanOrEqual(BEFORE);
  expect(after).toBeLessThanOrEqual(BEFORE + LAST);
  const analytics = (await call(base, "GET", "/v1/agents/counted/analytics", key)).body;
  expect(analytics.retrievals).toBeGreaterThanOrEqual(BEFORE);
  expect(analytics.retrievals).toBeLessThanOrEqual(BEFORE + LAST);
  // The restarted Worker counts again.
  await retrieve();
  for (let i = 0; i < 60 && (await counted()) === after; i++) await sleep(250);
  expect(await counted()).toBe(after + 1);
});
