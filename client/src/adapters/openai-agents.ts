import { run, type Agent as SdkAgent, type AgentInputItem, type NonStreamRunOptions, type RunResult } from "@openai/agents";
import { citedLabels, joinInstructions, type PraxisAgent, type PraxisEpisode, type PromptQuery, type Schemas } from "./shared.ts";

type Outcome = Schemas["EpisodeEnd"]["outcome"];
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own bound for an agent of any context and output type
type AnyAgent = SdkAgent<any, any>;

export interface PraxisRunOptions<TContext, TAgent extends AnyAgent> {
  /** Prompt-block query options (`budgetTokens`, …); the query defaults to the task. */
  prompt?: Partial<PromptQuery>;
  /** The episode's task (default: the input if it is a string, else the text of its last user message). */
  task?: string;
  /** Judges the final output (default: `success` whenever the run completes). */
  outcome?: (answer: string) => Outcome | Promise<Outcome>;
  /** Written after the prompt block, before the agent's own instructions. */
  instruction?: string;
  /** Passed to the SDK's `run` as they are (context, maxTurns, signal, session…). */
  run?: NonStreamRunOptions<TContext, TAgent>;
}

/** The text the Agents SDK's default tool error function hands the model in place of an output. */
const SDK_TOOL_ERROR = "An error occurred while running the tool";

/**
 * Runs an OpenAI Agents SDK agent as one Praxis episode: the agent's prompt block (`[G#]. …`
 * lessons and past cases for the task) goes before the agent's instructions, each tool call of the
 * run's result is an attempt, and the final output ends the episode as its answer, citing the
 * `[G#]` labels it quotes. A run that throws (max turns, guardrail, model error) ends the episode as
 * a failure and rethrows.
 *
 *   const result = await runWithPraxis(praxis.agent("support-bot"), agent, "Refund order 1182");
 *
 * Handoffs keep their own instructions: only the starting agent sees the block.
 */
export async function runWithPraxis<TAgent extends AnyAgent, TContext = undefined>(
  praxisAgent: PraxisAgent,
  agent: TAgent,
  input: string | AgentInputItem[],
  options: PraxisRunOptions<TContext, TAgent> = {},
): Promise<RunResult<TContext, TAgent>> {
  const ep = await praxisAgent.startEpisode(options.task ?? taskOf(input));
  let result: RunResult<TContext, TAgent>;
  try {
    const { prompt: block } = await ep.prompt(options.prompt);
    const instructed = agent.clone({
      instructions: async (context, self) => {
        const own = typeof agent.instructions === "function" ? await agent.instructions(context, self) : agent.instructions;
        return [joinInstructions(block, options.instruction), own].filter(Boolean).join("\n\n");
      },
    }) as TAgent;
    result = await run(instructed, input, options.run);
  } catch (err) {
    await abandonQuietly(ep);
    throw err;
  }
  await reportRun(ep, result, options.outcome);
  return result;
}

async function reportRun<TContext, TAgent extends AnyAgent>(
  ep: PraxisEpisode,
  result: RunResult<TContext, TAgent>,
  judge?: (answer: string) => Outcome | Promise<Outcome>,
) {
  for (const item of result.newItems) {
    if (item.type !== "tool_call_output_item") continue;
    const output = typeof item.output === "string" ? item.output : JSON.stringify(item.output ?? null);
    const name = "name" in item.rawItem ? item.rawItem.name : item.rawItem.type;
    const failed = output.startsWith(SDK_TOOL_ERROR);
    const error = failed ? output.slice(0, 50_000) : undefined;
    await ep.attempt({
      description: `tool ${name}`,
      ok: !failed,
      toolCalls: [error === undefined ? { name, output: item.output } : { name, error }],
      ...(error === undefined ? {} : { error }),
    });
  }
  const final = result.finalOutput;
  const answer = final === undefined || final === null ? "" : typeof final === "string" ? final : JSON.stringify(final);
  await ep.attempt({ description: `agent ${result.lastAgent?.name ?? "run"} answered`, ok: answer !== "" });
  const outcome = answer === "" ? "failure" : judge ? await judge(answer) : "success";
  ep.cite(...citedLabels(answer));
  await ep.end({ outcome, ...(answer ? { answer: answer.slice(0, 8000) } : {}) });
}

/** A run that threw (the model API, the network, a tool's own bug) failed no task: nothing learns from it. */
async function abandonQuietly(ep: PraxisEpisode) {
  try {
    await ep.end({ outcome: "abandoned" });
  } catch {
    // The caller needs the run's error, not this one; the sweep ends an open episode.
  }
}

function taskOf(input: string | AgentInputItem[]): string {
  if (typeof input === "string") return input;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (!item || !("role" in item) || item.role !== "user") continue;
    if (typeof item.content === "string") return item.content;
    const text = item.content.flatMap((c) => (c.type === "input_text" ? [c.text] : [])).join("\n");
    if (text) return text;
  }
  return "(no task text)";
}
