import { describe, expect, it } from "vitest";
import { TtlLru } from "../../src/core/ttl-lru";

describe("TtlLru", () => {
  it("forgets an entry once it is older than the TTL (the bound on a stale key in an isolate)", () => {
    const clock = { t: 0 };
    const lru = new TtlLru<string, number>(10, 10_000, () => clock.t);
    lru.set("k", 1);
    clock.t = 9_999;
    expect(lru.get("k")).toBe(1);
    clock.t = 10_000;
    expect(lru.get("k")).toBeUndefined();
    expect(lru.size).toBe(0);
  });

  it("drops the least recently used entry when full", () => {
    const lru = new TtlLru<string, number>(2, 60_000, () => 0);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1);
    lru.set("c", 3);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe(1);
    expect(lru.get("c")).toBe(3);
  });

  it("keeps a cached null (a key known not to exist) apart from a miss", () => {
    const lru = new TtlLru<string, number | null>(2, 1_000, () => 0);
    lru.set("gone", null);
    expect(lru.get("gone")).toBeNull();
    expect(lru.get("never")).toBeUndefined();
  });
});
