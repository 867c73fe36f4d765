import { Option, type Command } from "commander";
import type { Schemas } from "../../../client/src/index.js";
import { optionalNumber } from "../args.js";
import { client } from "../config.js";
import { UsageError } from "../errors.js";
import { fixed, output, table } from "../output.js";

export const OUTCOMES = ["success", "failure", "partial", "timeout"] as const;

interface RewardOptions {
  retrieval?: string;
  episode?: string;
  memory?: string[];
  outcome?: (typeof OUTCOMES)[number];
  reward?: string;
  quality?: string;
  cite?: string[];
}

export function registerReward(program: Command): void {
  program
    .command("reward <agentId>")
    .description("Report how it went for what a retrieval (or an episode, or named memories) returned: Q ← Q + α(r − Q) for each")
    .option("--retrieval <retrievalId>", "the retrieval whose memories to reward")
    .option("--episode <episodeId>", "the episode whose retrievals to reward")
    .option("--memory <id...>", "these memories")
    .addOption(new Option("--outcome <outcome>", "success 1, failure -1, partial 0.3, timeout -0.5").choices(OUTCOMES))
    .option("--reward <r>", "an explicit reward in [-1, 1] instead of an outcome")
    .option("--quality <q>", "quality in [0, 1]; multiplies the reward")
    .option("--cite <idOrLabel...>", "the memories that actually helped (ids or labels such as G0)")
    .action(async (agentId: string, opts: RewardOptions, cmd: Command) => {
      if (!opts.retrieval && !opts.episode && !opts.memory) throw new UsageError("Say what to reward: --retrieval, --episode or --memory.");
      if (!opts.outcome && opts.reward === undefined) throw new UsageError("Say how it went: --outcome or --reward.");
      const body: Schemas["RewardRequest"] = {
        retrievalId: opts.retrieval,
        episodeId: opts.episode,
        memoryIds: opts.memory,
        outcome: opts.outcome,
        reward: optionalNumber(opts.reward, "--reward", { min: -1, max: 1 }),
        quality: optionalNumber(opts.quality, "--quality", { min: 0, max: 1 }),
        citedIds: opts.cite,
      };
      const r = await client(cmd).agent(agentId).reward(body);
      output(cmd, r, () => {
        const n = r.updated.length;
        console.log(
          `Reward ${r.reward} applied to ${n} ${n === 1 ? "memory" : "memories"}${r.replayed ? " (already applied before: nothing changed)" : ""}`,
        );
        if (n)
          table(
            r.updated.map((u) => ({ ...u, qBefore: fixed(u.qBefore), q: fixed(u.q), cited: u.cited ? "yes" : "" })),
            ["id", "kind", "qBefore", "q", "cited"],
          );
        if (r.uncited.length) console.log(`Not among the rewarded memories: ${r.uncited.join(", ")}`);
      });
    });
}
