import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../helpers";
import { agentFixture } from "../memory/setup";

describe("what a newcomer meets", () => {
  it("GET / points to the docs, the OpenAPI document, the dashboard, the health check and MCP; a browser goes to the docs", async () => {
    const r = await call("GET", "/");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "Praxis",
      links: { docs: "/docs", openapi: "/openapi.json", dashboard: "/dashboard", health: "/healthz", mcp: "/mcp" },
    });
    const browser = await SELF.fetch("http://praxis.test/", { headers: { accept: "text/html,application/xhtml+xml" }, redirect: "manual" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/docs");
  });

  it("the episode list shows each episode's attempts, as the episode itself does", async () => {
    const { api } = await agentFixture();
    const tried = (await api("POST", "/episodes", { task: "Deploy the billing service" })).body.episodeId;
    await api("POST", `/episodes/${tried}/attempts`, { description: "ran the deploy script", ok: false, error: "permission denied" });
    await api("POST", `/episodes/${tried}/attempts`, { description: "ran it with the deploy role", ok: true });
    const untried = (await api("POST", "/episodes", { task: "Rotate the database password" })).body.episodeId;
    const list = await api("GET", "/episodes");
    expect(list.status).toBe(200);
    const byId = Object.fromEntries(list.body.items.map((e: any) => [e.id, e]));
    expect(byId[tried].attempts).toEqual((await api("GET", `/episodes/${tried}`)).body.attempts);
    expect(byId[tried].attempts.map((a: any) => [a.n, a.ok])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(byId[untried].attempts).toEqual([]);
  });

  it("a retrieved item names every channel that found it: an exact keyword hit reports the lexical channel too", async () => {
    const { api } = await agentFixture();
    const hit = (await api("POST", "/experiences", { text: "When the payments API answers 429, wait for Retry-After" })).body.id;
    await api("POST", "/experiences", { text: "Greet the customer by name in every reply" });
    const r = await api("POST", "/retrieve", { query: "payments API 429 Retry-After" });
    const item = r.body.items.find((i: any) => i.id === hit);
    expect(item.relevance).toBe(1);
    expect(item.channels).toEqual(["vector", "lexical"]);
    const lexicalOnly = await api("POST", "/retrieve", { query: "429", threshold: 1 });
    expect(lexicalOnly.body.items.map((i: any) => [i.id, i.channels])).toEqual([[hit, ["lexical"]]]);
  });

  it("adding a lesson near-identical to an active one says so, naming it", async () => {
    const { api } = await agentFixture();
    const first = await api("POST", "/experiences", {
      text: "When an API answers 429, wait for Retry-After, then retry with exponential backoff",
    });
    expect(first.body.similar).toEqual([]);
    const again = await api("POST", "/experiences", {
      text: "When an API answers 429, wait for Retry-After, then retry with exponential backoff.",
    });
    expect(again.status).toBe(201);
    expect(again.body.similar).toEqual([{ id: first.body.id, text: first.body.text, sim: expect.any(Number) }]);
    expect(again.body.similar[0].sim).toBeGreaterThanOrEqual(0.9);
    const other = await api("POST", "/experiences", { text: "Escalate chargebacks to the finance team within a day" });
    expect(other.body.similar).toEqual([]);
  });
});
