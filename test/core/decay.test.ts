import { describe, expect, it } from "vitest";
import { DAY_MS, effectiveDecay, retention, selectForDecay, selectOverCapacity, type CapacityItem } from "../../src/core/decay";
import { defaultAgentConfig } from "../../src/core/agent-config";

const T0 = Date.UTC(2025, 0, 1);
const days = (n: number) => T0 + n * DAY_MS;
const P = { baseDecay: 0.05, utilityFactor: 0.8, useBoost: 0.5 };

describe("effectiveDecay", () => {
  it("shrinks with utility", () => {
    expect(effectiveDecay(0.05, 0, 0.8)).toBe(0.05);
    expect(effectiveDecay(0.05, 0.75, 0.8)).toBeCloseTo(0.02, 12); // 0.05·(1 − 0.6)
    expect(effectiveDecay(0.05, 1, 1)).toBe(0);
  });

  it("clamps utilityFactor and qNorm to [0,1]", () => {
    expect(effectiveDecay(0.05, 0.75, 2)).toBeCloseTo(0.0125, 12);
    expect(effectiveDecay(0.05, 0.75, -1)).toBe(0.05);
    expect(effectiveDecay(0.05, 3, 0.5)).toBeCloseTo(0.025, 12);
  });
});

describe("retention", () => {
  it("matches hand-computed values", () => {
    expect(defaultAgentConfig().decay).toEqual({ baseDecay: 0.05, utilityFactor: 0.8, useBoost: 0.5, threshold: 0.1, enabled: true });
    // q 0.5 → qNorm 0.75 → rate 0.02; 10 days, no uses → exp(−0.2)
    const item = { createdAt: T0, lastUsedAt: T0, q: 0.5, uses: 0 };
    expect(retention(item, days(10), P)).toBeCloseTo(Math.exp(-0.2), 12);
    expect(retention(item, days(10), P)).toBeCloseTo(0.818731, 6);
    // 3 uses → stretch 1 + 0.5·ln 4 → exp(−0.2 / 1.693147) ≈ 0.888587
    expect(retention({ ...item, uses: 3 }, days(10), P)).toBeCloseTo(0.888587, 6);
  });

  it("is 1 at age 0 and for a clock behind the item", () => {
    const item = { createdAt: days(5), lastUsedAt: 0, q: -1, uses: 0 };
    expect(retention(item, days(5), P)).toBe(1);
    expect(retention(item, days(1), P)).toBe(1);
  });

  it("ages from the later of last use and creation", () => {
    const neverUsed = { createdAt: T0, lastUsedAt: 0, q: -1, uses: 0 };
    expect(retention(neverUsed, days(20), P)).toBeCloseTo(Math.exp(-1), 12);
    const usedRecently = { ...neverUsed, lastUsedAt: days(18), uses: 0 };
    expect(retention(usedRecently, days(20), P)).toBeCloseTo(Math.exp(-0.1), 12);
  });

  it("decays high-Q memories slower than low-Q ones", () => {
    const base = { createdAt: T0, lastUsedAt: T0, uses: 0 };
    const lo = retention({ ...base, q: -1 }, days(30), P);
    const hi = retention({ ...base, q: 1 }, days(30), P);
    expect(lo).toBeCloseTo(Math.exp(-1.5), 12); // rate 0.05
    expect(hi).toBeCloseTo(Math.exp(-0.3), 12); // rate 0.05·0.2 = 0.01
    expect(hi).toBeGreaterThan(lo);
  });

  it("decays often-used memories slower", () => {
    const base = { createdAt: T0, lastUsedAt: T0, q: 0 };
    const r0 = retention({ ...base, uses: 0 }, days(30), P);
    const r5 = retention({ ...base, uses: 5 }, days(30), P);
    const r50 = retention({ ...base, uses: 50 }, days(30), P);
    expect(r5).toBeGreaterThan(r0);
    expect(r50).toBeGreaterThan(r5);
    expect(retention({ ...base, uses: 50 }, days(30), { ...P, useBoost: 0 })).toBeCloseTo(r0, 12);
  });
});

describe("selectForDecay", () => {
  const base = { createdAt: T0, lastUsedAt: T0, uses: 0, pinned: false, status: "active" };
  // At 50 days with q = −1: exp(−2.5) ≈ 0.082 < 0.1; with q = 1: exp(−0.5) ≈ 0.61.
  const items = [
    { ...base, id: "faded", q: -1 },
    { ...base, id: "useful", q: 1 },
    { ...base, id: "pinned", q: -1, pinned: true },
    { ...base, id: "archived", q: -1, status: "archived" },
    { ...base, id: "recent", q: -1, lastUsedAt: days(45) },
    { ...base, id: "older", q: -1, createdAt: T0 - 10 * DAY_MS, lastUsedAt: 0 },
  ];

  it("picks active, unpinned, faded items, most faded first", () => {
    expect(selectForDecay(items, days(50), P, 0.1)).toEqual(["older", "faded"]);
  });

  it("uses the default threshold and respects a stricter one", () => {
    expect(selectForDecay(items, days(50), P, defaultAgentConfig().decay.threshold)).toEqual(["older", "faded"]);
    // exp(−0.25) ≈ 0.78 for "recent": only a threshold above that takes it.
    expect(selectForDecay(items, days(50), P, 0.8)).toEqual(["older", "faded", "useful", "recent"]);
    expect(selectForDecay(items, days(1), P, 0.1)).toEqual([]);
  });
});

describe("selectOverCapacity", () => {
  const item = (id: string, q: number, over: Partial<CapacityItem> = {}): CapacityItem => ({
    id,
    q,
    pinned: false,
    status: "active",
    updatedAt: T0,
    ...over,
  });

  it("archives the lowest-Q unpinned items until active count fits", () => {
    const items = [item("a", 0.9), item("b", -0.2), item("c", 0.1), item("d", -0.5), item("e", 0.4)];
    expect(selectOverCapacity(items, 3)).toEqual(["d", "b"]);
    expect(selectOverCapacity(items, 5)).toEqual([]);
    expect(selectOverCapacity(items, 10)).toEqual([]);
    expect(selectOverCapacity(items, 0)).toEqual(["d", "b", "c", "e", "a"]);
  });

  it("counts pinned items but never selects them, and ignores inactive ones", () => {
    const items = [item("pinnedLow", -1, { pinned: true }), item("gone", -1, { status: "archived" }), item("x", 0.2), item("y", 0.3)];
    // 3 active, capacity 2 → one to archive; pinned and archived are skipped.
    expect(selectOverCapacity(items, 2)).toEqual(["x"]);
    // Pinned alone exceed capacity: every unpinned active item goes.
    expect(selectOverCapacity(items, 0)).toEqual(["x", "y"]);
  });

  it("breaks Q ties by older updatedAt, then id", () => {
    const items = [
      item("new", 0, { updatedAt: days(3) }),
      item("old-b", 0, { updatedAt: days(1) }),
      item("old-a", 0, { updatedAt: days(1) }),
      item("keep", 0.5),
    ];
    expect(selectOverCapacity(items, 2)).toEqual(["old-a", "old-b"]);
    expect(selectOverCapacity(items, 1)).toEqual(["old-a", "old-b", "new"]);
  });
});
