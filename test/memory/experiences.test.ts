import { describe, expect, it } from "vitest";
import { expectProblem } from "../helpers";
import { agentFixture as setup } from "./setup";

describe("experiences", () => {
  it("creates experiences as versions with labels G0…Gn re-assigned after changes", async () => {
    const { api } = await setup();
    const a = await api("POST", "/experiences", { text: "Check the unit of measure before summing quantities", tags: ["math"] });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ label: "G0", libraryVersion: 1, q: 0.5, source: "manual", status: "active" });
    const b = await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff", source: "live" });
    // The source is the service's to set: a client's claim of "live" is not provenance.
    expect(b.body).toMatchObject({ source: "manual", probation: false });
    const c = await api("POST", "/experiences", { text: "Validate JSON before parsing it" });
    expect([b.body.label, c.body.label]).toEqual(["G1", "G2"]);
    const archived = await api("PATCH", `/experiences/${b.body.id}`, { status: "archived" });
    expect(archived.status).toBe(200);
    expect(archived.body.label).toBeNull();
    expect(archived.body.libraryVersion).toBe(4);
    expect((await api("GET", `/experiences/${c.body.id}`)).body.label).toBe("G1");
    expect((await api("GET", `/experiences/${a.body.id}`)).body.id).toBe(a.body.id);
  });

  it("lists with filters and cursor pagination", async () => {
    const { api } = await setup();
    for (let i = 0; i < 5; i++)
      await api("POST", "/experiences", {
        text: `lesson number ${i} about caching`,
        tags: i % 2 ? ["odd"] : ["even"],
        source: i < 2 ? "live" : "manual",
      });
    const odd = await api("GET", "/experiences?tag=odd");
    expect(odd.body.items.map((e: any) => e.text)).toEqual(["lesson number 1 about caching", "lesson number 3 about caching"]);
    expect((await api("GET", "/experiences?source=live")).body.items).toHaveLength(0);
    expect((await api("GET", "/experiences?source=manual")).body.items).toHaveLength(5);
    const contains = await api("GET", "/experiences?contains=NUMBER%204");
    expect(contains.body.items).toHaveLength(1);
    const p1 = await api("GET", "/experiences?limit=2");
    const p2 = await api("GET", `/experiences?limit=2&cursor=${p1.body.nextCursor}`);
    const p3 = await api("GET", `/experiences?limit=2&cursor=${p2.body.nextCursor}`);
    expect([...p1.body.items, ...p2.body.items, ...p3.body.items].map((e: any) => e.label)).toEqual(["G0", "G1", "G2", "G3", "G4"]);
    expect(p3.body.nextCursor).toBeNull();
    expect((await api("GET", "/experiences?minQ=0.6")).body.items).toHaveLength(0);
  });

  it("rejects bad input with field paths and changes nothing", async () => {
    const { api } = await setup();
    const long = await api("POST", "/experiences", { text: "x".repeat(601) });
    expectProblem(long, 400, "validation-failed");
    expect(long.body.errors[0].path).toBe("text");
    expectProblem(await api("POST", "/experiences", { text: "   " }), 400);
    expectProblem(await api("PATCH", "/experiences/exp_nope", { text: "new" }), 404);
    expectProblem(await api("DELETE", "/experiences/exp_nope"), 404);
    const batch = await api("POST", "/library/batch", {
      reason: "mixed",
      operations: [
        { op: "create", experience: { text: "would be added" } },
        { op: "delete", id: "exp_missing" },
      ],
    });
    expectProblem(batch, 404);
    expect((await api("GET", "/experiences?status=all")).body.items).toHaveLength(0);
    expect((await api("GET", "/library/versions")).body.items).toHaveLength(0);
  });

  it("applies a batch atomically as one version", async () => {
    const { api } = await setup();
    const a = await api("POST", "/experiences", { text: "Old lesson about timeouts" });
    const r = await api("POST", "/library/batch", {
      reason: "refine",
      operations: [
        { op: "create", experience: { text: "New lesson about retries" } },
        { op: "update", id: a.body.id, patch: { text: "Refined lesson about timeouts" } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.libraryVersion).toBe(2);
    const diff = await api("GET", "/library/versions/2/diff");
    expect(diff.body.diff.map((d: any) => d.op).sort()).toEqual(["create", "update"]);
    const upd = diff.body.diff.find((d: any) => d.op === "update");
    expect(upd.before.text).toBe("Old lesson about timeouts");
    expect(upd.after.text).toBe("Refined lesson about timeouts");
  });
});
