import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { Praxis, unwrap } from "../../client/dist/index.js";
import { praxisMiddleware } from "../../client/src/adapters/ai-sdk.ts";
import { answer } from "../../examples/ai-sdk-agent.ts";

type CallOptions = MockLanguageModelV4["doGenerateCalls"][number];
type GenerateResult = Exclude<ConstructorParameters<typeof MockLanguageModelV4>[0], undefined>["doGenerate"];

const { url, adminKey } = inject("localWorker");
let praxis: Praxis;
let apiKey = "";

beforeAll(async () => {
  const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
  apiKey = (await unwrap(operator.api.POST("/v1/tenants", { body: { name: `ai-sdk-adapter-test-${Date.now().toString(36)}` } }))).apiKey;
  praxis = new Praxis({ baseUrl: url, apiKey, retry: { baseDelayMs: 0 } });
});

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const systemOf = (call: CallOptions) =>
  call.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");

/**
 * Answers as a model that read its system message would: it follows the lessons about what it
 * was asked (those that share a topic word with `topic`) and quotes their labels.
 */
function readerAnswer(call: CallOptions, topic: RegExp, text: string): string {
  const labels = Array.from(systemOf(call).matchAll(/^\[(G\d+)\]\. (.*)$/gm))
    .filter((m) => topic.test(m[2]!))
    .map((m) => `[${m[1]}]`);
  return `${text} ${labels.join(" ")}`.trim();
}

const textResult = (text: string): Awaited<ReturnType<Extract<GenerateResult, (...args: never[]) => unknown>>> => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  warnings: [],
});

async function episodes(agentId: string) {
  return (await unwrap(praxis.api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId } } }))).items;
}

async function qOf(agentId: string, id: string) {
  return (await unwrap(praxis.api.GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { agentId, id } } }))).q;
}

