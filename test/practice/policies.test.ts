import { env, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifySignature } from "../../src/core/webhook-signature";
import { chatCompletion, LLM_ENV } from "../fake-llm";
import { expectProblem } from "../helpers";
import { ARITHMETIC, api, captureQueues, practiceFixture, practiceLlm, seedLessons, startRun } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const AGENT_URL = "http://agent.test/rollout";
const VERIFIER_URL = "http://verifier.test/check";

/** Routes outbound fetches: the LLM to the scripted model, the tenant's webhooks to `hooks`. */
function withWebhooks(
  llm: ReturnType<typeof practiceLlm>,
  hooks: (url: string, body: any, signature: string | null) => Response | Promise<Response>,
) {
  const real = llm.spy.getMockImplementation()!;
  const calls: { url: string; body: any }[] = [];
  llm.spy.mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(LLM_ENV.LLM_BASE_URL)) return real(input, init);
    const body = JSON.parse(String(init?.body));
    calls.push({ url, body });
    return hooks(url, body, new Headers(init?.headers).get("x-praxis-signature"));
  });
  return calls;
}

async function withSecret(f: Awaited<ReturnType<typeof practiceFixture>>) {
  const r = await api("POST", "/v1/webhook-secret", f.t.apiKey);
  expect(r.status).toBe(201);
  return r.body.secret as string;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("rollout policies and verifiers", () => {
  it("a webhook policy answering at once does the rollouts, signed, with the library as experiences", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(1, 3));
    await seedLessons(f, ["Double-check before answering."]);
    const secret = await withSecret(f);
    const q = captureQueues();
    const llm = practiceLlm();
    let n = 0;
    const calls = withWebhooks(llm, async (url, body, signature) => {
      expect(url).toBe(AGENT_URL);
      const ok = await verifySignature(signature, secret, JSON.stringify(body), Math.floor(Date.now() / 1000));
      expect(ok.ok).toBe(true);
      return json({ answer: n++ % 2 ? "42" : "41", trajectory: [{ tool: "calc", out: "ok" }] });
    });
    const runId = await startRun(f, {
      epochs: 1,
      batchSize: 2,
      groupSize: 2,
      seed: 3,
      policy: { kind: "webhook", url: AGENT_URL, timeoutMs: 5000 },
    });
    await q.pump();
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("completed");
    expect(calls).toHaveLength(4);
    expect(calls[0]!.body).toMatchObject({
      runId,
      task: expect.any(String),
      experiences: [{ label: "G0", text: "Double-check before answering." }],
    });
    expect(llm.count("rollout")).toBe(0);
    const rollouts = await f.agent("GET", `/practice-runs/${runId}/rollouts`);
    expect(rollouts.body.items[0].trajectory).toContain("calc");
    expect(rollouts.body.items.map((r: any) => r.reward).sort()).toEqual([0, 0, 1, 1]);
  });

  it("a webhook policy answering 202 posts results later; one that never does scores as a timeout", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(1, 2));
    await withSecret(f);
    const q = captureQueues();
    const llm = practiceLlm();
    const calls = withWebhooks(llm, () => new Response(null, { status: 202 }));
    const runId = await startRun(f, {
      epochs: 1,
      batchSize: 1,
      groupSize: 3,
      seed: 3,
      policy: { kind: "webhook", url: AGENT_URL, timeoutMs: 5000 },
    });
    await q.pump();
    expect(calls).toHaveLength(3);
    const [a, b] = calls.map((c) => c.body.rolloutId as string);
    const secretOf = (id: string) => ({
      "x-praxis-rollout-secret": calls.find((c) => c.body.rolloutId === id)!.body.resultSecret as string,
    });
    const post = (id: string, body: unknown) => api("POST", `/v1/practice/rollouts/${id}/result`, f.t.apiKey, body, secretOf(id));
    expect((await post(a!, { answer: "42", trajectory: "computed" })).body.status).toBe("accepted");
    expect((await post(a!, { answer: "42", trajectory: "computed" })).body.status).toBe("duplicate");
    expectProblem(await post(a!, { answer: "41" }), 409, "conflict");
    expect((await post(b!, { answer: "41" })).body.status).toBe("accepted");
    expectProblem(await api("POST", `/v1/practice/rollouts/${runId}.e9.s9.t0.r0/result`, f.t.apiKey, { answer: "1" }), 404, "not-found");
    expectProblem(await post(a!, { nope: 1 }), 400, "validation-failed");
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("running");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6000);
    expect(await runDurableObjectAlarm(env.PRACTICE_RUN.getByName(runId))).toBe(true);
    await q.pump();
    const run = await f.agent("GET", `/practice-runs/${runId}`);
    expect(run.body.status).toBe("completed");
    const rollouts = (await f.agent("GET", `/practice-runs/${runId}/rollouts`)).body.items;
    expect(rollouts.map((r: any) => r.reward)).toEqual([1, 0, 0]);
    expect(rollouts[2].error).toMatch(/timeout/);
    expect(rollouts[0].answer).toBe("42");
  });

  it("the llm-judge verifier grades each rollout with the judge role, cool and structured", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(1, 2));
    const q = captureQueues();
    const llm = practiceLlm();
    const real = llm.spy.getMockImplementation()!;
    const judged: any[] = [];
    llm.spy.mockImplementation(async (input, init) => {
      const body = JSON.parse(String(init?.body));
      if (body.response_format?.json_schema?.name === "practice_judgement") {
        judged.push(body);
        const right = body.messages.at(-1).content.includes("Final answer: 42") || /\n42\n/.test(body.messages.at(-1).content);
        return chatCompletion(
          JSON.stringify(
            right ? { verdict: "CORRECT", score: 1, reasoning: "matches" } : { verdict: "INCORRECT", score: 0, reasoning: "wrong" },
          ),
        );
      }
      return real(input, init);
    });
    const runId = await startRun(f, {
      epochs: 1,
      batchSize: 1,
      groupSize: 4,
      seed: 7,
      verifier: { kind: "llm-judge", rubric: "The answer must equal the reference." },
    });
    await q.pump();
    const run = await f.agent("GET", `/practice-runs/${runId}`);
    expect(run.body.status).toBe("completed");
    expect(judged).toHaveLength(4);
    for (const j of judged) expect(j.temperature).toBeLessThanOrEqual(0.3);
    expect(judged[0].messages.at(-1).content).toContain("The answer must equal the reference.");
    const rollouts = (await f.agent("GET", `/practice-runs/${runId}/rollouts`)).body.items;
    for (const r of rollouts) expect(r.reasoning).toMatch(/^(CORRECT|INCORRECT)/);
    const usage = await api("GET", "/v1/usage?groupBy=purpose", f.t.apiKey);
    expect(usage.body.groups.find((g: any) => g.key === "practice-judge")).toMatchObject({ calls: 4 });
  });

  it("the webhook verifier scores through the tenant's endpoint", async () => {
    const f = await practiceFixture(ARITHMETIC.slice(1, 2));
    await withSecret(f);
    const q = captureQueues();
    const llm = practiceLlm();
    const calls = withWebhooks(llm, (url, body) => {
      expect(url).toBe(VERIFIER_URL);
      return json({ reward: body.answer === body.groundTruth ? 1 : 0.25, reasoning: "checked" });
    });
    const runId = await startRun(f, { epochs: 1, batchSize: 1, groupSize: 3, seed: 7, verifier: { kind: "webhook", url: VERIFIER_URL } });
    await q.pump();
    expect((await f.agent("GET", `/practice-runs/${runId}`)).body.status).toBe("completed");
    expect(calls).toHaveLength(3);
    expect(calls[0]!.body).toMatchObject({ runId, taskId: "mul", task: "What is 6 * 7?", groundTruth: "42" });
    const rewards = (await f.agent("GET", `/practice-runs/${runId}/rollouts`)).body.items.map((r: any) => r.reward);
    for (const r of rewards) expect([1, 0.25]).toContain(r);
  });

  it("majority: without ground truth the answer most of the group gives counts as correct", async () => {
    const f = await practiceFixture([]);
    const ds = await api("POST", "/v1/datasets", f.t.apiKey, {
      name: "no truth",
      holdoutFraction: 0,
      tasks: [{ id: "q", task: "What is 6 * 7?", split: "train" }],
    });
    const q = captureQueues();
    practiceLlm({ policy: (_task, seed) => seed % 4 !== 0 });
    const r = await f.agent("POST", "/practice-runs", {
      datasetId: ds.body.datasetId,
      policy: { kind: "llm" },
      epochs: 1,
      batchSize: 1,
      groupSize: 5,
      seed: 11,
    });
    expect(r.status).toBe(202);
    await q.pump();
    const run = await f.agent("GET", `/practice-runs/${r.body.runId}`);
    expect(run.body.config.verifier).toEqual({ kind: "majority" });
    const rollouts = (await f.agent("GET", `/practice-runs/${r.body.runId}/rollouts`)).body.items;
    const counts = new Map<string, number>();
    for (const x of rollouts) counts.set(x.answer, (counts.get(x.answer) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    for (const x of rollouts) expect(x.reward).toBe(x.answer === top ? 1 : 0);
  });

  it("webhook URLs pointing at private addresses are refused in production", async () => {
    const f = await practiceFixture(ARITHMETIC);
    await withSecret(f);
    const { default: worker } = await import("../../src/index");
    const { createExecutionContext } = await import("cloudflare:test");
    const prodEnv = { ...env, ...LLM_ENV, PRAXIS_ENV: "production" } as typeof env;
    for (const url of ["http://agent.example.com/run", "https://127.0.0.1/run", "https://10.0.0.8/run", "https://2130706433/run"]) {
      const res = await worker.fetch(
        new Request(`http://praxis.test/v1/agents/${f.agentId}/practice-runs`, {
          method: "POST",
          headers: { authorization: `Bearer ${f.t.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ datasetId: f.datasetId, policy: { kind: "webhook", url, timeoutMs: 5000 } }),
        }),
        prodEnv,
        createExecutionContext(),
      );
      expect(res.status, url).toBe(422);
      expect((await res.json<any>()).errors[0].path).toBe("policy.url");
    }
  });
});
