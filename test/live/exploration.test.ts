import { afterEach, describe, expect, it, vi } from "vitest";
import { agentFixture } from "../memory/setup";
import { call, newKey } from "../helpers";
import { fakeLlm } from "../fake-llm";
import { PROBATION_RULE } from "../../src/core/probation";
import { deliver, LESSON, liveLesson, promptEpisode, SAFE } from "./fixture";

afterEach(() => vi.restoreAllMocks());

const TASK = "Call the slow external rates API, which keeps timing out";
const TIMEOUT_LESSON = "Give slow external HTTP APIs a generous read timeout and one retry instead of a short timeout";
const lesson = async (f: Awaited<ReturnType<typeof agentFixture>>, id: string) => (await f.api("GET", `/experiences/${id}`)).body;

describe("a lesson on probation is explored in prompts", () => {
  it("reaches some but a bounded share of the prompts it matches, at most perPrompt per block, and none it does not match", async () => {
    const f = await agentFixture();
    const trusted = (await f.api("POST", "/experiences", { text: "Log the request id of every failed call" })).body.id as string;
    // Three lessons the task matches about equally well (each shares a rarer word of it).
    const onTrial = [
      await liveLesson(f, "When the slow rates API keeps failing, call it with a generous timeout and one retry", ["timeout", "retry"]),
      await liveLesson(f, "Retry the rates API once after a short backoff when its timing is slow", ["timeout", "backoff"]),
      await liveLesson(f, "Call the external rates API with a longer client timeout", ["timeout", "client"]),
    ];
    const seen = new Map(onTrial.map((id) => [id, 0]));
    const prompts = 40;
    for (let n = 0; n < prompts; n++) {
      const block = (await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}`)).body;
      expect(block.experienceIds).toContain(trusted);
      expect(block.exploredIds.length).toBeLessThanOrEqual(PROBATION_RULE.perPrompt);
      for (const id of block.exploredIds) {
        expect(onTrial).toContain(id);
        expect(block.experienceIds).toContain(id);
        seen.set(id, seen.get(id)! + 1);
      }
      // A lesson on probation is in a block only when the block explores it.
      for (const id of onTrial) expect(block.experienceIds.includes(id)).toBe(block.exploredIds.includes(id));
    }
    for (const [, n] of seen) {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(prompts);
    }
    // The query matches none of them: no block explores them.
    for (let n = 0; n < 10; n++) {
      const other = (await f.api("GET", `/prompt?query=${encodeURIComponent("Rotate the database encryption keys quarterly")}`)).body;
      expect(other.exploredIds).toEqual([]);
    }
  });

  it("makes one choice for every prompt of an episode, and records the episode's retrievals with it", async () => {
    const f = await agentFixture();
    const id = await liveLesson(f, TIMEOUT_LESSON, ["timeout", "retry"]);
    const arms = new Set<boolean>();
    for (let n = 0; n < 12; n++) {
      const episodeId = (await f.api("POST", "/episodes", { task: TASK })).body.episodeId;
      const first = (await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}&episodeId=${episodeId}`)).body;
      const again = (await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}&episodeId=${episodeId}`)).body;
      expect(again.exploredIds).toEqual(first.exploredIds);
      arms.add(first.exploredIds.includes(id));
      const retrievals = (await f.api("GET", `/episodes/${episodeId}/retrievals`)).body.items;
      expect(retrievals).toHaveLength(2);
      expect(retrievals[0].items.some((i: { id: string }) => i.id === id)).toBe(first.exploredIds.includes(id));
    }
    expect([...arms].sort()).toEqual([false, true]);
  });
});

describe("the evidence decides", () => {
  it("a lesson whose episodes succeed at the first try when shown, and not otherwise, graduates and joins every prompt", async () => {
    const f = await agentFixture();
    const id = await liveLesson(f, TIMEOUT_LESSON, ["timeout", "retry"]);
    let episodes = 0;
    while ((await lesson(f, id)).probation) {
      await promptEpisode(f, TASK, id, (shown) => shown);
      expect(++episodes).toBeLessThan(60);
    }
    const e = await lesson(f, id);
    expect(e.evidence).toMatchObject({ verdict: "graduated", shown: { successes: e.exposures }, notShown: { successes: 0 } });
    expect(e.exposures).toBeGreaterThanOrEqual(PROBATION_RULE.minEach);
    expect(e.evidence.notShown.prompts).toBeGreaterThanOrEqual(PROBATION_RULE.minEach);
    expect(e.exposures + e.evidence.notShown.prompts).toBe(episodes);
    expect(e.evidence.difference.low).toBeGreaterThan(0);
    expect(e.evidence.reason).toMatch(/^shown in \d+ prompts/);
    for (let n = 0; n < 3; n++) {
      const block = (await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}`)).body;
      expect(block.experienceIds).toContain(id);
      expect(block.exploredIds).toEqual([]);
    }
  });

  it("a harmful lesson is retired within the bound, archived as a library version with the evidence as its reason", async () => {
    const f = await agentFixture();
    const id = await liveLesson(f, "Give slow external HTTP APIs a one second timeout and never retry", ["timeout", "retry"]);
    const before = (await f.api("GET", "/library/versions")).body.items.length;
    let episodes = 0;
    while ((await lesson(f, id)).status === "active") {
      await promptEpisode(f, TASK, id, (shown) => !shown);
      expect(++episodes).toBeLessThan(60);
    }
    const e = await lesson(f, id);
    expect(e).toMatchObject({ status: "archived", evidence: { verdict: "retired", shown: { successes: 0 } } });
    expect(e.exposures).toBeLessThanOrEqual(PROBATION_RULE.maxExposures);
    expect(e.evidence.difference.high).toBeLessThan(0);
    const versions = (await f.api("GET", "/library/versions")).body.items;
    expect(versions.length).toBe(before + 1);
    const diff = (await f.api("GET", `/library/versions/${versions[0].version}/diff`)).body;
    expect(diff.author).toBe("system:probation");
    expect(diff.reason).toContain(e.evidence.reason);
    expect(diff.diff).toEqual([expect.objectContaining({ id, op: "archive" })]);
    for (let n = 0; n < 5; n++)
      expect((await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}`)).body.experienceIds).not.toContain(id);
  });

  it("a lesson that changes nothing stops being explored after maxExposures, still on probation and out of prompts", async () => {
    const f = await agentFixture();
    const id = await liveLesson(f, TIMEOUT_LESSON, ["timeout", "retry"]);
    const arm = { true: 0, false: 0 };
    // Each arm alternates success and failure, whichever the draw gives it: no difference to find.
    while ((await lesson(f, id)).evidence.verdict === "exploring") {
      await promptEpisode(f, TASK, id, (shown) => arm[`${shown}`]++ % 2 === 0);
      expect(arm.true + arm.false).toBeLessThan(4 * PROBATION_RULE.maxExposures);
    }
    const e = await lesson(f, id);
    expect(e).toMatchObject({ status: "active", probation: true, exposures: PROBATION_RULE.maxExposures });
    expect(e.evidence.verdict).toBe("inconclusive");
    for (let n = 0; n < 5; n++)
      expect((await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}`)).body.experienceIds).not.toContain(id);
    expect(
      (await f.api("POST", "/retrieve", { query: TASK, kinds: ["experience"] })).body.items.map((i: { id: string }) => i.id),
    ).toContain(id);
  });

  it("one citation in a success is no evidence: the lesson stays on probation", async () => {
    const f = await agentFixture();
    const id = await liveLesson(f, TIMEOUT_LESSON, ["timeout", "retry"]);
    const episodeId = (await f.api("POST", "/episodes", { task: TASK })).body.episodeId;
    await f.api("POST", "/retrieve", { query: TASK, kinds: ["experience"], episodeId });
    await f.api("POST", `/episodes/${episodeId}/end`, { outcome: "success", citedIds: [id] });
    expect(await lesson(f, id)).toMatchObject({ probation: true, exposures: 0, evidence: { verdict: "exploring" } });
  });
});

