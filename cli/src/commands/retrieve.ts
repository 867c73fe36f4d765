import { Option, type Command } from "commander";
import type { Schemas } from "../../../client/src/index.js";
import { optionalInteger, optionalNumber } from "../args.js";
import { client } from "../config.js";
import { fixed, output, table } from "../output.js";

export const PHASES = ["observation", "reasoning", "planning", "action", "reflection"] as const;
export type Phase = (typeof PHASES)[number];

interface RetrieveOptions {
  phase?: Phase;
  lambda?: string;
  k?: string;
  k1?: string;
  threshold?: string;
  kind?: ("experience" | "case")[];
  tag?: string[];
  episode?: string;
}

export function registerRetrieve(program: Command): void {
  program
    .command("retrieve <agentId> <query>")
    .description(
      "The memories (lessons and past cases) most useful for QUERY, ranked by relevance and learned utility; reward them by the retrieval id",
    )
    .addOption(new Option("--phase <phase>", "the agent's phase (sets the utility weight λ)").choices(PHASES))
    .option("--lambda <λ>", "weight of utility (Q) against relevance, 0-1")
    .option("--k <n>", "how many to return (k2, default 5)")
    .option("--k1 <n>", "candidates kept after the relevance filter (default 20)")
    .option("--threshold <sim>", "similarity a candidate needs")
    .addOption(new Option("--kind <kind...>", "only these kinds").choices(["experience", "case"] as const))
    .option("--tag <tag...>", "only memories with one of these tags")
    .option("--episode <episodeId>", "the episode this retrieval serves (its end rewards what was retrieved)")
    .action(async (agentId: string, query: string, opts: RetrieveOptions, cmd: Command) => {
      const body: Schemas["RetrieveRequest"] = {
        query,
        phase: opts.phase,
        lambda: optionalNumber(opts.lambda, "--lambda", { min: 0, max: 1 }),
        k2: optionalInteger(opts.k, "--k", { min: 1, max: 100 }),
        k1: optionalInteger(opts.k1, "--k1", { min: 1, max: 500 }),
        threshold: optionalNumber(opts.threshold, "--threshold", { min: -1, max: 1 }),
        kinds: opts.kind,
        tags: opts.tag,
        episodeId: opts.episode,
      };
      const r = await client(cmd).agent(agentId).retrieve(body);
      output(cmd, r, () => {
        table(
          r.items.map((i) => ({ ...i, label: i.label ?? "", score: fixed(i.score), q: fixed(i.q), relevance: fixed(i.relevance) })),
          ["label", "kind", "id", "score", "relevance", "q", "match", "text"],
        );
        console.log(
          `\nretrieval ${r.retrievalId}: ${r.items.length} of ${r.candidates} candidates, λ ${r.lambda}${r.phase ? ` (${r.phase})` : ""}`,
        );
        console.log(`reward it with: praxis reward ${agentId} --retrieval ${r.retrievalId} --outcome success|failure|partial|timeout`);
      });
    });
}
