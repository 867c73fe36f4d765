// `praxis`: the command line for a Praxis Worker, over the typed client in client/src (one HTTP
// layer: retries, Idempotency-Keys and problem errors come from there; an API shape change fails
// the CLI's type-check). One module per command group under commands/.
import { Command, CommanderError } from "commander";
import { PraxisConnectionError, PraxisError } from "../../client/src/index.js";
import { registerAgents } from "./commands/agents.js";
import { registerDatasets } from "./commands/datasets.js";
import { registerEpisode } from "./commands/episode.js";
import { registerEval } from "./commands/eval.js";
import { registerExperiences } from "./commands/experiences.js";
import { registerLibrary } from "./commands/library.js";
import { registerLibraries } from "./commands/libraries.js";
import { registerLogin } from "./commands/login.js";
import { registerPractice } from "./commands/practice.js";
import { registerPrompt } from "./commands/prompt.js";
import { registerRetrieve } from "./commands/retrieve.js";
import { registerReward } from "./commands/reward.js";
import { registerTenants } from "./commands/tenants.js";
import { registerUsage } from "./commands/usage.js";
import { UnsuccessfulError, UsageError } from "./errors.js";
import { saveVersions } from "./session.js";
import pkg from "../../package.json";

/** Exit codes scripts can rely on (also in `praxis --help`). */
const EXIT = { ok: 0, api: 1, usage: 2, network: 3, unsuccessful: 4 } as const;
const EXIT_HELP = `
The core loop of an agent:
  praxis episode start bot "the task"            → prints EPISODE_ID
  praxis prompt bot --episode EPISODE_ID         → lessons and past cases to put in the prompt
  praxis episode attempt bot EPISODE_ID "what was tried" [--error "…"]
  praxis episode end bot EPISODE_ID --outcome success --answer "…" --cite G0

Exit codes:
  0  success
  1  the API answered an error (a problem: status, type and detail on stderr)
  2  usage error (bad arguments, no URL or key configured)
  3  the API could not be reached
  4  a practice run or evaluation ended without success (failed, cancelled, budget-exhausted)

URL and key come from --url/--key, else PRAXIS_URL/PRAXIS_API_KEY, else \`praxis login\`.
Reads see this CLI's own earlier writes: the library version each write made is kept per agent in
the config file (PRAXIS_READ_YOUR_WRITES=0 turns that off).`;

const program = new Command("praxis")
  .description(
    "Command line for a Praxis Worker: agents, the core loop (retrieve, prompt, episodes, rewards), experiences, the library, shared libraries, datasets, practice runs, evaluations, usage.",
  )
  .option("--url <url>", "API base URL (env PRAXIS_URL)")
  .option("--key <key>", "API key (env PRAXIS_API_KEY)")
  .option("--json", "print the API's JSON instead of tables (for scripts)")
  .version(pkg.version, "-V, --version")
  .addHelpText("after", EXIT_HELP)
  .showHelpAfterError("(run with --help for usage)");

for (const register of [
  registerLogin,
  registerTenants,
  registerAgents,
  registerRetrieve,
  registerPrompt,
  registerEpisode,
  registerReward,
  registerExperiences,
  registerLibrary,
  registerLibraries,
  registerDatasets,
  registerPractice,
  registerEval,
  registerUsage,
]) {
  register(program);
}

function fail(err: unknown): number {
  const json = process.argv.includes("--json");
  if (err instanceof PraxisError) {
    if (json) console.log(JSON.stringify({ error: err.problem, status: err.status }, null, 2));
    console.error(`praxis: ${err.toString()}`);
    return EXIT.api;
  }
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (err instanceof UsageError || err instanceof PraxisConnectionError) {
    console.error(`praxis: ${err.message}`);
    return err instanceof UsageError ? EXIT.usage : EXIT.network;
  }
  if (err instanceof UnsuccessfulError) {
    console.error(`praxis: ${err.message}`);
    return EXIT.unsuccessful;
  }
  console.error(`praxis: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return EXIT.api;
}

/** Arguments and options naming something by id (or a dataset by id or name): blank is never one. */
const NAMES_SOMETHING = /<(?:\w*Id|id\w*|dataset)(?:\.\.\.)?>/;

/**
 * A blank id (`praxis practice show bot ''`, an unset shell variable) is a mistake in the command,
 * not a name the API should look up: it is refused before any request, as a usage error. Blank
 * text (a lesson, a task) is the API's to judge, with the field it names.
 */
program.hook("preAction", (_program, action) => {
  const blank = (v: unknown) => typeof v === "string" && !v.trim();
  action.registeredArguments.forEach((arg, i) => {
    if (!NAMES_SOMETHING.test(`<${arg.name()}>`)) return;
    const value = action.processedArgs[i] as unknown;
    if (blank(value) || (Array.isArray(value) && value.some(blank))) {
      throw new UsageError(`<${arg.name()}> must not be empty.\nUsage: ${commandPath(action)} ${action.usage()}`);
    }
  });
  for (const option of action.options) {
    if (!NAMES_SOMETHING.test(option.flags)) continue;
    const value = action.getOptionValue(option.attributeName()) as unknown;
    if (blank(value) || (Array.isArray(value) && value.some(blank))) {
      throw new UsageError(`${option.long ?? option.flags} must not be empty.\nUsage: ${commandPath(action)} ${action.usage()}`);
    }
  }
});

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Commander exits the process itself on usage errors unless every (sub)command overrides it. */
function overrideExits(cmd: Command): void {
  cmd.exitOverride();
  for (const sub of cmd.commands) overrideExits(sub);
}
overrideExits(program);

try {
  await program.parseAsync(process.argv);
  process.exitCode = EXIT.ok;
} catch (err) {
  process.exitCode = fail(err);
} finally {
  try {
    saveVersions();
  } catch (err) {
    // The command did what it was asked; only the next one's reads may lag its writes.
    console.error(`praxis: could not save library versions: ${err instanceof Error ? err.message : String(err)}`);
  }
}
