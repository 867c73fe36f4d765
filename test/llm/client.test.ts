import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  BudgetExceededError,
  createLlm,
  LlmClient,
  LlmNotConfiguredError,
  LlmOutputError,
  LlmUnavailableError,
  llmConfigured,
  loadLlmSettings,
  type BudgetGuard,
  type LlmSettings,
  type LedgerEntry,
} from "../../src/llm";
import { ProblemError, toProblem } from "../../src/doors/problem";
import { Semaphore } from "../../src/core/semaphore";

// ---- a fake OpenAI-compatible endpoint behind the global fetch ---------------------------------

interface Sent {
  url: string;
  headers: Headers;
  body: any;
}

function completion(
  content: string | null,
  usage: { prompt_tokens: number; completion_tokens: number } | null = { prompt_tokens: 100, completion_tokens: 20 },
  extra: Record<string, unknown> = {},
) {
  return new Response(
    JSON.stringify({
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "served-model",
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null, ...extra }, finish_reason: "stop" }],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );
}

function failure(status: number, headers: Record<string, string> = { "retry-after-ms": "1" }) {
  return new Response(JSON.stringify({ error: { message: `upstream said ${status}`, type: "server_error" } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Intercepts globalThis.fetch; each call takes the next scripted response (the last one repeats). */
function fakeLlm(...script: Array<Response | (() => Response | Promise<Response>)>) {
  const sent: Sent[] = [];
  let i = 0;
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const raw = init?.body;
    sent.push({ url, headers: new Headers(init?.headers), body: typeof raw === "string" ? JSON.parse(raw) : raw });
    const next = script[Math.min(i++, script.length - 1)]!;
    const res = typeof next === "function" ? await next() : next;
    return res.clone();
  });
  return { sent, spy };
}

afterEach(() => {
  vi.restoreAllMocks();
});

// ---- a client with in-memory usage and budget --------------------------------------------------

const settingsFor = (over: Record<string, string> = {}): LlmSettings =>
  loadLlmSettings({
    LLM_BASE_URL: "https://llm.test/v1",
    LLM_MODEL: "base-model",
    LLM_MODEL_JUDGE: "judge-model",
    LLM_API_KEY: "sk-test",
    LLM_MAX_RETRIES: "2",
    LLM_PRICES: JSON.stringify({ "judge-model": { input: 2, output: 10 }, "base-model": { input: 1, output: 1 } }),
    ...over,
  })!;

function client(over: Record<string, string> = {}, budget?: BudgetGuard) {
  const usage: LedgerEntry[] = [];
  const budgetChecks: string[] = [];
  const llm = new LlmClient(settingsFor(over), {
    tenantId: "t-1",
    agentId: "agent-1",
    recorder: { record: async (e) => void usage.push(e) },
    budget: budget ?? { assertWithinBudget: async (t) => void budgetChecks.push(t) },
  });
  return { llm, usage, budgetChecks };
}

const Insight = z.object({
  pattern: z.string().min(3),
  keywords: z.array(z.string()).min(1),
  insight: z.string().max(200),
});
const good = { pattern: "retry flaky network calls", keywords: ["retry", "network"], insight: "Wrap network calls in a bounded retry." };

const ask = {
  role: "judge" as const,
  purpose: "live-extract",
  schema: Insight,
  schemaName: "insight",
  messages: [{ role: "user" as const, content: "Contrast these attempts." }],
};

// ---- tests -------------------------------------------------------------------------------------

describe("LlmClient.chat", () => {
  it("sends the role's model and options, returns the text, and records usage with its cost", async () => {
    const { sent } = fakeLlm(completion("hello there", { prompt_tokens: 1000, completion_tokens: 500 }));
    const { llm, usage, budgetChecks } = client();
    const r = await llm.chat({
      role: "judge",
      purpose: "probe",
      messages: [{ role: "user", content: "hi" }],
      temperature: 0.2,
      maxTokens: 64,
    });
    expect(r.text).toBe("hello there");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("https://llm.test/v1/chat/completions");
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer sk-test");
    expect(sent[0]!.body).toMatchObject({
      model: "judge-model",
      temperature: 0.2,
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(sent[0]!.body.response_format).toBeUndefined();
    // judge-model costs $2 / $10 per million tokens
    const cost = (1000 * 2 + 500 * 10) / 1e6;
    expect(r.usage).toEqual({ model: "judge-model", calls: 1, tokensIn: 1000, tokensOut: 500, costUsd: cost });
    expect(usage).toEqual([
      {
        tenantId: "t-1",
        agentId: "agent-1",
        purpose: "probe",
        role: "judge",
        model: "judge-model",
        tokensIn: 1000,
        tokensOut: 500,
        costUsd: cost,
      },
    ]);
    expect(budgetChecks).toEqual(["t-1"]);
  });

  it("estimates tokens when the provider reports no usage, so the budget still counts them", async () => {
    fakeLlm(completion("x".repeat(40), null));
    const { llm, usage } = client();
    await llm.chat({ role: "policy", purpose: "probe", messages: [{ role: "user", content: "y".repeat(80) }] });
    expect(usage[0]).toMatchObject({ model: "base-model", tokensIn: 20, tokensOut: 10 });
  });
});

describe("LlmClient.structured", () => {
  it("json_schema mode sends a strict schema built from the zod schema and parses the answer", async () => {
    const { sent } = fakeLlm(completion(JSON.stringify(good)));
    const { llm, usage } = client();
    const r = await llm.structured(ask);
    expect(r).toMatchObject({ data: good, repaired: false, usage: { calls: 1, model: "judge-model" } });
    const rf = sent[0]!.body.response_format;
    expect(rf.type).toBe("json_schema");
    expect(rf.json_schema.name).toBe("insight");
    expect(rf.json_schema.strict).toBe(true);
    expect(Object.keys(rf.json_schema.schema.properties).sort()).toEqual(["insight", "keywords", "pattern"]);
    expect([...rf.json_schema.schema.required].sort()).toEqual(["insight", "keywords", "pattern"]);
    expect(rf.json_schema.schema.additionalProperties).toBe(false);
    expect(rf.json_schema.schema.properties.keywords).toMatchObject({ type: "array", items: { type: "string" } });
    // the provider enforces the schema, so the prompt is left as the caller wrote it
    expect(sent[0]!.body.messages).toEqual(ask.messages);
    expect(usage.map((u) => u.purpose)).toEqual(["live-extract"]);
  });

  it("makes optional fields required-but-nullable for strict mode and maps null back to absent", async () => {
    const Decide = z.object({
      action: z.enum(["ADD", "UPDATE", "DELETE", "NOOP"]),
      targetId: z.string().optional(),
      note: z.string().nullable(),
      detail: z.object({ reason: z.string(), score: z.number().optional() }),
    });
    const { sent } = fakeLlm(
      completion(JSON.stringify({ action: "ADD", targetId: null, note: null, detail: { reason: "new", score: null } })),
    );
    const { llm } = client();
    const r = await llm.structured({ ...ask, schema: Decide, schemaName: "decide" });
    expect(r.data).toEqual({ action: "ADD", note: null, detail: { reason: "new" } });
    expect("targetId" in r.data).toBe(false);
    const schema = sent[0]!.body.response_format.json_schema.schema;
    expect([...schema.required].sort()).toEqual(["action", "detail", "note", "targetId"]);
    expect(schema.properties.targetId.anyOf).toEqual(expect.arrayContaining([{ type: "null" }]));
    expect([...schema.properties.detail.required].sort()).toEqual(["reason", "score"]);
    expect(schema.properties.detail.additionalProperties).toBe(false);
  });

  it("json_object mode sends type json_object and puts the schema in the system prompt", async () => {
    const { sent } = fakeLlm(completion(JSON.stringify(good)));
    const { llm } = client({ LLM_STRUCTURED_OUTPUT: "json_object" });
    const messages = [
      { role: "system" as const, content: "You distil lessons." },
      { role: "user" as const, content: "Contrast these attempts." },
    ];
    const r = await llm.structured({ ...ask, messages });
    expect(r.data).toEqual(good);
    expect(sent[0]!.body.response_format).toEqual({ type: "json_object" });
    const [system, user] = sent[0]!.body.messages;
    expect(system.role).toBe("system");
    expect(system.content.startsWith("You distil lessons.")).toBe(true);
    expect(system.content).toContain("JSON");
    for (const field of ['"pattern"', '"keywords"', '"insight"']) expect(system.content).toContain(field);
    expect(user).toEqual(messages[1]);
  });

  it("prompt mode sends no response_format and adds a system message with the schema", async () => {
    const { sent } = fakeLlm(completion(JSON.stringify(good)));
    const { llm } = client({ LLM_STRUCTURED_OUTPUT: "prompt" });
    const r = await llm.structured(ask);
    expect(r.data).toEqual(good);
    expect(sent[0]!.body.response_format).toBeUndefined();
    expect(sent[0]!.body.messages).toHaveLength(2);
    expect(sent[0]!.body.messages[0].role).toBe("system");
    expect(sent[0]!.body.messages[0].content).toContain('"keywords"');
    expect(sent[0]!.body.messages[1]).toEqual(ask.messages[0]);
  });

  it.each([
    [
      "a trailing comma",
      '{"pattern": "retry flaky network calls", "keywords": ["retry", "network",], "insight": "Wrap network calls in a bounded retry.",}',
    ],
    ["a Markdown fence", "```json\n" + JSON.stringify(good, null, 2) + "\n```"],
    ["prose around it", `Sure! Here is the lesson:\n${JSON.stringify(good)}\nHope this helps.`],
  ])("parses JSON with %s without a repair call", async (_label, answer) => {
    const { sent } = fakeLlm(completion(answer));
    const { llm } = client();
    const r = await llm.structured(ask);
    expect(r).toMatchObject({ data: good, repaired: false });
    expect(sent).toHaveLength(1);
  });

  it("fixes a schema-invalid answer with exactly one repair call", async () => {
    const bad = { pattern: "ok pattern", keywords: [], insight: "x".repeat(250) };
    const { sent } = fakeLlm(
      completion(JSON.stringify(bad), { prompt_tokens: 100, completion_tokens: 20 }),
      completion(JSON.stringify(good), { prompt_tokens: 300, completion_tokens: 30 }),
    );
    const { llm, usage, budgetChecks } = client();
    const r = await llm.structured(ask);
    expect(sent).toHaveLength(2);
    expect(r.data).toEqual(good);
    expect(r.repaired).toBe(true);
    expect(r.usage).toMatchObject({ calls: 2, tokensIn: 400, tokensOut: 50 });
    // the repair prompt carries the field errors, the fenced previous answer, and the schema
    const repair = sent[1]!.body;
    const prompt = repair.messages.at(-1).content as string;
    expect(prompt).toContain("- keywords:");
    expect(prompt).toContain("- insight:");
    expect(prompt).toContain("DATA (previous answer)");
    expect(prompt).toContain(JSON.stringify(bad));
    expect(prompt).toContain('"pattern"');
    expect(prompt).not.toMatch(/\{\{\w+\}\}/);
    expect(repair.response_format.type).toBe("json_schema");
    expect(usage.map((u) => u.purpose)).toEqual(["live-extract", "live-extract:repair"]);
    expect(budgetChecks).toHaveLength(2);
  });

  it("gives up with LlmOutputError after exactly two calls when the repair fails too", async () => {
    const { sent } = fakeLlm(completion("I cannot produce JSON today."), completion('{"pattern": 5}'));
    const { llm, usage } = client();
    const err = await llm.structured(ask).catch((e) => e);
    expect(err).toBeInstanceOf(LlmOutputError);
    expect(sent).toHaveLength(2);
    expect(err.detail.calls).toBe(2);
    expect(err.detail.issues.map((i: any) => i.path).sort()).toEqual(["insight", "keywords", "pattern"]);
    // both calls consumed tokens, so both are in the ledger
    expect(usage).toHaveLength(2);
    const p = toProblem(err)!;
    expect(p.status).toBe(502);
    expect(p.type).toBe("llm-unavailable");
  });
});

describe("retries and failures", () => {
  it("retries a 429 after the server's retry-after-ms and then succeeds", async () => {
    const { sent } = fakeLlm(failure(429, { "retry-after-ms": "1" }), completion(JSON.stringify(good)));
    const { llm, usage } = client();
    const r = await llm.structured(ask);
    expect(r.data).toEqual(good);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body).toEqual(sent[0]!.body);
    expect(usage).toHaveLength(1);
  });

  it("throws LlmUnavailableError after maxRetries + 1 attempts of a persistent 500", async () => {
    const { sent } = fakeLlm(failure(500));
    const { llm, usage } = client({ LLM_MAX_RETRIES: "2" });
    const err = await llm.chat({ role: "policy", purpose: "rollout", messages: [{ role: "user", content: "go" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(LlmUnavailableError);
    expect(sent).toHaveLength(3);
    expect(err.detail).toMatchObject({ status: 500, retryable: true, attempts: 3 });
    expect(usage).toHaveLength(0);
    const p = toProblem(err)!;
    expect([p.status, p.type]).toEqual([503, "llm-unavailable"]);
  });

  it("does not retry a request the provider refuses (401) and says what to check", async () => {
    const { sent } = fakeLlm(failure(401, {}));
    const { llm } = client();
    const err = await llm.chat({ role: "policy", purpose: "rollout", messages: [{ role: "user", content: "go" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(LlmUnavailableError);
    expect(sent).toHaveLength(1);
    expect(err.message).toContain("LLM_API_KEY");
    expect(toProblem(err)!.status).toBe(502);
  });

  it("fails at once instead of sleeping through a Retry-After longer than a minute", async () => {
    const { sent } = fakeLlm(failure(429, { "retry-after": "3600" }));
    const { llm } = client();
    const err = await llm.chat({ role: "policy", purpose: "rollout", messages: [{ role: "user", content: "go" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(LlmUnavailableError);
    expect(err.detail.status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  it("turns a timed-out attempt into LlmUnavailableError", async () => {
    const hang = vi.spyOn(globalThis, "fetch").mockImplementation(
      (_input: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted", "AbortError")));
        }),
    );
    const { llm } = client({ LLM_TIMEOUT_MS: "20", LLM_MAX_RETRIES: "0" });
    const err = await llm.chat({ role: "policy", purpose: "rollout", messages: [{ role: "user", content: "go" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(LlmUnavailableError);
    expect(err.detail.retryable).toBe(true);
    expect(err.message).toMatch(/timed out/);
    expect(hang).toHaveBeenCalledTimes(1);
  });
});

describe("bounded concurrency", () => {
  it("holds a second call back until the first finishes when LLM_MAX_CONCURRENCY is 1", async () => {
    let release!: () => void;
    const firstDone = new Promise<void>((r) => (release = r));
    let started = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      started++;
      if (started === 1) await firstDone;
      return completion("ok");
    });
    const { llm } = client({ LLM_MAX_CONCURRENCY: "1" });
    const req = { role: "policy" as const, purpose: "rollout", messages: [{ role: "user" as const, content: "go" }] };
    const a = llm.chat(req);
    const b = llm.chat(req);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(started).toBe(1);
    release();
    await Promise.all([a, b]);
    expect(started).toBe(2);
  });
});

describe("slots, waiting and the budget", () => {
  const req = { role: "policy" as const, purpose: "rollout", messages: [{ role: "user" as const, content: "go" }] };
  const deps = (semaphore: Semaphore, budget: BudgetGuard, maxWaitMs?: number) => ({
    tenantId: "t-1",
    recorder: { record: async () => undefined },
    budget,
    semaphore,
    ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
  });

  it("checks the budget when the call leaves, after its wait for a slot: what the call ahead spent counts", async () => {
    let release!: () => void;
    const firstDone = new Promise<void>((r) => (release = r));
    let spent = false;
    let fetched = 0;
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      fetched++;
      await firstDone;
      spent = true;
      return completion("ok");
    });
    const refused = new BudgetExceededError("t-1", 1000, 1000, Date.now() + 3_600_000);
    const budget: BudgetGuard = { assertWithinBudget: async () => (spent ? Promise.reject(refused) : undefined) };
    const llm = new LlmClient(settingsFor(), deps(new Semaphore(1, { tickMs: 5 }), budget));
    const a = llm.chat(req);
    const b = llm.chat(req);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    release();
    await a;
    await expect(b).rejects.toBe(refused);
    expect(fetched).toBe(1);
  });

  it("a call that finds every slot busy past its wait bound makes no call and fails as retryable saturation (503, short Retry-After)", async () => {
    const semaphore = new Semaphore(1, { tickMs: 5 });
    const hold = await semaphore.acquire();
    const { spy } = fakeLlm(completion("ok"));
    const llm = new LlmClient(settingsFor(), deps(semaphore, { assertWithinBudget: async () => undefined }, 30));
    const err = await llm.chat(req).catch((e: unknown) => e);
    hold();
    expect(err).toBeInstanceOf(LlmUnavailableError);
    expect((err as LlmUnavailableError).detail).toMatchObject({ retryable: true, saturated: true });
    expect(spy).not.toHaveBeenCalled();
    expect(semaphore.waiting).toBe(0);
    const p = toProblem(err)!;
    expect([p.status, p.type, p.extra.headers?.["retry-after"]]).toEqual([503, "llm-unavailable", "2"]);
  });
});

describe("budget and configuration", () => {
  it("refuses before any fetch when the budget guard says no", async () => {
    const { spy } = fakeLlm(completion(JSON.stringify(good)));
    const refused = new BudgetExceededError("t-1", 1000, 1200, Date.now() + 3_600_000);
    const { llm, usage } = client({}, { assertWithinBudget: async () => Promise.reject(refused) });
    await expect(llm.structured(ask)).rejects.toBe(refused);
    expect(spy).not.toHaveBeenCalled();
    expect(usage).toHaveLength(0);
    const p = toProblem(refused)!;
    expect([p.status, p.type]).toEqual([429, "budget-exceeded"]);
    expect(Number(p.extra.headers!["retry-after"])).toBeGreaterThan(0);
  });

  it("createLlm without LLM variables throws LlmNotConfiguredError, mapped to a 503 naming them", () => {
    expect(llmConfigured(env)).toBe(false);
    const err = (() => {
      try {
        createLlm(env, { tenantId: "t-1" });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LlmNotConfiguredError);
    const p = toProblem(err)!;
    expect(p).toBeInstanceOf(ProblemError);
    expect([p.status, p.type]).toEqual([503, "llm-not-configured"]);
    expect(p.message).toContain("LLM_BASE_URL");
    expect(p.message).toContain("LLM_MODEL");
    expect((p.extra.variables as any).required).toEqual(["LLM_BASE_URL", "LLM_MODEL"]);
  });

  it("createLlm with invalid variables fails loudly as llm-not-configured, not as a silent skip", () => {
    const bad = { ...env, LLM_BASE_URL: "https://llm.test/v1", LLM_MODEL: "m", LLM_PRICES: "{oops" };
    expect(llmConfigured(bad)).toBe(true);
    const err = (() => {
      try {
        createLlm(bad, { tenantId: "t-1" });
      } catch (e) {
        return e;
      }
    })();
    const p = toProblem(err)!;
    expect([p.status, p.type]).toEqual([503, "llm-not-configured"]);
    expect(p.message).toContain("LLM_PRICES");
  });

  it("leaves unrelated errors alone", () => {
    expect(toProblem(new Error("x"))).toBeNull();
  });
});
