import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteLru } from "../../src/core/byte-lru";

describe("ByteLru", () => {
  it("never holds more bytes than its budget, whatever is added, read and removed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("set" as const), key: fc.integer({ min: 0, max: 20 }), bytes: fc.integer({ min: 0, max: 4_000 }) }),
            fc.record({ op: fc.constant("get" as const), key: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 20 }) }),
          ),
          { maxLength: 200 },
        ),
        (budget, ops) => {
          const lru = new ByteLru<number, string>(budget);
          const declared = new Map<number, number>();
          for (const o of ops) {
            if (o.op === "set") {
              const kept = lru.set(o.key, `v${o.key}`, o.bytes);
              expect(kept).toBe(o.bytes <= budget);
              declared.set(o.key, o.bytes);
            } else if (o.op === "get") lru.get(o.key);
            else lru.delete(o.key);
            expect(lru.bytes).toBeLessThanOrEqual(budget);
          }
          let held = 0;
          for (const key of declared.keys()) if (lru.get(key) !== undefined) held += declared.get(key)!;
          expect(lru.bytes).toBe(held);
        },
      ),
    );
  });

  it("evicts the least recently used first, and refuses what would not fit alone", () => {
    const lru = new ByteLru<string, number>(100);
    lru.set("a", 1, 40);
    lru.set("b", 2, 40);
    lru.get("a");
    lru.set("c", 3, 40);
    expect(lru.get("b")).toBeUndefined();
    expect([lru.get("a"), lru.get("c")]).toEqual([1, 3]);
    expect(lru.set("huge", 4, 101)).toBe(false);
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.bytes).toBe(80);
  });

  it("makes room for a value before it is built, evicting the least recently used, and no more than needed", () => {
    const lru = new ByteLru<string, number>(100);
    lru.set("a", 1, 30);
    lru.set("b", 2, 30);
    lru.set("c", 3, 30);
    lru.get("a");
    lru.makeRoom(40);
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([1, undefined, 3]);
    expect(lru.bytes).toBe(60);
    lru.makeRoom(90, "a");
    expect([lru.get("a"), lru.get("c")]).toEqual([1, undefined]);
    lru.makeRoom(500);
    expect(lru.size).toBe(0);
  });
});
