import type { Command } from "commander";
import { unwrap } from "../../../client/src/index.js";
import { allPages, optionalInteger, optionalNumber, POSITIVE } from "../args.js";
import { client } from "../config.js";
import { fixed, output, table, when } from "../output.js";

/** Shared libraries (`praxis libraries …`) and an agent's subscriptions to them (`praxis subscribe …`). */
export function registerLibraries(program: Command): void {
  const libraries = program
    .command("libraries")
    .description("Shared libraries: lessons several agents draw on, each learning its own Q for them");
  libraries
    .command("ls")
    .description("List the tenant's shared libraries")
    .action(async (_opts, cmd: Command) => {
      const api = client(cmd).api;
      const items = await allPages((cursor) => unwrap(api.GET("/v1/libraries", { params: { query: { limit: 200, cursor } } })));
      output(cmd, items, (rows) =>
        table(
          rows.map((l) => ({ ...l, createdAt: when(l.createdAt) })),
          ["libraryId", "name", "createdAt", "description"],
        ),
      );
    });
  libraries
    .command("create <name>")
    .description("Create a shared library (prints its libraryId)")
    .option("--description <text>", "what it holds")
    .action(async (name: string, opts: { description?: string }, cmd: Command) => {
      const l = await unwrap(client(cmd).api.POST("/v1/libraries", { body: { name, description: opts.description } }));
      output(cmd, l, () => console.log(l.libraryId));
    });
  libraries
    .command("show <libraryId>")
    .description("A library: its version, subscriber count and active lessons")
    .action(async (libraryId: string, _opts, cmd: Command) => {
      const api = client(cmd).api;
      const path = { libraryId };
      const library = await unwrap(api.GET("/v1/libraries/{libraryId}", { params: { path } }));
      const lessons = await allPages((cursor) =>
        unwrap(api.GET("/v1/libraries/{libraryId}/experiences", { params: { path, query: { limit: 200, cursor } } })),
      );
      output(cmd, { ...library, experiences: lessons }, () => {
        console.log(
          `${library.libraryId}  ${library.name}  version ${library.libraryVersion ?? 0}, ${library.subscribers ?? 0} subscriber(s)`,
        );
        if (library.description) console.log(library.description);
        table(lessons, ["id", "source", "status", "text"]);
      });
    });
  libraries
    .command("add <libraryId> <text>")
    .description("Add a lesson to the library (screened like an agent's; a new library version)")
    .option("--tag <tag...>", "tags")
    .action(async (libraryId: string, text: string, opts: { tag?: string[] }, cmd: Command) => {
      const r = await unwrap(
        client(cmd).api.POST("/v1/libraries/{libraryId}/experiences", { params: { path: { libraryId } }, body: { text, tags: opts.tag } }),
      );
      output(cmd, r, () => console.log(`Added ${r.id} (${r.status}) in library version ${r.libraryVersion}`));
    });
  libraries
    .command("share <agentId> <experienceId> <libraryId>")
    .description("Copy one of an agent's lessons into a shared library (through the library's screening)")
    .action(async (agentId: string, id: string, libraryId: string, _opts, cmd: Command) => {
      const r = await unwrap(
        client(cmd).api.POST("/v1/agents/{agentId}/experiences/{id}/share", { params: { path: { agentId, id } }, body: { libraryId } }),
      );
      output(cmd, r, () => console.log(`Shared ${id} into ${libraryId} as ${r.id} (${r.status}) in library version ${r.libraryVersion}`));
    });
  libraries
    .command("subscribers <libraryId>")
    .description("The subscribing agents and each one's own Q for the library's lessons")
    .action(async (libraryId: string, _opts, cmd: Command) => {
      const api = client(cmd).api;
      const items = await allPages((cursor) =>
        unwrap(api.GET("/v1/libraries/{libraryId}/subscribers", { params: { path: { libraryId }, query: { limit: 200, cursor } } })),
      );
      const rows = items.flatMap((s) =>
        s.lessons.length
          ? s.lessons.map((l) => ({
              agentId: s.agentId,
              weight: s.weight,
              pin: s.pinVersion ?? "latest",
              lesson: l.id,
              q: fixed(l.q),
              retrieved: l.retrieved,
              successes: l.successes,
              failures: l.failures,
            }))
          : [{ agentId: s.agentId, weight: s.weight, pin: s.pinVersion ?? "latest" }],
      );
      output(cmd, items, () => table(rows, ["agentId", "weight", "pin", "lesson", "q", "retrieved", "successes", "failures"]));
    });
  libraries
    .command("rm <libraryId>")
    .description("Delete a shared library (admin key); every subscriber stops drawing on it")
    .action(async (libraryId: string, _opts, cmd: Command) => {
      const r = await unwrap(client(cmd).api.DELETE("/v1/libraries/{libraryId}", { params: { path: { libraryId } } }));
      output(cmd, r, () => console.log(`Deleted library ${libraryId}`));
    });

  program
    .command("subscribe <agentId> <libraryId>")
    .description("Let an agent draw on a shared library's lessons beside its own (again: change the weight)")
    .option("--weight <w>", "how much the library's lessons count beside the agent's own (0.05-1, default 1)")
    .option("--pin <version>", "draw on the library as it stood after this version (default: its latest)")
    .action(async (agentId: string, libraryId: string, opts: { weight?: string; pin?: string }, cmd: Command) => {
      const body = {
        weight: optionalNumber(opts.weight, "--weight", { min: 0.05, max: 1 }),
        pinVersion: optionalInteger(opts.pin, "--pin", POSITIVE),
      };
      const s = await unwrap(
        client(cmd).api.PUT("/v1/agents/{agentId}/subscriptions/{libraryId}", { params: { path: { agentId, libraryId } }, body }),
      );
      output(cmd, s, () =>
        console.log(
          `${agentId} draws on ${libraryId}${s.pinVersion === null ? "" : ` as of version ${s.pinVersion}`} (weight ${s.weight})`,
        ),
      );
    });
  program
    .command("unsubscribe <agentId> <libraryId>")
    .description("Stop an agent drawing on a shared library (its own Q for the library's lessons is forgotten)")
    .action(async (agentId: string, libraryId: string, _opts, cmd: Command) => {
      const r = await unwrap(
        client(cmd).api.DELETE("/v1/agents/{agentId}/subscriptions/{libraryId}", { params: { path: { agentId, libraryId } } }),
      );
      output(cmd, r, () => console.log(`${agentId} no longer draws on ${libraryId}`));
    });
  program
    .command("subscriptions <agentId>")
    .description("The shared libraries an agent draws on")
    .action(async (agentId: string, _opts, cmd: Command) => {
      const r = await unwrap(client(cmd).api.GET("/v1/agents/{agentId}/subscriptions", { params: { path: { agentId } } }));
      output(cmd, r.items, (rows) =>
        table(
          rows.map((s) => ({ ...s, pinVersion: s.pinVersion ?? "latest", createdAt: when(s.createdAt) })),
          ["libraryId", "weight", "pinVersion", "createdAt"],
        ),
      );
    });
}
