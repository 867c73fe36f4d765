import { Option, type Command } from "commander";
import { unwrap } from "../../../client/src/index.js";
import { allPages, integer, readInput } from "../args.js";
import { client } from "../config.js";
import { UsageError } from "../errors.js";
import { output, table, when } from "../output.js";

export function registerLibrary(program: Command): void {
  const library = program.command("library").description("An agent's library versions");
  library
    .command("versions <agentId>")
    .description("Library versions, newest first")
    .action(async (agentId: string, _opts, cmd: Command) => {
      const api = client(cmd).api;
      const items = await allPages((cursor) =>
        unwrap(
          api.GET("/v1/agents/{agentId}/library/versions", {
            params: { path: { agentId }, query: { limit: 200, cursor: cursor === undefined ? undefined : Number(cursor) } },
          }),
        ),
      );
      output(cmd, items, (rows) =>
        table(
          rows.map((v) => ({ ...v, createdAt: when(v.createdAt) })),
          ["version", "changes", "author", "createdAt", "reason"],
        ),
      );
    });
  library
    .command("diff <agentId> <n>")
    .description("What version n changed")
    .action(async (agentId: string, n: string, _opts, cmd: Command) => {
      const d = await unwrap(
        client(cmd).api.GET("/v1/agents/{agentId}/library/versions/{n}/diff", {
          params: { path: { agentId, n: integer(n, "<n>", { min: 0 }) } },
        }),
      );
      output(cmd, d, () => {
        console.log(`Version ${d.version} by ${d.author}: ${d.reason}`);
        for (const c of d.diff) {
          if (c.before && c.after && c.before.text !== c.after.text)
            console.log(`${c.op.padEnd(7)} ${c.id}\n  - ${c.before.text}\n  + ${c.after.text}`);
          else console.log(`${c.op.padEnd(7)} ${c.id}  ${(c.after ?? c.before)?.text ?? ""}`);
        }
      });
    });
  library
    .command("rollback <agentId> <n>")
    .description("Restore the library of version n (recorded as a new version)")
    .action(async (agentId: string, n: string, _opts, cmd: Command) => {
      const r = await unwrap(
        client(cmd).api.POST("/v1/agents/{agentId}/library/rollback", {
          params: { path: { agentId } },
          body: { version: integer(n, "<n>", { min: 0 }) },
        }),
      );
      output(cmd, r, () =>
        console.log(
          r.unchanged ? `Already at version ${n}'s library` : `Rolled back to version ${n}'s library as version ${r.libraryVersion}`,
        ),
      );
    });
  library
    .command("export <agentId>")
    .description("Print the library as JSON (praxis library export bot > lib.json)")
    .action(async (agentId: string, _opts, cmd: Command) => {
      const r = await unwrap(client(cmd).api.GET("/v1/agents/{agentId}/library/export", { params: { path: { agentId } } }));
      console.log(JSON.stringify(r, null, 2));
    });
  library
    .command("import <agentId> <file>")
    .description("Import an export ('-' reads stdin)")
    .addOption(
      new Option("--mode <mode>", "merge adds unseen experiences; replace makes the library equal to the file")
        .choices(["merge", "replace"] as const)
        .default("merge"),
    )
    .action(async (agentId: string, file: string, opts: { mode: "merge" | "replace" }, cmd: Command) => {
      const text = readInput(file);
      let exported: unknown;
      try {
        exported = JSON.parse(text);
      } catch (err) {
        throw new UsageError(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
      }
      // The API validates the export's shape and answers a problem naming the fields at fault.
      const body = { mode: opts.mode, library: exported as never };
      const r = await unwrap(client(cmd).api.POST("/v1/agents/{agentId}/library/import", { params: { path: { agentId } }, body }));
      output(cmd, r, () =>
        console.log(
          r.unchanged ? "Nothing to import" : `Imported as library version ${r.libraryVersion}: ${r.changed} changed, ${r.deleted} deleted`,
        ),
      );
    });
}
