import { reset } from "cloudflare:test";
import { afterAll, vi } from "vitest";

/**
 * `workers` runs its files one after another in one runtime: each file leaves the next empty
 * storage (D1, KV, Durable Objects; test/setup.ts, which also runs before every file, migrates D1
 * again), real timers and unstubbed globals. Vitest restores `vi.spyOn` spies itself.
 */
afterAll(async () => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  await reset();
});
