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
    const candidate = {
      pattern: "slow HTTP APIs",
      keywords: ["timeout"],
      insight: "Give slow HTTP APIs a 30 second read timeout and one retry",
    };
    const failed = await stub
      .applyLiveLesson({
        jobId: "job_fail",
        episodeId: "ep_1",
        candidate,
        decision: { operation: "UPDATE", targetId: target, reason: "extends it" },
        context: { shownIds: [target], review: SAFE },
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(String(failed)).toMatch(/HTTP 503/);

    const after = (await api("GET", `/experiences/${target}`)).body;
    expect(after).toMatchObject({ text: oldText, probation: false });
    expect((await api("GET", "/prompt?budgetTokens=2000")).body.prompt).toContain(oldText);
    expect((await api("GET", "/library/versions")).body.items).toHaveLength(1);
  });

  it("a live rewrite that commits puts the lesson on probation in the same version, whatever its source", async () => {
    const { api, stub } = await slowEmbedderAgent();
    const target = (await api("POST", "/experiences", { text: "Cache exchange rates for an hour" })).body.id as string;
    const candidate = {
      pattern: "exchange rates",
      keywords: ["cache"],
      insight: "Cache exchange rates for at most ten minutes during market hours",
    };
    const done = await stub.applyLiveLesson({
      jobId: "job_ok",
      episodeId: "ep_2",
      candidate,
      decision: { operation: "UPDATE", targetId: target, reason: "fresher" },
      context: { shownIds: [target], review: SAFE },
    });
    if (!done.ok) throw new Error(JSON.stringify(done.error));
    expect(done.value.applied).toBe("updated");
    expect((await api("GET", `/experiences/${target}`)).body).toMatchObject({ text: candidate.insight, probation: true, source: "manual" });
    // On probation, the new text is in a block only when the block explores it.
    const block = (await api("GET", "/prompt?budgetTokens=2000")).body;
    expect(block.prompt.includes(candidate.insight)).toBe(block.exploredIds.includes(target));
  });
});

describe("practice releases lessons from probation", () => {
  it("a promoted run releases the probation lessons it kept, in its own version; a lesson edited since the run started stays", async () => {
    const { api, stub } = await slowEmbedderAgent();
    let job = 0;
    const live = async (text: string) => {
      const r = await stub.applyLiveLesson({
        jobId: `job_live_${job++}`,
        episodeId: "ep_live",
        candidate: { pattern: "", keywords: [], insight: text },
        decision: { operation: "ADD", reason: "new" },
        context: { shownIds: [], review: SAFE },
      });
      if (!r.ok || !r.value.experienceId) throw new Error(JSON.stringify(r));
      expect((await api("GET", `/experiences/${r.value.experienceId}`)).body).toMatchObject({ probation: true, source: "live" });
      return r.value.experienceId;
    };
    const kept = await live("Confirm the currency before converting an amount");
    const rewritten = await live("Round converted amounts to cents");
    const edited = await live("Quote the exchange rate's timestamp");
    const start = [
      { id: kept, text: "Confirm the currency before converting an amount" },
      { id: rewritten, text: "Round converted amounts to cents" },
      { id: edited, text: "Quote the exchange rate's timestamp" },
    ];
    // Edited by someone while the run was going: not the lesson the run tested.
    expect((await api("PATCH", `/experiences/${edited}`, { text: "Quote the exchange rate's source and timestamp" })).status).toBe(200);

    const final = [start[0]!, { id: rewritten, text: "Round converted amounts half-even to the currency's minor unit" }, start[2]!];
    const promoted = await stub.promotePractice({ runId: "run_trust", reason: "practice run run_trust: gate passed", start, final });
    if (!promoted.ok) throw new Error(JSON.stringify(promoted.error));
    const result = promoted.value.value as { version: number; released: string[] };
    expect(result.released.sort()).toEqual([kept, rewritten].sort());

    expect((await api("GET", `/experiences/${kept}`)).body).toMatchObject({ probation: false, text: start[0]!.text });
    expect((await api("GET", `/experiences/${rewritten}`)).body).toMatchObject({ probation: false, text: final[1]!.text });
    expect((await api("GET", `/experiences/${edited}`)).body.probation).toBe(true);
    const block = (await api("GET", "/prompt?budgetTokens=2000")).body;
    expect(block.prompt).toContain(start[0]!.text);
    expect(block.exploredIds).not.toContain(kept);
    expect(block.prompt.includes("Quote the exchange rate")).toBe(block.exploredIds.includes(edited));

    const diff = (await api("GET", `/library/versions/${result.version}/diff`)).body;
    expect(diff.reason).toContain(`released from probation: `);
    expect(diff.reason).toContain(kept);
    expect(diff.author).toBe("run:run_trust");
    expect(diff.diff.map((c: { id: string }) => c.id).sort()).toEqual([kept, rewritten].sort());
  });
});
