import type { LanguageModelMiddleware } from "ai";
import { citedLabels, joinInstructions, type PraxisAgent, type PraxisEpisode, type PromptQuery, type Schemas } from "./shared.ts";

type Middleware = LanguageModelMiddleware;
type CallOptions = Parameters<NonNullable<Middleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type GenerateResult = Awaited<ReturnType<NonNullable<Middleware["wrapGenerate"]>>>;
type Outcome = Schemas["EpisodeEnd"]["outcome"];

export interface PraxisMiddlewareOptions {
  /** Prompt-block query options (`budgetTokens`, …); the query defaults to the task. */
  prompt?: Partial<PromptQuery>;
  /** The episode's task from the call's prompt (default: the text of the last user message). */
  task?: (prompt: Prompt) => string | undefined;
  /** Judges the final answer (default: `success` unless the model stopped on an error or filter). */
  outcome?: (answer: string) => Outcome | Promise<Outcome>;
  /** Written after the prompt block in the system message. */
  instruction?: string;
}

/** Tool calls awaiting their results that one middleware remembers (their episodes stay open). */
const OPEN_TOOL_CALLS_MAX = 10_000;

interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

interface Turn {
  ep: PraxisEpisode;
  block: string;
  /** Tool calls of the last step, by id: their results arrive in the next call's prompt. */
  pending: Map<string, string>;
}

/**
 * AI SDK middleware that runs each generation as a Praxis episode: the agent's prompt block
 * (`[G#]. …` lessons and past cases for the task) goes into the system message, every model step
 * and tool result is an attempt, and the final text ends the episode as its answer, citing the
 * `[G#]` labels it quotes, so the lessons the model used are the ones that learn.
 *
 *   const model = wrapLanguageModel({ model: openai("gpt-4.1"), middleware: praxisMiddleware(praxis.agent("support-bot")) });
 *
 * A tool loop (`stopWhen`) stays one episode: the next step's prompt carries the results of the
 * previous step's tool calls, which is how the middleware finds the episode again. A loop stopped on
 * a tool call leaves its episode open; the service's sweep ends it as `timeout`.
 */
export function praxisMiddleware(agent: PraxisAgent, options: PraxisMiddlewareOptions = {}): Middleware {
  const byToolCall = new Map<string, Turn>();
  const byCall = new WeakMap<CallOptions, Turn>();

  async function turnFor(prompt: Prompt): Promise<Turn> {
    const results = prompt.flatMap((m) => (m.role === "tool" ? m.content.filter((p) => p.type === "tool-result") : []));
    const turn = results.map((r) => byToolCall.get(r.toolCallId)).find((t) => t !== undefined);
    if (turn) {
      for (const r of results) {
        if (!turn.pending.delete(r.toolCallId)) continue;
        byToolCall.delete(r.toolCallId);
        const failed = r.output.type === "error-text" || r.output.type === "error-json" || r.output.type === "execution-denied";
        const detail = "value" in r.output ? r.output.value : "reason" in r.output ? r.output.reason : undefined;
        const error = failed ? (textOf(detail) ?? r.output.type) : undefined;
        await turn.ep.attempt({
          description: `tool ${r.toolName}`,
          ok: !failed,
          toolCalls: [error === undefined ? { name: r.toolName, output: detail } : { name: r.toolName, error }],
          ...(error === undefined ? {} : { error }),
        });
      }
      return turn;
    }
    const task = (options.task ?? lastUserText)(prompt) ?? "(no task text)";
    const ep = await agent.startEpisode(task);
    const { prompt: block } = await ep.prompt(options.prompt);
    return { ep, block, pending: new Map() };
  }

  async function report(turn: Turn, step: { text: string; toolCalls: ToolCall[]; finish: string }) {
    if (step.finish === "tool-calls" && step.toolCalls.length) {
      for (const call of step.toolCalls) {
        turn.pending.set(call.id, call.name);
        byToolCall.set(call.id, turn);
      }
      // Loops stopped on a tool call never come back for their episode; forget the oldest of them.
      for (const id of byToolCall.keys()) {
        if (byToolCall.size <= OPEN_TOOL_CALLS_MAX) break;
        byToolCall.delete(id);
      }
      await turn.ep.attempt({
        description: `model called ${step.toolCalls.map((c) => c.name).join(", ")}`,
        ok: true,
        toolCalls: step.toolCalls.map((c) => ({ name: c.name, input: c.input })),
      });
      return;
    }
    if (step.finish === "error") return abandon(turn);
    const stopped = step.finish === "content-filter";
    await turn.ep.attempt({ description: `model answered (finish: ${step.finish})`, ok: !stopped });
    const outcome = stopped ? "failure" : options.outcome ? await options.outcome(step.text) : "success";
    turn.ep.cite(...citedLabels(step.text));
    await turn.ep.end({ outcome, ...(step.text ? { answer: step.text.slice(0, 8000) } : {}) });
  }

  /**
   * A model call that threw or streamed an error (a 404, a network error, a provider outage) says
   * nothing about the task: the episode ends `abandoned`, so no lesson loses Q and the error is
   * never kept as a case that later prompts would show as experience.
   */
  async function abandon(turn: Turn) {
    try {
      await turn.ep.end({ outcome: "abandoned" });
    } catch {
      // The caller needs the model's error, not this one; the sweep ends an open episode.
    }
  }

  return {
    specificationVersion: "v4",
    async transformParams({ params }) {
      const turn = await turnFor(params.prompt);
      const system = joinInstructions(turn.block, options.instruction);
      const transformed: CallOptions = { ...params, prompt: [{ role: "system", content: system }, ...params.prompt] };
      byCall.set(transformed, turn);
      return transformed;
    },
    async wrapGenerate({ doGenerate, params }) {
      const turn = byCall.get(params);
      if (!turn) return doGenerate();
      let result: GenerateResult;
      try {
        result = await doGenerate();
      } catch (err) {
        await abandon(turn);
        throw err;
      }
      await report(turn, {
        text: result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join(""),
        toolCalls: result.content.flatMap((c) =>
          c.type === "tool-call" ? [{ id: c.toolCallId, name: c.toolName, input: parseInput(c.input) }] : [],
        ),
        finish: result.finishReason.unified,
      });
      return result;
    },
    async wrapStream({ doStream, params }) {
      const turn = byCall.get(params);
      if (!turn) return doStream();
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (err) {
        await abandon(turn);
        throw err;
      }
      let text = "";
      let finish = "other";
      let error: unknown;
      const toolCalls: ToolCall[] = [];
      const observed = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === "text-delta") text += part.delta;
            else if (part.type === "tool-call") toolCalls.push({ id: part.toolCallId, name: part.toolName, input: parseInput(part.input) });
            else if (part.type === "finish") finish = part.finishReason.unified;
            else if (part.type === "error") error = part.error;
            controller.enqueue(part);
          },
          // The stream's end is the step's end: report it before the consumer sees the stream close.
          async flush() {
            if (error !== undefined) await abandon(turn);
            else await report(turn, { text, toolCalls, finish });
          },
        }),
      );
      return { ...result, stream: observed };
    },
  };
}

function lastUserText(prompt: Prompt): string | undefined {
  const user = prompt.findLast((m) => m.role === "user");
  if (!user || user.role !== "user") return undefined;
  return user.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n") || undefined;
}

function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return (typeof value === "string" ? value : JSON.stringify(value)).slice(0, 50_000);
}

/** Tool inputs arrive as the model's JSON text; the episode keeps them parsed where they parse. */
function parseInput(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
