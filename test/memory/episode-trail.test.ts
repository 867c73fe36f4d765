import { describe, expect, it } from "vitest";
import { agentFixture } from "./setup";

// The dashboard explains a lesson by the rewards behind its Q and an episode by what it retrieved (issue 31).
describe("an episode's trail", () => {
  it("lists the episode's retrievals in rank order with their signals, and ties each Q change to its episode or retrieval", async () => {
    const { api } = await agentFixture();
    const a = (await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" })).body.id as string;
    const b = (await api("POST", "/experiences", { text: "Retry HTTP 429 after the Retry-After header delay" })).body.id as string;
    const ep = (await api("POST", "/episodes", { task: "Call the rates API" })).body.episodeId as string;
    const shown = await api("POST", "/retrieve", { query: "retry HTTP 429 with exponential backoff", episodeId: ep });
    const open = await api("GET", `/episodes/${ep}/retrievals`);
    expect(open.status).toBe(200);
    expect(open.body.items).toHaveLength(1);
    const [r] = open.body.items;
    expect(r.retrievalId).toBe(shown.body.retrievalId);
    expect(r.query).toBe("retry HTTP 429 with exponential backoff");
    expect(r.rewarded).toBe(false);
    expect(r.items.map((i: { id: string }) => i.id)).toEqual(shown.body.items.map((i: { id: string }) => i.id));
    expect(r.items.map((i: { score: number }) => i.score)).toEqual(shown.body.items.map((i: { score: number }) => i.score));
    for (const item of r.items) {
      expect(item.shownWithLibrary).toBe(false);
      expect(Object.keys(item.signals).sort()).toEqual([
        "isCase",
        "learnedPhrase",
        "q",
        "recency",
        "textBm25",
        "usageSim",
        "vectorSim",
        "whenBm25",
        "whenSim",
      ]);
      expect(item.signals.q).toBe(0.5);
    }
    // A feature keeps 4 decimals (featuresOf).
    expect(r.items[0].signals.vectorSim).toBeCloseTo(shown.body.items[0].sim, 4);

    await api("POST", `/episodes/${ep}/end`, { outcome: "success" });
    expect((await api("GET", `/episodes/${ep}/retrievals`)).body.items[0].rewarded).toBe(true);
    const other = await api("POST", "/retrieve", { query: "Retry-After header delay" });
    await api("POST", "/rewards", { retrievalId: other.body.retrievalId, outcome: "failure" });
    await api("POST", "/rewards", { memoryIds: [b], reward: 0.5 });
    const hist = (await api("GET", `/experiences/${b}`)).body.qHistory as {
      episodeId: string | null;
      retrievalId: string | null;
      reward: number;
    }[];
    // A token's history names the `ret_…` id it carries (its claims' `j`), not the whole token.
    const tokenId = JSON.parse(atob(other.body.retrievalId.split(".")[2].replace(/-/g, "+").replace(/_/g, "/"))).j;
    expect(tokenId).toMatch(/^ret_[0-9a-f]{20}$/);
    expect(hist.map((h) => [h.episodeId, h.retrievalId, h.reward])).toEqual([
      [ep, null, 1],
      [null, tokenId, -1],
      [null, null, 0.5],
    ]);
    expect((await api("GET", `/experiences/${a}`)).body.qHistory[0].episodeId).toBe(ep);
  });

  it("answers 404 for an episode that does not exist", async () => {
    const { api } = await agentFixture();
    const res = await api("GET", "/episodes/ep_missing/retrievals");
    expect(res.status).toBe(404);
  });
});
