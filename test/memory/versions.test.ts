import { describe, expect, it } from "vitest";
import { call, expectProblem } from "../helpers";
import { agentFixture } from "./setup";

const strip = (lib: any[]) => lib.map(({ id, text, status, tags, pinned, label }) => ({ id, text, status, tags, pinned, label }));

describe("library versions", () => {
  it("versions every change; GET /versions/:n is the library as it was", async () => {
    const { api } = await agentFixture();
    const a = (await api("POST", "/experiences", { text: "lesson A" })).body.id;
    const b = (await api("POST", "/experiences", { text: "lesson B" })).body.id;
    await api("PATCH", `/experiences/${a}`, { text: "lesson A, refined" });
    await api("DELETE", `/experiences/${b}`);
    const list = await api("GET", "/library/versions");
    expect(list.body.items.map((v: any) => v.version)).toEqual([4, 3, 2, 1]);
    expect(list.body.items[0]).toMatchObject({ reason: "delete experience", changes: 1 });
    expect(list.body.items[0].author).toMatch(/^key:/);
    const v2 = await api("GET", "/library/versions/2");
    expect(strip(v2.body.experiences)).toEqual([
      { id: a, text: "lesson A", status: "active", tags: [], pinned: false, label: "G0" },
      { id: b, text: "lesson B", status: "active", tags: [], pinned: false, label: "G1" },
    ]);
    const v4 = await api("GET", "/library/versions/4");
    expect(v4.body.experiences.map((e: any) => e.text)).toEqual(["lesson A, refined"]);
    const diff = await api("GET", "/library/versions/4/diff");
    expect(diff.body.diff).toEqual([expect.objectContaining({ id: b, op: "delete", after: null })]);
    expect(diff.body.diff[0].before.text).toBe("lesson B");
    expectProblem(await api("GET", "/library/versions/99"), 404);
    expectProblem(await api("GET", "/library/versions/99/diff"), 404);
  });

  it("rollback restores the exact library of a version, as a new version, keeping learned Q", async () => {
    const { api } = await agentFixture();
    const a = (await api("POST", "/experiences", { text: "lesson A", tags: ["x"] })).body.id;
    const b = (await api("POST", "/experiences", { text: "lesson B" })).body.id;
    const snapshot = (await api("GET", "/library/versions/2")).body.experiences;
    await api("POST", "/rewards", { memoryIds: [a], outcome: "success" });
    await api("PATCH", `/experiences/${a}`, { text: "lesson A changed", tags: ["y"], pinned: true });
    await api("DELETE", `/experiences/${b}`);
    await api("POST", "/experiences", { text: "lesson C" });
    const rb = await api("POST", "/library/rollback", { version: 2 });
    expect(rb.status).toBe(200);
    expect(rb.body).toMatchObject({ libraryVersion: 6, unchanged: false });
    const now = (await api("GET", "/library/versions/6")).body.experiences;
    expect(strip(now)).toEqual(strip(snapshot));
    const ea = await api("GET", `/experiences/${a}`);
    expect(ea.body.q).toBeCloseTo(0.55, 12);
    const eb = await api("GET", `/experiences/${b}`);
    expect(eb.body).toMatchObject({ text: "lesson B", label: "G1", status: "active" });
    const hits = await api("POST", "/retrieve", { query: "lesson B", threshold: 0.2 });
    expect(hits.body.items.map((i: any) => i.id)).toContain(b);
    expect((await api("GET", "/experiences?status=all")).body.items).toHaveLength(2);
    const again = await api("POST", "/library/rollback", { version: 2 });
    expect(again.body).toMatchObject({ unchanged: true, libraryVersion: 6 });
    const toEmpty = await api("POST", "/library/rollback", { version: 0 });
    expect(toEmpty.body.libraryVersion).toBe(7);
    expect((await api("GET", "/experiences?status=all")).body.items).toHaveLength(0);
    expectProblem(await api("POST", "/library/rollback", { version: 50 }), 404);
  });

  it("export → import (replace) into another agent round-trips content, ids and (admin key) Q; merge skips known texts", async () => {
    const src = await agentFixture();
    await src.api("POST", "/experiences", { text: "lesson one", tags: ["t1"], pattern: "when X", keywords: ["x"], source: "practice" });
    const two = (await src.api("POST", "/experiences", { text: "lesson two", importance: 0.9 })).body.id;
    await src.api("POST", "/experiences", { text: "lesson three" });
    await src.api("PATCH", `/experiences/${two}`, { status: "archived" });
    await src.api("POST", "/rewards", { memoryIds: [two], reward: 0.4 });
    const exported = await src.api("GET", "/library/export");
    expect(exported.body.format).toBe("praxis-library/v1");
    expect(exported.body.experiences).toHaveLength(3);

    const dstId = `dst-${Date.now().toString(36)}`;
    await call("PUT", `/v1/agents/${dstId}`, { key: src.t.apiKey, body: {} });
    const dst = (m: string, p: string, body?: unknown) => call(m, `/v1/agents/${dstId}${p}`, { key: src.t.apiKey, body });
    await dst("POST", "/experiences", { text: "to be replaced" });
    const imp = await dst("POST", "/library/import", { mode: "replace", library: exported.body });
    expect(imp.status).toBe(200);
    const back = await dst("GET", "/library/export");
    // Provenance is the service's: imports arrive with source "import" and say where they came from.
    const content = (e: any) => ({ ...e, source: undefined, provenance: undefined });
    expect(back.body.experiences.map(content)).toEqual(exported.body.experiences.map(content));
    expect(back.body.experiences.map((e: any) => e.source)).toEqual(["import", "import", "import"]);
    expect(back.body.experiences[0].provenance.importedFrom).toContain("source manual");
    expect((await dst("GET", "/experiences?status=all")).body.items).toHaveLength(3);

    const merged = await dst("POST", "/library/import", {
      mode: "merge",
      library: {
        ...exported.body,
        experiences: [...exported.body.experiences, { ...exported.body.experiences[0], id: "x", text: "a brand new lesson" }],
      },
    });
    expect(merged.body.changed).toBe(1);
    expect((await dst("GET", "/experiences?status=all")).body.items).toHaveLength(4);
    const bad = await dst("POST", "/library/import", { mode: "merge", library: { format: "other", experiences: [] } });
    expectProblem(bad, 400);
  });
});
