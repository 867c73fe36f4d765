import { describe, expect, it } from "vitest";
import { Semaphore } from "../../src/core/semaphore";

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

  it("rejects a limit below one", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});
