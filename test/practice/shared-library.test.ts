import { afterEach, describe, expect, it, vi } from "vitest";
import { api, captureQueues, practiceFixture, practiceLlm, startRun } from "./harness";
import { call, expectProblem, newAgent, newTenant } from "../helpers";

afterEach(() => vi.restoreAllMocks());

const TRAIN = [
  { id: "t1", task: "What is 17 + 25?", groundTruth: "42", split: "train" },
  { id: "t2", task: "What is 6 * 7?", groundTruth: "42", split: "train" },
];
/** Enough held-out tasks for the gate's rule to pass a clear gain (it needs at least 6 paired tasks that differ). */
const HOLDOUT = Array.from({ length: 10 }, (_, i) => ({
  id: `h${i}`,
  task: `Holdout: what is ${40 + i} + 2 - ${i}?`,
  groundTruth: "42",
  split: "holdout",
}));
const SEEDED = "Write the working out before the final answer.";

/** A tenant with an agent, a dataset with held-out tasks, and a shared library holding one lesson that a second agent subscribes to. */
async function fixture() {
  const f = await practiceFixture([]);
  const ds = await api("POST", "/v1/datasets", f.t.apiKey, { name: "with holdout", tasks: [...TRAIN, ...HOLDOUT] });
  expect(ds.status, JSON.stringify(ds.body)).toBe(201);
  const created = await api("POST", "/v1/libraries", f.t.apiKey, { name: "arithmetic" });
  const libraryId = created.body.libraryId as string;
  const lib = (method: string, path: string, body?: unknown) => api(method, `/v1/libraries/${libraryId}${path}`, f.t.apiKey, body);
  // Written as a deployment without an LLM takes it (see seedLessons): nothing calls out before the test scripts its model.
  const seeded = await call("POST", `/v1/libraries/${libraryId}/experiences`, { key: f.t.apiKey, body: { text: SEEDED } });
  expect(seeded.status, JSON.stringify(seeded.body)).toBe(201);
  const subscriber = await newAgent(f.t.apiKey);
  expect((await api("PUT", `/v1/agents/${subscriber}/subscriptions/${libraryId}`, f.t.apiKey, {})).status).toBe(200);
  return { ...f, datasetId: ds.body.datasetId as string, libraryId, lib, subscriber };
}

describe("practice on a shared library", () => {
  it("starts from the library's lessons and promotes into the library through the holdout gate; subscribers draw on the result, the agent's own library is untouched", async () => {
    const f = await fixture();
    const q = captureQueues();
    const prompts: string[] = [];
    const helpful = (task: string, seed: number, prompt: string) => {
      prompts.push(prompt);
      return task.startsWith("Holdout") ? prompt.includes("Re-check") || seed % 2 === 0 : seed % 3 !== 0;
    };
    practiceLlm({ policy: helpful });
    const runId = await startRun(f, {
      epochs: 1,
      batchSize: 2,
      groupSize: 4,
      seed: 9,
      evaluate: { samples: 2, every: "end" },
      libraryId: f.libraryId,
    });
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;

    expect(run.status).toBe("completed");
    expect(run.config).toMatchObject({ libraryId: f.libraryId, promote: "gate" });
    expect(prompts.some((p) => p.includes(SEEDED))).toBe(true);
    expect(run.promotion).toMatchObject({ promoted: true });
    expect(run.promotion.reason).toMatch(/gate passed: holdout accuracy 100\.0%/);
    const versions = await f.lib("GET", "/versions");
    expect(versions.body.items[0].reason).toContain(`practice run ${runId}`);
    const active = ((await f.lib("GET", "/experiences?limit=100")).body.items as { text: string }[]).map((e) => e.text);
    expect(active).toHaveLength(run.librarySize);
    expect(active).toContain(SEEDED);
    expect((await f.agent("GET", "/experiences?status=all")).body.items).toEqual([]);

    const learned = active.find((t) => t !== SEEDED)!;
    const r = await api("POST", `/v1/agents/${f.subscriber}/retrieve`, f.t.apiKey, { query: learned, k2: 10 });
    expect(r.body.items.filter((i: { libraryId?: string }) => i.libraryId === f.libraryId).map((i: { text: string }) => i.text)).toContain(
      learned,
    );
  });

  it("an agent's own run draws on its subscriptions in rollouts and held-out evaluations, and promotes only into its own library", async () => {
    const f = await fixture();
    expect((await f.agent("PUT", `/subscriptions/${f.libraryId}`, {})).status).toBe(200);
    const q = captureQueues();
    const prompts: string[] = [];
    practiceLlm({
      policy: (_task: string, _seed: number, prompt: string) => {
        prompts.push(prompt);
        return true;
      },
    });
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 2, seed: 3, evaluate: { samples: 1, every: "end" } });
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    const rollouts = prompts.filter((p) => !p.includes("Holdout"));
    const heldOut = prompts.filter((p) => p.includes("Holdout"));
    expect(rollouts.length).toBeGreaterThan(0);
    expect(heldOut.length).toBeGreaterThan(0);
    for (const p of rollouts) expect(p).toContain(`[S0]. ${SEEDED}`);
    for (const p of heldOut) expect(p).toContain(SEEDED);
    const own = ((await f.agent("GET", "/experiences?status=all&limit=100")).body.items as { text: string }[]).map((e) => e.text);
    expect(own).not.toContain(SEEDED);
    expect((await f.lib("GET", "/versions")).body.items).toHaveLength(1);
  });

  it("refuses another tenant's library (404) and a key limited to other libraries (403), starting no run", async () => {
    const f = await fixture();
    const other = await newTenant();
    const theirs = (await api("POST", "/v1/libraries", other.apiKey, { name: "theirs" })).body.libraryId as string;
    const body = { datasetId: f.datasetId, policy: { kind: "llm" } };
    expectProblem(await f.agent("POST", "/practice-runs", { ...body, libraryId: theirs }), 404, "not-found");
    const elsewhere = (await api("POST", "/v1/libraries", f.t.apiKey, { name: "elsewhere" })).body.libraryId as string;
    const limited = await api("POST", "/v1/keys", f.t.apiKey, { name: "elsewhere only", scope: "write", libraryIds: [elsewhere] });
    const refused = await api("POST", `/v1/agents/${f.agentId}/practice-runs`, limited.body.apiKey, { ...body, libraryId: f.libraryId });
    expectProblem(refused, 403, "forbidden");
    const schedule = await api("PUT", `/v1/agents/${f.agentId}/practice-schedules/nightly`, limited.body.apiKey, {
      every: "1d",
      datasetId: f.datasetId,
      run: { policy: { kind: "llm" }, libraryId: f.libraryId },
    });
    expectProblem(schedule, 403, "forbidden");
    expect((await f.agent("GET", "/practice-runs")).body.items).toEqual([]);
  });
});
