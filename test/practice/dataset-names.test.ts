import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { expectProblem } from "../helpers";
import { problemIn } from "../mcp-problem";
import { api, ARITHMETIC, captureQueues, practiceEnv, practiceFixture, practiceLlm } from "./harness";

afterEach(() => vi.restoreAllMocks());

const RUN = { policy: { kind: "llm" }, epochs: 1, batchSize: 2, groupSize: 2, seed: 3 };

/** A tenant with the dataset `world` (by name) beside the harness's own `practice set`. */
async function namedWorld() {
  const f = await practiceFixture(ARITHMETIC);
  const world = await api("POST", "/v1/datasets", f.t.apiKey, {
    name: "world",
    holdoutFraction: 0,
    tasks: ARITHMETIC.map((x) => ({ ...x, id: `w-${x.id}`, split: "train" })),
  });
  expect(world.status).toBe(201);
  captureQueues();
  practiceLlm();
  return { ...f, worldId: world.body.datasetId as string };
}

describe("REST takes a dataset's name wherever it takes its id", () => {
  it("a practice run, an evaluation, a comparison and a schedule by name use that dataset's id", async () => {
    const f = await namedWorld();
    const run = await f.agent("POST", "/practice-runs", { datasetId: "world", ...RUN });
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    expect((await f.agent("GET", `/practice-runs/${run.body.runId}`)).body.datasetId).toBe(f.worldId);

    const evaluation = await f.agent("POST", "/evaluations", { datasetId: "world", split: "train", policy: { kind: "llm" } });
    expect(evaluation.status, JSON.stringify(evaluation.body)).toBe(202);
    expect((await f.agent("GET", `/evaluations/${evaluation.body.evaluationId}`)).body.datasetId).toBe(f.worldId);

    const compared = await f.agent("POST", "/evaluations/compare", {
      datasetId: "practice set",
      split: "train",
      policy: { kind: "llm" },
      a: { version: 0 },
      b: { version: 0 },
    });
    expect(compared.status, JSON.stringify(compared.body)).toBe(202);

    const schedule = await f.agent("PUT", "/practice-schedules/nightly", { every: "6h", datasetId: "world", run: { ...RUN } });
    expect(schedule.status, JSON.stringify(schedule.body)).toBeLessThan(300);
    expect(schedule.body.datasetId).toBe(f.worldId);
  });

  it("the dataset routes take a name too; an id wins over a name; a shared name and an unknown one are refused", async () => {
    const f = await namedWorld();
    const shown = await api("GET", "/v1/datasets/world", f.t.apiKey);
    expect(shown.body).toMatchObject({ datasetId: f.worldId, name: "world", counts: { train: 4 } });
    const tasks = await api("GET", "/v1/datasets/world/tasks?split=train", f.t.apiKey);
    expect(tasks.body.items.map((t: { id: string }) => t.id)).toContain("w-add");
    const added = await api("POST", "/v1/datasets/world/tasks", f.t.apiKey, { tasks: [{ id: "w-extra", task: "What is 40 + 2?" }] });
    expect(added.body).toMatchObject({ inserted: 1 });

    // A dataset named like another's id: the id wins.
    const decoy = await api("POST", "/v1/datasets", f.t.apiKey, { name: f.datasetId, tasks: [{ task: "What is 1 + 1?" }] });
    expect((await api("GET", `/v1/datasets/${f.datasetId}`, f.t.apiKey)).body.name).toBe("practice set");

    const twin = await api("POST", "/v1/datasets", f.t.apiKey, { name: "world", tasks: [{ task: "What is 2 + 2?" }] });
    const shared = await f.agent("POST", "/practice-runs", { datasetId: "world", ...RUN });
    expectProblem(shared, 422, "unprocessable");
    expect(shared.body.detail).toMatch(/^2 datasets are named 'world': give the id of one \(ds_\w+, ds_\w+\)\.$/);
    expect(shared.body.detail).toContain(f.worldId);
    expect(shared.body.detail).toContain(twin.body.datasetId);
    expect(shared.body.errors).toEqual([expect.objectContaining({ path: "datasetId" })]);

    const unknown = await f.agent("POST", "/practice-runs", { datasetId: "no-such-set", ...RUN });
    expectProblem(unknown, 422, "unprocessable");
    expect(unknown.body.detail).toBe("No dataset with id or name 'no-such-set'.");
    const evalUnknown = await f.agent("POST", "/evaluations", { datasetId: "no-such-set", policy: { kind: "llm" } });
    expectProblem(evalUnknown, 422, "unprocessable");
    expect(evalUnknown.body.detail).toBe("No dataset with id or name 'no-such-set'.");
    const missing = await api("GET", "/v1/datasets/no-such-set", f.t.apiKey);
    expectProblem(missing, 404, "not-found");
    expect(missing.body.detail).toBe("No dataset with id or name 'no-such-set'.");
    // Nothing was started by the refused requests.
    expect((await f.agent("GET", "/practice-runs")).body.items).toEqual([]);

    const gone = await api("DELETE", `/v1/datasets/${encodeURIComponent(f.datasetId)}`, f.t.apiKey);
    expect(gone.body).toEqual({ datasetId: f.datasetId, deleted: true });
    expect((await api("GET", `/v1/datasets/${decoy.body.datasetId}`, f.t.apiKey)).status).toBe(200);
  });
});

describe("MCP takes a dataset's name", () => {
  it("start_practice with a dataset's name starts a run on it; an unknown name is a readable tool error", async () => {
    const f = await namedWorld();
    const transport = new StreamableHTTPClientTransport(new URL("http://praxis.test/mcp"), {
      fetch: async (url, init) => {
        const ctx = createExecutionContext();
        const res = await worker.fetch(new Request(url, init), practiceEnv, ctx);
        const body = await res.arrayBuffer();
        await waitOnExecutionContext(ctx);
        return new Response(body, res);
      },
      requestInit: { headers: { authorization: `Bearer ${f.t.apiKey}` } },
    });
    const client = new Client({ name: "dataset-names", version: "1.0.0" });
    await client.connect(transport);
    const tool = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    const started = await tool("start_practice", { agentId: f.agentId, datasetId: "world", ...RUN });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    const runId = (started.structuredContent as { runId: string }).runId;
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.datasetId).toBe(f.worldId);

    const unknown = await tool("start_practice", { agentId: f.agentId, datasetId: "no-such-set", ...RUN });
    expect(unknown.isError).toBe(true);
    expect(problemIn(unknown)).toMatchObject({
      status: 422,
      detail: "No dataset with id or name 'no-such-set'.",
      errors: [{ path: "datasetId" }],
    });
    await client.close();
  });
});
