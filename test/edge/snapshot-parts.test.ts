import { describe, expect, it } from "vitest";
import { agentFixture } from "../memory/setup";
import { probedWorker } from "./probe";
import { forgetReadModels } from "../../src/platform/edge/read-pipeline";

type Item = { id: string; score: number };

/**
 * One RPC message carries at most 32 MiB, and a 100,000-memory snapshot publishes about 48: a
 * snapshot over READ_SNAPSHOT_PART_BYTES travels as parts. Here the part size is made small, so an
 * agent of 60 lessons takes several.
 */
describe("a snapshot over the part size", () => {
  it("reaches the Worker part by part and ranks there as the object ranks", async () => {
    forgetReadModels();
    const f = await agentFixture();
    const operations = Array.from({ length: 60 }, (_, i) => ({
      op: "create",
      experience: { text: `When canary ${i} stalls in the rollout, roll back the release branch and verify its health checks first` },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    const w = probedWorker({}, { READ_SNAPSHOT_PART_BYTES: "4096" });
    const read = (extra: Record<string, unknown> = {}) =>
      w.call<{ servedFrom: string; items: Item[] }>("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, {
        query: "roll back a stalled canary",
        k2: 8,
        ...extra,
      });
    const edge = await read();
    expect(edge.status).toBe(200);
    expect(edge.body.servedFrom).toBe("edge");
    const parts = edge.trips.ops.filter((op) => op.endsWith(".snapshotPart")).length;
    expect(parts).toBeGreaterThan(1);
    const strong = await read({ consistency: "strong" });
    expect(strong.body.servedFrom).toBe("object");
    const shape = (items: Item[]) => items.map((i) => [i.id, Math.round(i.score * 1e9) / 1e9]);
    expect(shape(edge.body.items)).toEqual(shape(strong.body.items));
    expect(edge.body.items.length).toBe(8);
  });

  it("cut short, leaves the read to the object (snapshot-unavailable), which answers it, and is fetched again later", async () => {
    forgetReadModels();
    const f = await agentFixture();
    const operations = Array.from({ length: 40 }, (_, i) => ({
      op: "create",
      experience: { text: `Drain node ${i} before the kernel upgrade and cordon it so no new pods land there` },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    let failing = true;
    const w = probedWorker(
      {
        before: async (_binding, op) => {
          // Not transient, so not retried: what a part over the RPC message limit meets.
          if (failing && op === "snapshotPart") throw new Error("Serialized RPC arguments or return values are limited to 32MiB");
        },
      },
      { READ_SNAPSHOT_PART_BYTES: "4096" },
    );
    const read = () =>
      w.call<{ servedFrom: string; fallbackReason?: string; items: Item[] }>("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, {
        query: "drain a node before an upgrade",
      });
    const first = await read();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ servedFrom: "object", fallbackReason: "snapshot-unavailable" });
    expect(first.body.items.length).toBeGreaterThan(0);
    // Within the retry pause the isolate does not fetch again what just failed.
    const second = await read();
    expect(second.body).toMatchObject({ servedFrom: "object", fallbackReason: "snapshot-unavailable" });
    expect(second.trips.ops.filter((op) => op.endsWith(".readModel") || op.endsWith(".snapshotPart"))).toEqual([]);
    failing = false;
    forgetReadModels();
    const healed = await read();
    expect(healed.body.servedFrom).toBe("edge");
    expect(healed.body.items.map((i) => i.id)).toEqual(first.body.items.map((i) => i.id));
  });

  it("is fetched and decoded once by an isolate: reads that arrive meanwhile are answered by the object (snapshot-loading)", async () => {
    forgetReadModels();
    const f = await agentFixture();
    const operations = Array.from({ length: 40 }, (_, i) => ({
      op: "create",
      experience: { text: `Rotate signing key ${i} before it expires and publish the new one first` },
    }));
    expect((await f.api("POST", "/library/batch", { reason: "seed", operations })).status).toBe(200);
    let snapshotAnswers = 0;
    const w = probedWorker(
      {
        // The parts travel slowly, so the reads below all arrive while the first read fetches them.
        before: async (_binding, op) => {
          if (op === "snapshotPart") await new Promise((r) => setTimeout(r, 20));
        },
        after: (_binding, op) => {
          if (op === "snapshotPart") snapshotAnswers++;
        },
      },
      { READ_SNAPSHOT_PART_BYTES: "4096" },
    );
    const read = () =>
      w.call<{ servedFrom: string; fallbackReason?: string; items: Item[] }>("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, {
        query: "rotate a signing key",
      });
    const first = read();
    await new Promise((r) => setTimeout(r, 5));
    const others = await Promise.all(Array.from({ length: 5 }, read));
    const all = [await first, ...others];
    for (const r of all) expect(r.status).toBe(200);
    // Whichever read's answer came first fetches; the others do not wait for it.
    expect(all.filter((r) => r.body.servedFrom === "edge").length).toBe(1);
    expect(all.filter((r) => r.body.servedFrom === "object").map((r) => r.body.fallbackReason)).toEqual(Array(5).fill("snapshot-loading"));
    const parts = snapshotAnswers;
    expect(parts).toBeGreaterThan(1);
    // Fetched once: the next read is served at the edge without another part.
    const next = await read();
    expect(next.body.servedFrom).toBe("edge");
    expect(snapshotAnswers).toBe(parts);
    expect(next.body.items.map((i) => i.id)).toEqual(all[0]!.body.items.map((i) => i.id));
  });

  it("is sent whole when it fits one part", async () => {
    forgetReadModels();
    const f = await agentFixture();
    expect((await f.api("POST", "/experiences", { text: "Pin the container image digest before a rollout" })).status).toBe(201);
    const w = probedWorker();
    const r = await w.call("POST", `/v1/agents/${f.agentId}/retrieve`, f.t.apiKey, { query: "container image" });
    expect(r.body.servedFrom).toBe("edge");
    expect(r.trips.ops.filter((op) => op.endsWith(".snapshotPart"))).toEqual([]);
  });
});
