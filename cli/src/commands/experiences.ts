import { Option, type Command } from "commander";
import { unwrap } from "../../../client/src/index.js";
import { allPages } from "../args.js";
import { client } from "../config.js";
import { fixed, output, table } from "../output.js";

export function registerExperiences(program: Command): void {
  const experiences = program.command("experiences").description("An agent's experiences (lessons)");
  experiences
    .command("ls <agentId>")
    .description("List experiences")
    .addOption(
      new Option("--status <status>", "which ones").choices(["active", "archived", "quarantined", "all"] as const).default("active"),
    )
    .option("--tag <tag>", "only with this tag")
    .option("--contains <text>", "only containing this text")
    .action(
      async (
        agentId: string,
        opts: { status: "active" | "archived" | "quarantined" | "all"; tag?: string; contains?: string },
        cmd: Command,
      ) => {
        const api = client(cmd).api;
        const query = { status: opts.status, tag: opts.tag, contains: opts.contains, limit: 200 };
        const items = await allPages((cursor) =>
          unwrap(api.GET("/v1/agents/{agentId}/experiences", { params: { path: { agentId }, query: { ...query, cursor } } })),
        );
        output(cmd, items, (rows) =>
          table(
            rows.map((e) => ({ ...e, q: fixed(e.q) })),
            ["label", "id", "q", "source", "status", "text"],
          ),
        );
      },
    );
  experiences
    .command("add <agentId> <text>")
    .description("Add an experience (a new library version)")
    .option("--tag <tag...>", "tags")
    .action(async (agentId: string, text: string, opts: { tag?: string[] }, cmd: Command) => {
      const r = await client(cmd).agent(agentId).addExperience({ text, tags: opts.tag });
      output(cmd, r, () => console.log(`Added ${r.id} in library version ${r.libraryVersion}`));
    });
  experiences
    .command("rm <agentId> <id>")
    .description("Delete an experience (a new library version; roll back to restore it)")
    .action(async (agentId: string, id: string, _opts, cmd: Command) => {
      const r = await unwrap(client(cmd).api.DELETE("/v1/agents/{agentId}/experiences/{id}", { params: { path: { agentId, id } } }));
      output(cmd, r, () => console.log(`Deleted ${r.deleted} in library version ${r.libraryVersion}`));
    });
}
