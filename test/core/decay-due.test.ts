import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DAY_MS, nextFadeAt, selectForDecay, type DecayParams } from "../../src/core/decay";

const params: DecayParams = { baseDecay: 0.05, utilityFactor: 0.8, useBoost: 0.5 };
const item = (over: Partial<Parameters<typeof selectForDecay>[0][number]> = {}) => ({
  id: "e1",
  pinned: false,
  status: "active",
  q: 0,
  uses: 0,
  createdAt: 1_000_000,
  lastUsedAt: 0,
  ...over,
});

describe("nextFadeAt: when a sweep next has something to archive", () => {
  it("is the moment the sweep would first select the item, for any item and parameters", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 50 }),
        fc.double({ min: 0.01, max: 2, noNaN: true }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (q, uses, baseDecay, threshold) => {
          const p = { ...params, baseDecay };
          const it = item({ q, uses });
          const at = nextFadeAt([it], p, threshold);
          if (at === null) return;
          expect(selectForDecay([it], at, p, threshold)).toEqual(["e1"]);
          expect(selectForDecay([it], at - 2, p, threshold)).toEqual([]);
        },
      ),
    );
  });

  it("takes the earliest item, counts from the last use, and ignores pinned, inactive and never-fading items", () => {
    const old = item({ id: "old", createdAt: 0 });
    const fresh = item({ id: "fresh", createdAt: 10 * DAY_MS });
    expect(nextFadeAt([fresh, old], params, 0.1)).toBe(nextFadeAt([old], params, 0.1));
    const used = item({ id: "used", createdAt: 0, lastUsedAt: 5 * DAY_MS });
    expect(nextFadeAt([used], params, 0.1)! - nextFadeAt([old], params, 0.1)!).toBe(5 * DAY_MS);
    expect(nextFadeAt([item({ pinned: true }), item({ status: "archived" })], params, 0.1)).toBeNull();
    // Q = 1 with utilityFactor 1: a memory that never decays.
    expect(nextFadeAt([item({ q: 1 })], { ...params, utilityFactor: 1 }, 0.1)).toBeNull();
    expect(nextFadeAt([old], params, 0)).toBeNull();
  });
});
