import { Agent, tool, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { Praxis, unwrap } from "../../client/dist/index.js";
import { runWithPraxis } from "../../client/src/adapters/openai-agents.ts";
import { answer } from "../../examples/openai-agents-agent.ts";

const { url, adminKey } = inject("localWorker");
let praxis: Praxis;

beforeAll(async () => {
  const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
  const { apiKey } = await unwrap(
    operator.api.POST("/v1/tenants", { body: { name: `openai-agents-adapter-test-${Date.now().toString(36)}` } }),
  );
  praxis = new Praxis({ baseUrl: url, apiKey, retry: { baseDelayMs: 0 } });
});

type Output = ModelResponse["output"];

/** A Model for the Agents SDK that answers each request with `step(request, n)` and keeps the requests. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly step: (request: ModelRequest, n: number) => Output | Promise<Output>) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return { output: await this.step(request, this.requests.length), usage: new Usage() };
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the tests run without streaming");
  }
}

const message = (text: string): Output => [
  { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] },
];

/** Answers as a model that read its instructions would: it quotes the labels of the lessons about `topic`. */
function readerAnswer(request: ModelRequest, topic: RegExp, text: string): string {
  const lessons = Array.from((request.systemInstructions ?? "").matchAll(/^\[(G\d+)\]\. (.*)$/gm));
  return `${text} ${lessons
    .filter((m) => topic.test(m[2]!))
    .map((m) => `[${m[1]}]`)
    .join(" ")}`.trim();
}

async function episodes(agentId: string) {
  return (await unwrap(praxis.api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId } } }))).items;
}

async function qOf(agentId: string, id: string) {
  return (await unwrap(praxis.api.GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { agentId, id } } }))).q;
}

describe("OpenAI Agents SDK adapter against the local Worker", () => {
  it("the example puts the lessons before the agent's instructions, records the episode with the answer, and only the quoted lesson learns", async () => {
    const agentId = "agents-sdk-example";
    await praxis.agent(agentId).ensure();
    const used = await praxis.agent(agentId).addExperience("When an API answers 429, wait for the Retry-After header before retrying");
    const other = await praxis.agent(agentId).addExperience("Escalate chargebacks to the finance team within a day");
    const model = new ScriptedModel((request) =>
      message(readerAnswer(request, /retry-after/i, "Wait for the Retry-After interval, then retry.")),
    );
    const task = "A customer's calls to our payments API fail with 429. What should they do?";

    const text = await answer(praxis, agentId, task, model);

    const system = model.requests[0]!.systemInstructions ?? "";
    expect(system).toContain("When an API answers 429, wait for the Retry-After header before retrying");
    expect(system.indexOf("[G")).toBeLessThan(system.indexOf("Answer the customer's question in two sentences."));
    expect(model.requests[0]!.input).toEqual([expect.objectContaining({ role: "user", content: task })]);
    expect(text).toMatch(/\[G\d+\]/);
    const [ep] = await episodes(agentId);
    expect(ep).toMatchObject({ task, status: "ended", outcome: "success", answer: text });
    expect(ep!.attempts).toEqual([expect.objectContaining({ description: "agent Support answered", ok: true })]);
    expect(await qOf(agentId, used.id)).toBeGreaterThan(0.5);
    expect(await qOf(agentId, other.id)).toBe(0.5);
  });

  it("each tool call of the run is an attempt, a tool that threw a failed one; a judged-bad answer ends as failure", async () => {
    const agentId = "agents-sdk-tools";
    const memory = praxis.agent(agentId);
    await memory.ensure();
    const lesson = await memory.addExperience("Look the order up before promising a refund");
    const model = new ScriptedModel((request, n) =>
      n === 1
        ? [
            {
              type: "function_call",
              callId: "call-1",
              name: "lookup_order",
              arguments: JSON.stringify({ id: "1182" }),
              status: "completed",
            },
            { type: "function_call", callId: "call-2", name: "refund", arguments: JSON.stringify({ id: "1182" }), status: "completed" },
          ]
        : message(readerAnswer(request, /order/i, "The refund could not be issued.")),
    );
    const agent = new Agent({
      name: "Refunds",
      instructions: (context) => `Handle refunds. Turn ${context.usage.requests}.`,
      model,
      tools: [
        tool({
          name: "lookup_order",
          description: "Finds an order",
          parameters: z.object({ id: z.string() }),
          execute: async ({ id }) => `order ${id}: paid`,
        }),
        tool({
          name: "refund",
          description: "Refunds an order",
          parameters: z.object({ id: z.string() }),
          execute: async (): Promise<string> => {
            throw new Error("payment provider unavailable");
          },
        }),
      ],
    });

    const result = await runWithPraxis(memory, agent, [{ role: "user", content: "Refund order 1182" }], {
      outcome: (text) => (/could not/.test(text) ? "failure" : "success"),
    });

    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) {
      expect(request.systemInstructions).toContain("Look the order up before promising a refund");
      expect(request.systemInstructions).toContain("Handle refunds.");
    }
    const [ep] = await episodes(agentId);
    expect(ep).toMatchObject({ task: "Refund order 1182", outcome: "failure", answer: result.finalOutput });
    expect(ep!.attempts.map((a) => [a.description, a.ok])).toEqual([
      ["tool lookup_order", true],
      ["tool refund", false],
      ["agent Refunds answered", true],
    ]);
    expect(await qOf(agentId, lesson.id)).toBeLessThan(0.5);
  });

  it("a run that throws ends the episode abandoned, with no attempt or case, and the caller gets the run's error", async () => {
    const agentId = "agents-sdk-error";
    const memory = praxis.agent(agentId);
    await memory.ensure();
    const model = new ScriptedModel(() => {
      throw new Error("upstream 503");
    });
    await expect(runWithPraxis(memory, new Agent({ name: "Broken", instructions: "", model }), "Summarise the ticket")).rejects.toThrow(
      "upstream 503",
    );
    const [ep] = await episodes(agentId);
    expect(ep).toMatchObject({
      task: "Summarise the ticket",
      status: "ended",
      outcome: "abandoned",
      answer: null,
      attempts: [],
      result: { reward: 0, caseId: null },
    });
  });
});
