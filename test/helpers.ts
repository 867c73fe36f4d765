import { SELF, env } from "cloudflare:test";
import { expect, vi } from "vitest";
import { unwrap, type Outcome } from "../src/core/errors";

export const ADMIN_KEY = env.PRAXIS_ADMIN_KEY!;
const BASE = "http://praxis.test";

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await SELF.fetch(BASE + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* non-JSON bodies (the docs page) stay text */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

let counter = 0;
export const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export async function newTenant(name = uniq("tenant")) {
  const r = await call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name } });
  expect(r.status).toBe(201);
  return r.body as { tenantId: string; apiKey: string; keyId: string };
}

export async function newKey(adminKey: string, scope: "admin" | "write" | "read", agentIds?: string[]) {
  const r = await call("POST", "/v1/keys", { key: adminKey, body: { name: `${scope} key`, scope, agentIds } });
  expect(r.status).toBe(201);
  return r.body as { id: string; apiKey: string };
}

export async function newAgent(key: string, agentId = uniq("agent")) {
  const r = await call("PUT", `/v1/agents/${agentId}`, { key, body: { displayName: agentId } });
  expect(r.status).toBe(201);
  return agentId;
}

export function expectProblem(r: Res, status: number, type?: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get("content-type")).toContain("application/problem+json");
  expect(r.body.status).toBe(status);
  expect(typeof r.body.detail).toBe("string");
  expect(r.body.requestId).toBe(r.headers.get("x-request-id"));
  if (type) expect(r.body.type).toBe(`https://praxis.dev/problems/${type}`);
}

/**
 * Holds what the Worker and its objects send to queues (shared by every queue binding, one
 * prototype): each body goes to `take`, so a test can deliver it through the real consumer.
 */
export function holdQueueSends(queue: Queue<unknown>, take: (body: any) => void) {
  const proto = Object.getPrototypeOf(queue) as Queue<unknown>;
  vi.spyOn(proto, "send").mockImplementation(async (body: unknown) => {
    take(body);
    return undefined as never;
  });
  vi.spyOn(proto, "sendBatch").mockImplementation(async (msgs: Iterable<MessageSendRequest<unknown>>) => {
    for (const m of msgs) take(m.body);
    return undefined as never;
  });
}

/** What an object call answered, its domain error thrown again, as the platform's resilient stubs give it. */
export async function valueOf<T>(call: Promise<Outcome<T>>): Promise<T> {
  return unwrap((await call) as Outcome<T>);
}
