import { afterEach, describe, expect, it, vi } from "vitest";
import { slowEmbedderAgent } from "../memory/setup";
import { EMBEDDINGS_BASE_URL } from "../doubles/slow-embeddings";

afterEach(() => {
  vi.restoreAllMocks();
});

const SAFE = { safe: true, category: "safe", reason: "ordinary advice" };

describe("probation is part of the library version", () => {
  it("a live rewrite whose version fails leaves the old lesson served in the /prompt block", async () => {
    const { api, emb, stub } = await slowEmbedderAgent();
    const oldText = "Use a longer timeout when calling slow external HTTP APIs";
    const target = (await api("POST", "/experiences", { text: oldText })).body.id as string;
    expect((await api("GET", "/prompt?budgetTokens=2000")).body.prompt).toContain(oldText);

    // The embeddings endpoint goes down while the rewrite is being embedded: the version cannot commit.
    emb.spy.mockImplementation(async (input: RequestInfo | URL) => {
      const url = new Request(input as RequestInfo).url;
      if (url === `${EMBEDDINGS_BASE_URL}/embeddings`) return new Response("upstream down", { status: 503 });
      throw new Error(`Unexpected outbound fetch to ${url}`);
    });
    const candidate = { pattern: "slow HTTP APIs", keywords: ["timeout"], insight: "Give slow HTTP APIs a 30 second read timeout and one retry" };
    const failed = await stub
      .applyLiveLesson("job_fail", "ep_1", candidate, { operation: "UPDATE", targetId: target, reason: "extends it" }, { shownIds: [target], review: SAFE })
      .then(() => null, (err: unknown) => err);
    expect(String(failed)).toMatch(/HTTP 503/);

    const after = (await api("GET", `/experiences/${target}`)).body;
    expect(after).toMatchObject({ text: oldText, probation: false });
    expect((await api("GET", "/prompt?budgetTokens=2000")).body.prompt).toContain(oldText);
    expect((await api("GET", "/library/versions")).body.items).toHaveLength(1);
  });

  it("a live rewrite that commits puts the lesson on probation in the same version, whatever its source", async () => {
    const { api, stub } = await slowEmbedderAgent();
    const target = (await api("POST", "/experiences", { text: "Cache exchange rates for an hour" })).body.id as string;
    const candidate = { pattern: "exchange rates", keywords: ["cache"], insight: "Cache exchange rates for at most ten minutes during market hours" };
    const done = await stub.applyLiveLesson("job_ok", "ep_2", candidate, { operation: "UPDATE", targetId: target, reason: "fresher" }, { shownIds: [target], review: SAFE });
    if (!done.ok) throw new Error(JSON.stringify(done.error));
    expect(done.value.applied).toBe("updated");
    expect((await api("GET", `/experiences/${target}`)).body).toMatchObject({ text: candidate.insight, probation: true, source: "manual" });
    expect((await api("GET", "/prompt?budgetTokens=2000")).body.prompt).not.toContain(candidate.insight);
  });
});
