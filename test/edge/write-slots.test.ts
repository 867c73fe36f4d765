import { afterEach, expect, it, vi } from "vitest";
import { expectProblem, newAgent, newTenant } from "../helpers";
import { probedWorker } from "./probe";

afterEach(() => {
  vi.useRealTimers();
});

/**
 * An agent's object applies writes one after another; past 16 in flight from one isolate a write
 * waits a bounded time for a slot and then answers 503 with Retry-After, having sent nothing. The
 * held writes here stand for an object that is saturated (they wait inside the binding call).
 */
it("a write that finds every write slot of its agent busy answers 503 with Retry-After, and the held writes complete", async () => {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let held = 0;
  const w = probedWorker({
    before: async (binding, op) => {
      if (binding === "AGENT_MEMORY" && op === "createExperience") {
        held++;
        await gate;
      }
    },
  });
  // Fake time for the slot waits and heartbeats; the requests' own I/O needs real time (workerd's scheduler.wait is not faked).
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  const write = (i: number) =>
    w.call("POST", `/v1/agents/${agentId}/experiences`, t.apiKey, { text: `Held write ${i}: check the health endpoint.` });
  const holding = Array.from({ length: 16 }, (_, i) => write(i));
  for (let i = 0; i < 400 && held < 16; i++) await scheduler.wait(10);
  expect(held).toBe(16);

  let settled = false;
  const refused = write(16).finally(() => (settled = true));
  for (let i = 0; i < 200 && !settled; i++) {
    await vi.advanceTimersByTimeAsync(250);
    await scheduler.wait(5);
  }
  vi.useRealTimers();
  const r = await refused;
  expectProblem(r, 503, "service-unavailable");
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(held).toBe(16);

  open();
  expect((await Promise.all(holding)).map((h) => h.status)).toEqual(Array(16).fill(201));
});