describe("only write keys' prompts explore, and their outcomes count once per retrieval", () => {
  it("a read key's prompts carry no lesson on probation and their rewards are no evidence; a write key's token reward counts once", async () => {
    const f = await agentFixture();
    const id = await liveLesson(f, TIMEOUT_LESSON, ["timeout", "retry"]);
    const read = await newKey(f.t.apiKey, "read");
    const readPrompt = (path: string) => call("GET", `/v1/agents/${f.agentId}${path}`, { key: read.apiKey });
    for (const consistency of ["bounded", "strong"]) {
      for (let n = 0; n < 8; n++) {
        const block = (await readPrompt(`/prompt?query=${encodeURIComponent(TASK)}&consistency=${consistency}`)).body;
        expect(block.exploredIds).toEqual([]);
        expect(block.experienceIds).not.toContain(id);
        const rewarded = await f.api("POST", "/rewards", { retrievalId: block.retrievalId, outcome: "success" });
        expect(rewarded.status).toBe(200);
      }
    }
    const untouched = await lesson(f, id);
    expect(untouched.evidence).toMatchObject({ shown: { prompts: 0 }, notShown: { prompts: 0 } });

    const block = (await f.api("GET", `/prompt?query=${encodeURIComponent(TASK)}`)).body;
    const reward = { retrievalId: block.retrievalId, outcome: "success" };
    expect((await f.api("POST", "/rewards", reward)).status).toBe(200);
    expect((await f.api("POST", "/rewards", reward)).body.replayed).toBe(true);
    expect((await f.api("POST", "/rewards", { ...reward, outcome: "failure" })).status).toBe(409);
    const counted = (await lesson(f, id)).evidence;
    const arm = block.exploredIds.includes(id) ? counted.shown : counted.notShown;
    expect(arm).toEqual({ prompts: 1, successes: 1 });
    expect(counted.shown.prompts + counted.notShown.prompts).toBe(1);
  });
});

