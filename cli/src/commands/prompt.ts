import { Option, type Command } from "commander";
import { optionalInteger } from "../args.js";
import { client } from "../config.js";
import { output } from "../output.js";
import { PHASES, type Phase } from "./retrieve.js";

interface PromptOptions {
  episode?: string;
  phase?: Phase;
  budgetTokens?: string;
  maxCases?: string;
}

export function registerPrompt(program: Command): void {
  program
    .command("prompt <agentId> [query]")
    .description(
      "The block to inject into the agent's prompt: `[G#]. …` lessons, then relevant past cases. The text goes to stdout, its retrieval id to stderr",
    )
    .option("--episode <episodeId>", "the episode it is for (the query defaults to the episode's task; its end rewards what was shown)")
    .addOption(new Option("--phase <phase>", "the agent's phase").choices(PHASES))
    .option("--budget-tokens <n>", "token budget of the block (default 1500)")
    .option("--max-cases <n>", "past cases at most (default 3)")
    .action(async (agentId: string, query: string | undefined, opts: PromptOptions, cmd: Command) => {
      const block = await client(cmd)
        .agent(agentId)
        .prompt({
          query,
          episodeId: opts.episode,
          phase: opts.phase,
          budgetTokens: optionalInteger(opts.budgetTokens, "--budget-tokens", { min: 16, max: 200_000 }),
          maxCases: optionalInteger(opts.maxCases, "--max-cases", { min: 0 }),
        });
      output(cmd, block, (b) => {
        if (b.prompt) console.log(b.prompt);
        console.error(
          `retrieval ${b.retrievalId}: ${b.experienceIds.length} lessons${b.exploredIds.length ? ` (${b.exploredIds.length} on probation, explored)` : ""}, ${b.caseIds.length} cases, ~${b.estimatedTokens} tokens (${b.mode})`,
        );
      });
    });
}
