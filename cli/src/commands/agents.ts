import type { Command } from "commander";
import { unwrap } from "../../../client/src/index.js";
import { allPages } from "../args.js";
import { client } from "../config.js";
import { output, table, when } from "../output.js";

export function registerAgents(program: Command): void {
  const agents = program.command("agents").description("Agents of the tenant");
  agents
    .command("ls")
    .description("List agents")
    .action(async (_opts, cmd: Command) => {
      const api = client(cmd).api;
      const items = await allPages((cursor) => unwrap(api.GET("/v1/agents", { params: { query: { limit: 200, cursor } } })));
      output(cmd, items, (rows) =>
        table(
          rows.map((a) => ({ ...a, createdAt: when(a.createdAt) })),
          ["agentId", "displayName", "createdAt"],
        ),
      );
    });
  agents
    .command("create <agentId>")
    .description("Create an agent (or rename it)")
    .option("--name <displayName>", "display name")
    .action(async (agentId: string, opts: { name?: string }, cmd: Command) => {
      const a = await client(cmd).agent(agentId).ensure(opts.name);
      output(cmd, a, () => console.log(`Agent ${a.agentId}${a.displayName ? ` (${a.displayName})` : ""}`));
    });
  agents
    .command("rm <agentId>")
    .description("Delete an agent and erase its memory")
    .action(async (agentId: string, _opts, cmd: Command) => {
      const r = await unwrap(client(cmd).api.DELETE("/v1/agents/{agentId}", { params: { path: { agentId } } }));
      output(cmd, r, () => console.log(`Deleted agent ${agentId}`));
    });
}
