import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { sha256Hex } from "../../src/core/api-key";
import type { Env } from "../../src/env";
import { resolveKey } from "../../src/platform/edge/key-store";
import { newTenant } from "../helpers";
import { coldKey } from "./probe";

/**
 * A burst of requests for a key the isolate does not hold shares one lookup. The lookup's I/O
 * belongs to the request that started it; when the runtime cancels that request the promise never
 * settles. The next request for the key must not wait on it forever (before: it did, and so did
 * every later one, since the entry was never removed).
 */
it("a shared key lookup whose request was cancelled does not hold up the next requests for that key", async () => {
  const t = await newTenant();
  await coldKey(t.apiKey);
  const hash = await sha256Hex(t.apiKey);
  const ctx = { waitUntil: () => undefined };
  // The first request's KV read never comes back: what a cancelled request's pending I/O looks like to the others.
  const cancelled = { ...env, PRAXIS_KEYS: { get: () => new Promise<never>(() => undefined) } } as unknown as Env;
  void resolveKey(cancelled, hash, ctx);
  const next = await resolveKey(env as Env, hash, ctx);
  expect(next).toMatchObject({ tenantId: t.tenantId, revoked: false });
  const later = await resolveKey(env as Env, hash, ctx);
  expect(later).toMatchObject({ tenantId: t.tenantId });
});
