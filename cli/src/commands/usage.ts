import { Option, type Command } from "commander";
import { unwrap } from "../../../client/src/index.js";
import { client } from "../config.js";
import { output, table, when } from "../output.js";

type GroupBy = "day" | "model" | "purpose" | "agent" | "role";

export function registerUsage(program: Command): void {
  program
    .command("usage")
    .description("LLM usage and estimated cost")
    .addOption(new Option("--group-by <by>", "grouping").choices(["day", "model", "purpose", "agent", "role"] as const).default("day"))
    .option("--from <ms>", "from (epoch ms)")
    .option("--to <ms>", "to (epoch ms)")
    .action(async (opts: { groupBy: GroupBy; from?: string; to?: string }, cmd: Command) => {
      const query = { groupBy: opts.groupBy, from: opts.from, to: opts.to };
      const u = await unwrap(client(cmd).api.GET("/v1/usage", { params: { query } }));
      output(cmd, u, () => {
        console.log(
          `${when(u.from)} – ${when(u.to)}: ${u.totals.calls} calls, ${u.totals.tokensIn} tokens in, ${u.totals.tokensOut} out, $${u.totals.costUsd.toFixed(4)}`,
        );
        table(u.groups, ["key", "calls", "tokensIn", "tokensOut", "costUsd"]);
      });
    });
}