describe("AI SDK middleware against the local Worker", () => {
  it("the example puts the lessons in the system message, records the episode with the answer, and only the quoted lesson learns", async () => {
    const agentId = "ai-sdk-example";
    await praxis.agent(agentId).ensure();
    const used = await praxis.agent(agentId).addExperience("When an API answers 429, wait for the Retry-After header before retrying");
    const other = await praxis.agent(agentId).addExperience("Escalate chargebacks to the finance team within a day");
    const model = new MockLanguageModelV4({
      doGenerate: async (call) => textResult(readerAnswer(call, /retry-after/i, "Wait for the Retry-After interval, then retry.")),
    });
    const task = "A customer's calls to our payments API fail with 429. What should they do?";

    const text = await answer(praxis, agentId, model, task);

    const system = systemOf(model.doGenerateCalls[0]!);
    expect(system).toContain("When an API answers 429, wait for the Retry-After header before retrying");
    expect(system).toContain("Quote the [G#] label");
    expect(text).toMatch(/\[G\d+\]/);
    const [ep] = await episodes(agentId);
    expect(ep).toMatchObject({ task, status: "ended", outcome: "success", answer: text });
    expect(ep!.attempts).toEqual([expect.objectContaining({ description: "model answered (finish: stop)", ok: true })]);
    expect(await qOf(agentId, used.id)).toBeGreaterThan(0.5);
    expect(await qOf(agentId, other.id)).toBe(0.5);
  });

  it("a tool loop is one episode: each step and tool result is an attempt, a failed tool is a failed attempt, the block is fetched once", async () => {
    const agentId = "ai-sdk-tools";
    let promptFetches = 0;
    const counting = new Praxis({
      baseUrl: url,
      apiKey,
      fetch: (request) => {
        if (new URL(request.url).pathname.endsWith("/prompt")) promptFetches++;
        return fetch(request);
      },
    });
    const agent = counting.agent(agentId);
    await agent.ensure();
    const lesson = await agent.addExperience("Look the order up before promising a refund");
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async (call) => {
        step++;
        if (step === 1)
          return {
            content: [
              { type: "tool-call", toolCallId: "call-1", toolName: "lookupOrder", input: JSON.stringify({ id: "1182" }) },
              { type: "tool-call", toolCallId: "call-2", toolName: "refund", input: JSON.stringify({ id: "1182" }) },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          };
        return textResult(readerAnswer(call, /order/i, "Order 1182 was found; the refund failed, so I escalated it."));
      },
    });
    const { text } = await generateText({
      model: wrapLanguageModel({ model, middleware: praxisMiddleware(agent) }),
      prompt: "Refund order 1182",
      stopWhen: stepCountIs(4),
      tools: {
        lookupOrder: tool({ inputSchema: z.object({ id: z.string() }), execute: async ({ id }) => ({ id, status: "paid" }) }),
        refund: tool({
          inputSchema: z.object({ id: z.string() }),
          execute: async (): Promise<string> => {
            throw new Error("payment provider unavailable");
          },
        }),
      },
    });

    expect(model.doGenerateCalls).toHaveLength(2);
    for (const call of model.doGenerateCalls) expect(systemOf(call)).toContain("Look the order up before promising a refund");
    const all = await episodes(agentId);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ task: "Refund order 1182", outcome: "success", answer: text });
    expect(all[0]!.attempts.map((a) => [a.description, a.ok])).toEqual([
      ["model called lookupOrder, refund", true],
      ["tool lookupOrder", true],
      ["tool refund", false],
      ["model answered (finish: stop)", true],
    ]);
    expect(all[0]!.attempts[2]!.error).toContain("payment provider unavailable");
    expect(promptFetches).toBe(1);
    expect(await qOf(agentId, lesson.id)).toBeGreaterThan(0.5);
  });

  it("streamText: the episode ends with the streamed answer once the stream is read", async () => {
    const agentId = "ai-sdk-stream";
    const agent = praxis.agent(agentId);
    await agent.ensure();
    await agent.addExperience("Answer refund questions with the invoice number");
    let seen = "";
    const model = new MockLanguageModelV4({
      doStream: async (call) => {
        seen = systemOf(call);
        const text = readerAnswer(call, /refund/i, "Refund issued for invoice 77.");
        return {
          stream: new ReadableStream({
            start(c) {
              c.enqueue({ type: "stream-start", warnings: [] });
              c.enqueue({ type: "text-start", id: "t" });
              for (const word of text.split(/(?<= )/)) c.enqueue({ type: "text-delta", id: "t", delta: word });
              c.enqueue({ type: "text-end", id: "t" });
              c.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
              c.close();
            },
          }),
        };
      },
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: praxisMiddleware(agent) }),
      prompt: "Customer asks about a refund",
    });
    const text = await result.text;
    expect(seen).toContain("Answer refund questions with the invoice number");
    expect(text).toMatch(/^Refund issued for invoice 77\. \[G\d+\]$/);
    await expect.poll(async () => (await episodes(agentId))[0]).toMatchObject({ status: "ended", outcome: "success", answer: text });
  });

  it("a model that throws ends the episode abandoned, with no attempt or case, and the caller gets the model's error", async () => {
    const agentId = "ai-sdk-error";
    const agent = praxis.agent(agentId);
    await agent.ensure();
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error("upstream 503");
      },
    });
    await expect(
      generateText({
        model: wrapLanguageModel({ model, middleware: praxisMiddleware(agent) }),
        prompt: "Summarise the ticket",
        maxRetries: 0,
      }),
    ).rejects.toThrow("upstream 503");
    const [ep] = await episodes(agentId);
    expect(ep).toMatchObject({ status: "ended", outcome: "abandoned", answer: null, attempts: [], result: { reward: 0, caseId: null } });
  });

  it("a stream that carries the provider's error abandons the episode; a content filter is a failure", async () => {
    const agentId = "ai-sdk-stream-error";
    const agent = praxis.agent(agentId);
    await agent.ensure();
    await agent.addExperience("Answer refund questions with the invoice number");
    const streaming = (end: (c: ReadableStreamDefaultController) => void) =>
      new MockLanguageModelV4({
        doStream: async () => ({
          stream: new ReadableStream({
            start(c) {
              c.enqueue({ type: "stream-start", warnings: [] });
              end(c);
              c.close();
            },
          }),
        }),
      });
    const broken = streaming((c) => c.enqueue({ type: "error", error: new Error("upstream 404: model not found") }));
    const run = (model: MockLanguageModelV4) =>
      streamText({
        model: wrapLanguageModel({ model, middleware: praxisMiddleware(agent) }),
        prompt: "Customer asks about a refund",
        onError: () => {},
      });
    await run(broken).consumeStream();
    await expect.poll(async () => (await episodes(agentId))[0]).toMatchObject({ status: "ended", outcome: "abandoned", attempts: [] });
    const filtered = streaming((c) =>
      c.enqueue({ type: "finish", finishReason: { unified: "content-filter", raw: "content_filter" }, usage }),
    );
    await run(filtered).consumeStream();
    await expect.poll(async () => (await episodes(agentId)).map((e) => e.outcome)).toEqual(["failure", "abandoned"]);
  });
});
