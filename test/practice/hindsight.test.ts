import { afterEach, describe, expect, it, vi } from "vitest";
import { api, captureQueues, practiceFixture, practiceLlm, proposalsIn, stageOf, startRun } from "./harness";
import { chatCompletion, type SentRequest } from "../fake-llm";

afterEach(() => vi.restoreAllMocks());

/** "mixed" tasks are right or wrong by seed; "never" tasks are never solved without help. */
const TASKS = [
  { id: "mixed", task: "What is 17 + 25?", groundTruth: "42" },
  { id: "never-a", task: "Convert 0.042 km to metres.", groundTruth: "42" },
  { id: "never-b", task: "How many metres are 0.042 km?", groundTruth: "42" },
  { id: "never-c", task: "Express 0.042 km in metres.", groundTruth: "42" },
  { id: "never-d", task: "Give 0.042 km as a number of metres.", groundTruth: "42" },
];

const UNIT_LESSON = "When converting kilometres to metres, multiply by one thousand and keep the unit in the answer.";

/**
 * A model that answers like one: conversions are wrong (41) unless the library holds a lesson
 * about converting; the hindsight learner can name the mistake only because the prompt shows it a
 * reference answer, and says nothing when it sees none.
 */
function world(opts: { hindsight?: (req: SentRequest) => unknown } = {}) {
  const policy = (task: string, seed: number, prompt: string) =>
    task.includes(" km") ? /multiply by one thousand/.test(prompt) : seed % 3 !== 0;
  const hindsight =
    opts.hindsight ??
    ((req: SentRequest) => {
      const reference = /DATA \(reference answer\)[^\n]*\n(`{3,})text\n([\s\S]*?)\n\1/.exec(req.prompt)?.[2];
      if (!reference)
        return { diagnosis: "No reference to compare with.", operation: { op: "none", target: "", text: "", reason: "no evidence" } };
      return {
        diagnosis: `The attempts answered 41 without converting properly; the reference is ${reference}.`,
        operation: { op: "add", target: "", text: UNIT_LESSON, reason: "every attempt forgot the factor" },
      };
    });
  return practiceLlm({ policy, hindsight });
}

const hindsightCalls = (sent: SentRequest[]) => sent.filter((s) => stageOf(s) === "hindsight");

async function stepDetails(f: Awaited<ReturnType<typeof practiceFixture>>, runId: string) {
  const steps = (await f.agent("GET", `/practice-runs/${runId}/steps`)).body.items as { n: number }[];
  return Promise.all(steps.map(async (s) => (await f.agent("GET", `/practice-runs/${runId}/steps/${s.n}`)).body));
}

describe("hindsight lessons from groups whose attempts all failed", () => {
  it("an all-wrong group with a reference gets one hindsight call whose lesson enters the batch update marked hindsight", async () => {
    const f = await practiceFixture(TASKS.slice(0, 2));
    const q = captureQueues();
    const llm = world();
    // Two calls a step may be made, so the mixed task's groups cannot crowd the conversion out.
    const runId = await startRun(f, { epochs: 2, batchSize: 2, groupSize: 3, seed: 7, promote: "always", hindsightPerStep: 2 });
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run.status, JSON.stringify(run)).toBe("completed");
    expect(run.config).toMatchObject({ hindsight: true });

    // Epoch 0: the conversion group is all wrong and gets a hindsight call; epoch 1 solves it.
    const calls = hindsightCalls(llm.sent).filter((s) => s.prompt.includes(" km"));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toMatch(/DATA \(reference answer\)[^\n]*\n`{3,}text\n42\n/);
    expect(calls[0]!.prompt).toContain("Convert 0.042 km to metres.");
    expect(calls[0]!.prompt).toContain("Final answer: 41");
    const batch = llm.sent.find((s) => stageOf(s) === "batch" && s.prompt.includes("### Task never-a (hindsight"));
    expect(batch, "the hindsight proposal reaches the batch update").toBeDefined();
    expect(proposalsIn(batch!.prompt).map((p) => p.text)).toContain(UNIT_LESSON);

    const [first, second] = await stepDetails(f, runId);
    const group = first.groups.find((g: { taskId: string }) => g.taskId === "never-a");
    expect(group).toMatchObject({ kept: false, reason: "all wrong" });
    expect(first.proposals.find((p: { taskId: string }) => p.taskId === "never-a")).toMatchObject({
      provenance: "hindsight",
      operations: [{ op: "add", text: UNIT_LESSON }],
    });
    expect(first.plan.operations.find((o: { text: string }) => o.text === UNIT_LESSON)).toMatchObject({
      op: "add",
      provenance: "hindsight",
    });
    expect(first.diff.find((c: { after: string }) => c.after === UNIT_LESSON)).toMatchObject({ op: "add", provenance: "hindsight" });
    expect(first.hindsight).toMatchObject({ refusedLeaks: 0, overCap: [] });
    expect(first.hindsight.applied).toBeGreaterThanOrEqual(1);
    expect(second.groups.find((g: { taskId: string }) => g.taskId === "never-a")).toMatchObject({ reason: "all correct" });

    // The run's library history and the promoted lesson carry the provenance.
    const lib = (await f.agent("GET", `/practice-runs/${runId}/library`)).body;
    const learned = lib.items.find((e: { text: string }) => e.text === UNIT_LESSON);
    expect(learned.lineage.at(-1)).toMatchObject({ op: "add", epoch: 0, step: 0, provenance: "hindsight" });
    const promoted = ((await f.agent("GET", "/experiences?limit=100")).body.items as { text: string; provenance: unknown }[]).find(
      (e) => e.text === UNIT_LESSON,
    );
    expect(promoted?.provenance).toMatchObject({ runId, origin: "hindsight" });
    const analytics = (await f.agent("GET", "/analytics")).body;
    expect(analytics.successRate.byOrigin.find((o: { origin: string }) => o.origin === "hindsight")).toMatchObject({ items: 1 });
    const versions = (await f.agent("GET", "/library/versions")).body.items;
    expect(versions[0].reason).toMatch(/1 of its lessons learned in hindsight/);

    // The hindsight call is in the run's ledger and the tenant's usage ledger like every other call.
    expect(run.usage.calls).toBe(llm.sent.length);
    const usage = (await api("GET", "/v1/usage?groupBy=purpose", f.t.apiKey)).body.groups as { key: string; calls: number }[];
    expect(usage.find((g) => g.key === "practice-hindsight")?.calls).toBe(hindsightCalls(llm.sent).length);
    expect(run.hindsight).toMatchObject({ calls: hindsightCalls(llm.sent).length, refusedLeaks: 0 });
    expect(run.hindsight.applied).toBeGreaterThanOrEqual(1);
  });

  it("makes no hindsight call without a reference answer, nor with hindsight: false", async () => {
    const f = await practiceFixture(TASKS.slice(0, 2));
    const q = captureQueues();
    const llm = world();
    const hidden = await startRun(f, {
      epochs: 1,
      batchSize: 2,
      groupSize: 3,
      seed: 7,
      useGroundTruth: false,
      verifier: { kind: "exact" },
    });
    await q.pump();
    expect((await f.agent("GET", `/practice-runs/${hidden}`)).body.status).toBe("completed");
    const [step] = await stepDetails(f, hidden);
    expect(step.groups.find((g: { taskId: string }) => g.taskId === "never-a")).toMatchObject({ kept: false, reason: "all wrong" });
    expect(step.hindsight).toMatchObject({ calls: 0, proposals: 0 });

    const off = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7, hindsight: false });
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${off}`)).body;
    expect(run.status).toBe("completed");
    expect(run.config.hindsight).toBe(false);
    expect(hindsightCalls(llm.sent)).toHaveLength(0);
    expect(llm.sent.every((s) => !s.prompt.includes("(hindsight"))).toBe(true);

    const bad = await f.agent("POST", "/practice-runs", {
      datasetId: f.datasetId,
      policy: { kind: "llm" },
      hindsight: "sometimes",
      hindsightPerStep: 0,
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    expect(JSON.stringify(bad.body)).toContain("hindsight");
    expect(JSON.stringify(bad.body)).toContain("hindsightPerStep");
  });

  it("learns from a judge's reasons when the task has no reference answer", async () => {
    const f = await practiceFixture([{ id: "never-a", task: "Convert 0.042 km to metres." }] as {
      id: string;
      task: string;
      groundTruth: string;
    }[]);
    const q = captureQueues();
    const reason = "Wrong: a kilometre is a thousand metres, and the attempt copied the kilometre figure.";
    const llm = world({
      hindsight: (req) =>
        req.prompt.includes(reason)
          ? {
              diagnosis: "The judge says the factor was missed.",
              operation: { op: "add", target: "", text: UNIT_LESSON, reason: "the judge's reasons" },
            }
          : { diagnosis: "nothing to go on", operation: { op: "none", target: "", text: "", reason: "" } },
    });
    const original = llm.spy.getMockImplementation()!;
    llm.spy.mockImplementation(async (input, init) => {
      const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
      if (body?.response_format?.json_schema?.name !== "practice_judgement") return original(input, init);
      return chatCompletion(JSON.stringify({ verdict: "INCORRECT", score: 0, reasoning: reason }));
    });
    const runId = await startRun(f, { epochs: 1, batchSize: 1, groupSize: 3, seed: 7, verifier: { kind: "llm-judge" }, promote: "never" });
    await q.pump();
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("completed");
    const calls = hindsightCalls(llm.sent);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toContain("No reference answer is available");
    expect(calls[0]!.prompt).toContain(`verifier's reason for attempt 0`);
    const [step] = await stepDetails(f, runId);
    expect(step.hindsight).toMatchObject({ calls: 1, proposals: 1, applied: 1 });
    expect(step.diff).toEqual([expect.objectContaining({ op: "add", after: UNIT_LESSON, provenance: "hindsight" })]);
  });

  it("holds the per-step cap: one call per four tasks by default, hindsightPerStep when set", async () => {
    const f = await practiceFixture(TASKS.slice(1));
    const q = captureQueues();
    const llm = world();
    const byDefault = await startRun(f, { epochs: 1, batchSize: 4, groupSize: 2, seed: 3, promote: "never" });
    // Every message twice: a redelivered hindsight unit makes no second call.
    await q.pump({ duplicate: true });
    const [step] = await stepDetails(f, byDefault);
    expect(step.groups.every((g: { reason: string }) => g.reason === "all wrong")).toBe(true);
    expect(hindsightCalls(llm.sent)).toHaveLength(1);
    expect(step.hindsight).toMatchObject({ cap: 1, calls: 1 });
    expect(step.hindsight.overCap).toHaveLength(3);

    const capped = await startRun(f, { epochs: 1, batchSize: 4, groupSize: 2, seed: 3, promote: "never", hindsightPerStep: 2 });
    await q.pump();
    const [again] = await stepDetails(f, capped);
    expect(hindsightCalls(llm.sent)).toHaveLength(3);
    expect(again.hindsight).toMatchObject({ cap: 2, calls: 2 });
    expect(again.hindsight.overCap).toHaveLength(2);
    const run = (await f.agent("GET", `/practice-runs/${capped}`)).body;
    expect(run.config.hindsightPerStep).toBe(2);
  });

  it("refuses a hindsight lesson that states its task's reference answer, and counts it", async () => {
    const f = await practiceFixture(TASKS.slice(0, 2));
    const q = captureQueues();
    const llm = world({
      hindsight: () => ({
        diagnosis: "The answer was 42.",
        operation: {
          op: "add",
          target: "",
          text: "For this conversion the answer is 42 metres, so write that.",
          reason: "copied the reference",
        },
      }),
    });
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7, promote: "always", hindsightPerStep: 2 });
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run.status).toBe("completed");
    const [step] = await stepDetails(f, runId);
    const calls = hindsightCalls(llm.sent).length;
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(step.hindsight).toMatchObject({ calls, proposals: 0, refusedLeaks: calls, applied: 0 });
    expect(step.dropped.find((d: { source: string }) => d.source === "hindsight never-a").reason).toMatch(/reference answer/);
    expect(llm.sent.some((s) => stageOf(s) === "batch" && s.prompt.includes("is 42 metres"))).toBe(false);
    expect(run.hindsight.refusedLeaks).toBe(calls);
  });

  it("refuses a batch-plan lesson traced to hindsight that states the reference answer the diagnosis showed it", async () => {
    const f = await practiceFixture(TASKS.slice(0, 2));
    const q = captureQueues();
    // The hindsight proposal is general, but its diagnosis names the reference; the batch learner
    // folds that into the lesson it writes, as a real model may.
    const leaked = `${UNIT_LESSON} For 0.042 km that is 42 metres.`;
    const llm = practiceLlm({
      policy: (task, seed) => !task.includes(" km") && seed % 3 !== 0,
      hindsight: () => ({
        diagnosis: "The attempts answered 41; the reference is 42 metres.",
        operation: { op: "add", target: "", text: UNIT_LESSON, reason: "every attempt forgot the factor" },
      }),
      batch: (req) => ({
        reasoning: "Kept each lesson, with the example the diagnosis gave.",
        operations: [...new Set(proposalsIn(req.prompt).map((p) => p.text))].map((text) => ({
          op: "add",
          targets: [],
          text: text === UNIT_LESSON ? leaked : text,
          reason: "new",
        })),
      }),
    });
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 3, seed: 7, promote: "always", hindsightPerStep: 2 });
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run.status).toBe("completed");
    expect(llm.sent.some((s) => stageOf(s) === "batch" && s.prompt.includes("### Task never-a (hindsight"))).toBe(true);
    const [step] = await stepDetails(f, runId);
    expect(step.diff.map((c: { after: string | null }) => c.after)).not.toContain(leaked);
    expect(
      step.dropped.some((d: { op: { text?: string }; reason: string }) => d.op?.text === leaked && /reference answer/.test(d.reason)),
    ).toBe(true);
    expect(step.hindsight.refusedLeaks).toBeGreaterThanOrEqual(1);
    const lib = (await f.agent("GET", `/practice-runs/${runId}/library`)).body.items as { text: string }[];
    expect(lib.map((e) => e.text)).not.toContain(leaked);
    const stored = (await f.agent("GET", "/experiences?limit=100")).body.items as { text: string }[];
    expect(stored.map((e) => e.text)).not.toContain(leaked);
  });

  it("deletes a stored lesson that makes every attempt of its tasks fail, so a later step solves them", async () => {
    const harmful = "When converting kilometres to metres, divide by ten and drop the unit.";
    const tasks = TASKS.slice(1, 3);
    const run = async (hindsight: boolean) => {
      const f = await practiceFixture(tasks);
      const stored = (await f.agent("POST", "/experiences", { text: harmful })).body.id as string;
      const q = captureQueues();
      // Conversions fail while the harmful lesson is in the prompt (and the attempts cite it), and
      // are right otherwise: no group ever has contrast, so only hindsight can repair the library.
      const policy = (task: string, _seed: number, prompt: string) => task.includes(" km") && !prompt.includes("divide by ten");
      const llm = practiceLlm({
        policy,
        hindsight: (req) => {
          const cited = /You may\s+only modify or delete these lessons: (G\d+)/.exec(req.prompt)?.[1];
          const reference = req.prompt.includes("DATA (reference answer)");
          if (!cited || !reference || !req.prompt.includes("divide by ten"))
            return { diagnosis: "nothing", operation: { op: "none", target: "", text: "", reason: "" } };
          return {
            diagnosis: `Every attempt followed ${cited} and divided; the reference is a thousand times the kilometres.`,
            operation: { op: "delete", target: cited, text: "", reason: "the lesson misleads" },
          };
        },
        batch: (req) => ({
          reasoning: "took the proposals",
          operations: proposalsIn(req.prompt).map((p) =>
            p.op === "delete"
              ? { op: "delete", targets: [p.target], text: "", reason: "misleads" }
              : { op: p.op, targets: p.target ? [p.target] : [], text: p.text, reason: "proposed" },
          ),
        }),
      });
      // A real policy names the lessons it used; this one cites the harmful one when it follows it.
      const original = llm.spy.getMockImplementation()!;
      llm.spy.mockImplementation(async (input, init) => {
        const res = await original(input, init);
        const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
        if (body?.response_format || !String(body?.messages?.[0]?.content ?? "").includes("divide by ten")) return res;
        const json = (await res.json()) as { choices: { message: { content: string } }[] };
        json.choices[0]!.message.content = `Following [G0] I divide.\n${json.choices[0]!.message.content}`;
        return new Response(JSON.stringify(json), { status: 200, headers: { "content-type": "application/json" } });
      });
      const runId = await startRun(f, { epochs: 2, batchSize: 2, groupSize: 3, seed: 5, promote: "always", hindsight });
      await q.pump();
      const view = (await f.agent("GET", `/practice-runs/${runId}`)).body;
      expect(view.status).toBe("completed");
      const active = ((await f.agent("GET", "/experiences?limit=100")).body.items as { id: string; status: string }[])
        .filter((e) => e.status === "active")
        .map((e) => e.id);
      return { view, steps: await stepDetails(f, runId), stored, active, llm };
    };

    const repaired = await run(true);
    const [first, later] = repaired.steps;
    expect(first.groups.every((g: { reason: string }) => g.reason === "all wrong")).toBe(true);
    expect(first.plan.operations).toEqual([expect.objectContaining({ op: "delete", id: repaired.stored, provenance: "hindsight" })]);
    expect(first.diff).toEqual([expect.objectContaining({ op: "delete", id: repaired.stored, provenance: "hindsight" })]);
    expect(later.groups.every((g: { reason: string }) => g.reason === "all correct")).toBe(true);
    expect(repaired.view.trainReward.map((s: { meanReward: number }) => s.meanReward)).toEqual([0, 1]);
    expect(repaired.active).not.toContain(repaired.stored);

    // The reference pipeline filters every group and never repairs it.
    const reference = await run(false);
    expect(reference.view.trainReward.map((s: { meanReward: number }) => s.meanReward)).toEqual([0, 0]);
    expect(reference.active).toContain(reference.stored);
  });
});
