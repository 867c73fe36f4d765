import { describe, expect, it } from "vitest";
import { dayOf, MAX_PENDING_ITEMS, RetrievalCounts } from "../../src/core/retrieval-counts";

const T = Date.UTC(2026, 10, 26, 12);
const served = (...ids: string[]) => ({ items: ids.map((id) => ({ id, kind: "experience" as const })), readOnly: false });

describe("retrieval use counters in an isolate", () => {
  it("sum an agent's reads per item, keep the latest use, and count every read by day", () => {
    const c = new RetrievalCounts();
    c.add("t:a", served("exp_1", "exp_2"), T);
    c.add("t:a", served("exp_1"), T + 5);
    c.add("t:a", { items: [{ id: "exp_3", kind: "case" }], readOnly: true }, T + 9);
    c.add("t:b", served("exp_9"), T + 1);
    const [batch, ...more] = c.take("t:a");
    expect(more).toEqual([]);
    expect(batch!.items).toEqual([
      { id: "exp_1", kind: "experience", n: 2, lastUsedAt: T + 5 },
      { id: "exp_2", kind: "experience", n: 1, lastUsedAt: T },
    ]);
    // The read key's read counts in the total, and moves no item.
    expect(batch!.retrievals).toEqual([{ day: dayOf(T), n: 3 }]);
    expect(c.take("t:a")).toEqual([]);
    expect(c.held()).toEqual(["t:b"]);
  });

  it("say which agents' oldest count is older than the window", () => {
    const c = new RetrievalCounts();
    c.add("t:a", served("exp_1"), T);
    c.add("t:b", served("exp_1"), T + 1500);
    c.add("t:a", served("exp_1"), T + 1900);
    expect(c.due(T + 1999, 2000)).toEqual([]);
    expect(c.due(T + 2000, 2000)).toEqual(["t:a"]);
    expect(c.since("t:a")).toBe(T);
    c.take("t:a");
    c.add("t:a", served("exp_1"), T + 2100);
    expect(c.since("t:a")).toBe(T + 2100);
  });

  it("send a batch that failed again first, under the same id", () => {
    const c = new RetrievalCounts();
    c.add("t:a", served("exp_1"), T);
    const [failed] = c.take("t:a");
    c.add("t:a", served("exp_2"), T + 10);
    c.putBack("t:a", failed!, T + 20);
    expect(c.since("t:a")).toBe(T + 10);
    const again = c.take("t:a");
    expect(again.map((b) => b.id)[0]).toBe(failed!.id);
    expect(again).toHaveLength(2);
    expect(again[1]!.id).not.toBe(failed!.id);
    expect(c.pending).toBe(0);
  });

  it("never hold more than its budget of counters, dropping (and counting) what does not fit", () => {
    const c = new RetrievalCounts();
    for (let i = 0; i < MAX_PENDING_ITEMS + 50; i++) c.add(`t:agent${i % 7}`, served(`exp_${i}`), T + i);
    expect(c.pending).toBe(MAX_PENDING_ITEMS);
    expect(c.dropped).toBe(57);
    // Items already held still count.
    c.add("t:agent0", served("exp_0"), T);
    expect(c.take("t:agent0")[0]!.items.find((i) => i.id === "exp_0")!.n).toBe(2);
    const batch = c.take("t:agent1")[0]!;
    expect(c.pending).toBeLessThan(MAX_PENDING_ITEMS);
    // No room for a put-back larger than what is free.
    for (let i = 0; c.pending < MAX_PENDING_ITEMS; i++) c.add("t:agent2", served(`exp_more_${i}`), T);
    const before = c.dropped;
    c.putBack("t:agent1", batch, T);
    expect(c.dropped).toBe(before + batch.items.length + 1);
    expect(c.pending).toBe(MAX_PENDING_ITEMS);
  });
});
