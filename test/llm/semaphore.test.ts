import { describe, expect, it } from "vitest";
import { Semaphore, SemaphoreTimeoutError, type SemaphoreClock } from "../../src/core/semaphore";

/** A promise plus its resolver, to hold tasks open until the test lets them finish. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

describe("Semaphore", () => {
  it("never lets more than `limit` tasks run at once", async () => {
    const s = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 5 }, gate);
    const tasks = gates.map((g) =>
      s.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await g.p;
        running--;
      }),
    );
    await tick();
    expect(running).toBe(2);
    expect(s.waiting).toBe(3);
    for (const g of gates) {
      g.open();
      await tick();
    }
    await Promise.all(tasks);
    expect(peak).toBe(2);
    expect(s.inUse).toBe(0);
    expect(s.waiting).toBe(0);
  });

  it("serves waiters first in, first out", async () => {
    const s = new Semaphore(1);
    const order: number[] = [];
    const first = gate();
    const head = s.run(async () => {
      await first.p;
      order.push(0);
    });
    const rest = [1, 2, 3].map((i) => s.run(async () => void order.push(i)));
    await tick();
    first.open();
    await Promise.all([head, ...rest]);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it("releases the permit when the task throws, and a double release does not add permits", async () => {
    const s = new Semaphore(1);
    await expect(s.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(s.inUse).toBe(0);
    const release = await s.acquire();
    release();
    release();
    expect(s.inUse).toBe(0);
    const a = await s.acquire();
    let secondAcquired = false;
    const b = s.acquire().then((r) => {
      secondAcquired = true;
      return r;
    });
    await tick();
    expect(secondAcquired).toBe(false);
    a();
    (await b)();
    expect(secondAcquired).toBe(true);
    expect(s.inUse).toBe(0);
  });

  it("bounds the wait: a waiter past its timeout fails with SemaphoreTimeoutError and leaves the queue", async () => {
    const s = new Semaphore(1, { tickMs: 5 });
    const release = await s.acquire();
    await expect(s.acquire({ timeoutMs: 30 })).rejects.toBeInstanceOf(SemaphoreTimeoutError);
    expect(s.waiting).toBe(0);
    release();
    (await s.acquire({ timeoutMs: 30 }))();
    expect(s.inUse).toBe(0);
  });

  it("drops a waiter whose signal aborts, and the next in line gets the permit", async () => {
    const s = new Semaphore(1, { tickMs: 5 });
    const release = await s.acquire();
    const gone = new AbortController();
    const cancelled = s.acquire({ signal: gone.signal });
    const next = s.acquire({ timeoutMs: 5_000 });
    await tick();
    expect(s.waiting).toBe(2);
    gone.abort(new Error("client went away"));
    await expect(cancelled).rejects.toThrow("client went away");
    expect(s.waiting).toBe(1);
    release();
    (await next)();
    expect(s.inUse).toBe(0);
  });

  /**
   * A request the runtime cancelled runs none of its code again: its timers stop, and it never
   * calls release. Its clock here stops firing when killed; the test never releases its permits.
   */
  function requestClock() {
    let alive = true;
    const clock: SemaphoreClock = {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(() => alive && fn(), ms),
      clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
    };
    return { clock, kill: () => void (alive = false) };
  }

  it("takes back the permits of holders whose requests were cancelled, so later callers are served", async () => {
    const s = new Semaphore(2, { tickMs: 5, heartbeatMs: 5 });
    const dead = [requestClock(), requestClock()];
    for (const d of dead) await s.acquire({ clock: d.clock });
    for (const d of dead) d.kill();
    expect(s.inUse).toBe(2);
    // Nobody releases and nobody else is active: the new caller finds the dead holders on its own timer.
    (await s.acquire({ timeoutMs: 5_000 }))();
    expect(s.inUse).toBe(0);
  });

  it("a burst of waiters cancelled while queued leaks no permit: the permits handed to them come back", async () => {
    const s = new Semaphore(2, { tickMs: 5, heartbeatMs: 5 });
    const holders = [await s.acquire(), await s.acquire()];
    const doomed = Array.from({ length: 6 }, requestClock);
    // Each doomed caller would get a permit and then never release it (its request is gone).
    for (const d of doomed) void s.acquire({ clock: d.clock, timeoutMs: 5_000 });
    await tick();
    expect(s.waiting).toBe(6);
    for (const d of doomed) d.kill();
    for (const r of holders) r();
    const later = await Promise.all([s.acquire({ timeoutMs: 5_000 }), s.acquire({ timeoutMs: 5_000 })]);
    expect(s.inUse).toBe(2);
    for (const r of later) r();
    expect(s.inUse).toBe(0);
    expect(s.waiting).toBe(0);
  });

  it("rejects a limit below one", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});
