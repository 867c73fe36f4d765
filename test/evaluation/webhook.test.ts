import { env, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifySignature } from "../../src/core/webhook-signature";
import { newTenant } from "../helpers";
import { api, captureQueues, evaluationFixture, ledger } from "./harness";
import { seedLessons } from "../practice/harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const AGENT_URL = "http://agent.test/rollout";
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** The tenant's own agent behind the global fetch; nothing else may be called. */
function agentWebhook(answer: (body: any, signature: string | null) => Response | Promise<Response>) {
  const calls: any[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== AGENT_URL) throw new Error(`Unexpected outbound fetch to ${url}`);
    const body = JSON.parse(String(init?.body));
    calls.push(body);
    return answer(body, new Headers(init?.headers).get("x-praxis-signature"));
  });
  return calls;
}

async function withSecret(apiKey: string) {
  const r = await api("POST", "/v1/webhook-secret", apiKey);
  expect(r.status).toBe(201);
  return r.body.secret as string;
}

describe("evaluations with a webhook policy", () => {
  it("the tenant's agent answers signed rollouts at once, with the library as experiences; no LLM is called", async () => {
    const f = await evaluationFixture(4);
    await seedLessons(f, ["Double-check before answering."]);
    const secret = await withSecret(f.t.apiKey);
    const q = captureQueues();
    const calls = agentWebhook(async (body, signature) => {
      expect((await verifySignature(signature, secret, JSON.stringify(body), Math.floor(Date.now() / 1000))).ok).toBe(true);
      return json({ answer: body.task.includes("task 0") ? "41" : "42" });
    });
    const r = await f.agent("POST", "/evaluations", {
      datasetId: f.datasetId,
      seed: 2,
      policy: { kind: "webhook", url: AGENT_URL, timeoutMs: 5000 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await q.pump();
    const ev = await f.agent("GET", `/evaluations/${r.body.evaluationId}`);
    expect(ev.body).toMatchObject({ status: "completed", accuracy: 0.75 });
    expect(calls).toHaveLength(4);
    expect(calls[0]).toMatchObject({ runId: r.body.evaluationId, experiences: [{ label: "G0", text: "Double-check before answering." }] });
    expect(await ledger(f.t.apiKey)).toEqual({});
  });

  it("an agent answering 202 posts results later, once; one that never does scores as a timeout", async () => {
    const f = await evaluationFixture(1);
    await withSecret(f.t.apiKey);
    const q = captureQueues();
    const calls = agentWebhook(() => new Response(null, { status: 202 }));
    const r = await f.agent("POST", "/evaluations", {
      datasetId: f.datasetId,
      samples: 3,
      seed: 2,
      policy: { kind: "webhook", url: AGENT_URL, timeoutMs: 5000 },
    });
    const id = r.body.evaluationId as string;
    await q.pump();
    expect(calls).toHaveLength(3);
    const [a, b] = calls.map((c) => c.rolloutId as string);
    const secretOf = (id: string) => ({ "x-praxis-rollout-secret": calls.find((c) => c.rolloutId === id)!.resultSecret as string });
    const post = (rolloutId: string, answer: string, key = f.t.apiKey) =>
      api("POST", `/v1/practice/rollouts/${rolloutId}/result`, key, { answer }, secretOf(rolloutId));
    expect((await post(a!, "42")).body.status).toBe("accepted");
    expect((await post(a!, "42")).body.status).toBe("duplicate");
    expect((await post(a!, "41")).status).toBe(409);
    expect((await post(b!, "41")).body.status).toBe("accepted");
    const other = await newTenant();
    expect((await post(a!, "42", other.apiKey)).status).toBe(404);
    expect((await f.agent("GET", `/evaluations/${id}`)).body.status).toBe("running");

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6000);
    await runDurableObjectAlarm(env.EVALUATION.getByName(id));
    const ev = await f.agent("GET", `/evaluations/${id}`);
    expect(ev.body.status).toBe("completed");
    expect(ev.body.tasks[0].rewards).toEqual([1, 0, 0]);
    expect(ev.body.accuracy).toBeCloseTo(1 / 3, 12);
  });
});
