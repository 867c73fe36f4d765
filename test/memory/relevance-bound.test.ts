import { describe, expect, it } from "vitest";
import { call, newKey } from "../helpers";
import { agentFixture } from "./setup";

type Fixture = Awaited<ReturnType<typeof agentFixture>>;

/**
 * Issue 39: one reward citing an unrelated lesson put it first for a query it does not answer, and
 * 240 rewards taught the re-ranker to prefer dissimilar items. Learned signals (Q, usage memory,
 * learned phrases, the re-ranker) may reorder what is relevant; they never lift an unrelated lesson
 * above the lessons that answer the query.
 */
const ANSWERS = [
  "When the payments API answers 429 too many requests, wait for the Retry-After header before retrying",
  "Back off exponentially with jitter when the payments API rate limits with 429",
  "Batch payment requests so the payments API stays under its rate limit and stops returning 429",
];
const UNRELATED = "Greet the customer in French before handling any of their requests";
const FILLERS = [
  "Ask for the order number before looking up a refund",
  "Cache expensive database queries for repeated dashboard loads",
  "Read the whole error message and stack trace before changing code",
  "Confirm the shipping address before sending a replacement parcel",
  "Log the request id with every error so support can trace it",
  "Use the staging environment to reproduce a bug before fixing it in production",
  "Close a support ticket only after the customer confirms the fix",
  "Write a failing test that reproduces the bug before changing code",
  "Keep customer replies short and end with a clear next step",
  "Check the status page before escalating an outage",
  "Rotate API keys that were pasted into a public channel",
  "Summarise long customer threads before handing them to another agent",
];
const QUERY = "the payments API returned 429 too many requests, what should I do";

async function seed(api: Fixture["api"]) {
  const add = async (text: string) => {
    const r = await api("POST", "/experiences", { text });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as string;
  };
  const answers: string[] = [];
  for (const t of ANSWERS) answers.push(await add(t));
  for (const t of FILLERS) await add(t);
  return { answers, unrelated: await add(UNRELATED) };
}

const order = (r: { body: { items: { id: string }[] } }) => r.body.items.map((i) => i.id);

/** The unrelated lesson, where shown at all, comes after every answer. */
function expectAfterAnswers(ids: string[], answers: string[], unrelated: string) {
  const u = ids.indexOf(unrelated);
  if (u < 0) return;
  const at = answers.map((a) => ids.indexOf(a));
  expect(
    at.every((i) => i >= 0 && i < u),
    `unrelated at ${u}, answers at ${at}`,
  ).toBe(true);
}

/** Where the unrelated lesson ranks against the answers, in wide and default retrievals and in a ranked prompt block. */
async function expectAnswersFirst(f: Fixture, answers: string[], unrelated: string) {
  const wide = await f.api("POST", "/retrieve", { query: QUERY, k2: 30 });
  expect(wide.status, JSON.stringify(wide.body)).toBe(200);
  expect(order(wide)).toContain(unrelated);
  expectAfterAnswers(order(wide), answers, unrelated);
  expectAfterAnswers(order(await f.api("POST", "/retrieve", { query: QUERY })), answers, unrelated);
  const block = await f.api("GET", `/prompt?query=${encodeURIComponent(QUERY)}&budgetTokens=60&maxCases=0`);
  expect(block.body.mode).toBe("ranked");
  expectAfterAnswers(block.body.experienceIds, answers, unrelated);
}

describe.each(["hash", "semantic"])("one reward cannot invert relevance (%s)", (provider) => {
  it("a single rewarded retrieval citing the unrelated lesson leaves the answers above it", async () => {
    const f = await agentFixture();
    expect((await f.api("PATCH", "/config", { embedder: { provider } })).status).toBe(200);
    const { answers, unrelated } = await seed(f.api);
    const wide = await f.api("POST", "/retrieve", { query: QUERY, k2: 30 });
    expect(order(wide)).toContain(unrelated);
    const r = await f.api("POST", "/rewards", { retrievalId: wide.body.retrievalId, outcome: "success", citedIds: [unrelated] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.updated.map((u: { id: string }) => u.id)).toEqual([unrelated]);
    await expectAnswersFirst(f, answers, unrelated);
  });

  it("25 rewards from five keys and episodes citing it leave the answers above it, and the re-ranker never weighs similarity negatively", async () => {
    const f = await agentFixture();
    expect((await f.api("PATCH", "/config", { embedder: { provider } })).status).toBe(200);
    const { answers, unrelated } = await seed(f.api);
    const keys = [f.t.apiKey, ...(await Promise.all([1, 2, 3, 4].map(async () => (await newKey(f.t.apiKey, "write")).apiKey)))];
    for (let i = 0; i < 25; i++) {
      const key = keys[i % keys.length]!;
      const as = (method: string, path: string, body?: unknown) => call(method, `/v1/agents/${f.agentId}${path}`, { key, body });
      if (i % 2) {
        const ep = (await as("POST", "/episodes", { task: `${QUERY} (${i})` })).body.episodeId;
        expect((await as("POST", "/retrieve", { query: QUERY, k2: 30, episodeId: ep })).status).toBe(200);
        const end = await as("POST", `/episodes/${ep}/end`, { outcome: "success", citedIds: [unrelated] });
        expect(end.status, JSON.stringify(end.body)).toBe(200);
      } else {
        const wide = await as("POST", "/retrieve", { query: QUERY, k2: 30 });
        const r = await as("POST", "/rewards", { retrievalId: wide.body.retrievalId, outcome: "success", citedIds: [unrelated] });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      }
    }
    expect((await f.api("GET", `/experiences/${unrelated}`)).body.q).toBeGreaterThan(0.8);
    await expectAnswersFirst(f, answers, unrelated);
    const weights = (await f.api("GET", "/retriever")).body.reranker.weights;
    for (const name of ["vectorSim", "textBm25", "whenSim", "whenBm25"]) expect(weights[name], name).toBeGreaterThanOrEqual(0);
  });
});