describe("live learning and lessons on trial", () => {
  /** LESSON's situation with the opposite advice: near enough to be taken for the same lesson. */
  const OPPOSITE = "Use a short read timeout and no retry when calling slow external APIs instead of a generous timeout.";
  const RATES_TASK = "Fetch today's exchange rates from the slow external rates API";

  /** An episode whose prompt did (or did not) show `lessonId`, whose first try failed and second worked; its extraction proposes `insight`. */
  async function extractAfter(f: Awaited<ReturnType<typeof agentFixture>>, lessonId: string, shown: boolean, insight = LESSON.insight) {
    for (let n = 0; n < 40; n++) {
      const episodeId = (await f.api("POST", "/episodes", { task: RATES_TASK })).body.episodeId as string;
      const block = (await f.api("GET", `/prompt?query=${encodeURIComponent(RATES_TASK)}&episodeId=${episodeId}`)).body;
      if (block.exploredIds.includes(lessonId) !== shown) {
        await f.api("POST", `/episodes/${episodeId}/end`, { outcome: "abandoned" });
        continue;
      }
      await f.api("POST", `/episodes/${episodeId}/attempts`, { description: "short timeout", ok: false, error: "ReadTimeout" });
      await f.api("POST", `/episodes/${episodeId}/attempts`, { description: "generous timeout and one retry", ok: true });
      const end = await f.api("POST", `/episodes/${episodeId}/end`, { outcome: "success" });
      fakeLlm({ ...LESSON, insight }, { operation: "ADD", text: insight, reason: "new" }, SAFE);
      await deliver({ tenantId: f.t.tenantId, agentId: f.agentId, episodeId, jobId: end.body.result.jobId });
      vi.restoreAllMocks();
      return (await f.api("GET", "/jobs")).body.items[0];
    }
    throw new Error("no episode drew the arm asked for");
  }

  it("a candidate near a lesson on probation is its duplicate, unless that lesson was shown to the failed episode: then it joins as a rival", async () => {
    const f = await agentFixture();
    const opposite = await liveLesson(f, OPPOSITE, LESSON.keywords, LESSON.pattern);
    const unseen = await extractAfter(f, opposite, false);
    expect(unseen.result).toMatchObject({ applied: "none" });
    expect(unseen.reason).toMatch(new RegExp(`^duplicate of ${opposite}`));
    const seen = await extractAfter(f, opposite, true);
    expect(seen.result).toMatchObject({ applied: "added" });
    expect(seen.reason).toContain(`a rival of ${opposite}`);
    expect((await lesson(f, seen.result.experienceId)).text).toBe(LESSON.insight);
    expect((await lesson(f, opposite)).status).toBe("active");
  });

  it("a lesson its trial retired is not learned again", async () => {
    const f = await agentFixture();
    const opposite = await liveLesson(f, OPPOSITE, LESSON.keywords, LESSON.pattern);
    while ((await lesson(f, opposite)).status === "active") await promptEpisode(f, RATES_TASK, opposite, (shown) => !shown);
    expect((await lesson(f, opposite)).evidence.verdict).toBe("retired");
    const again = await extractAfter(f, opposite, false, OPPOSITE);
    expect(again.result).toMatchObject({ applied: "none" });
    expect(again.reason).toBe(`the same text as ${opposite}, which its trial in prompts retired`);
    const live = (await f.api("GET", "/experiences?status=all")).body.items.filter((e: { text: string }) => e.text === OPPOSITE);
    expect(live).toHaveLength(1);
  });
});
