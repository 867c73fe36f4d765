import { Option, type Command } from "commander";
import { unwrap, type Praxis, type Schemas } from "../../../client/src/index.js";
import { allPages, optionalNumber, readInput } from "../args.js";
import { client } from "../config.js";
import { UsageError } from "../errors.js";
import { fixed, output, table, when } from "../output.js";
import { OUTCOMES } from "./reward.js";

/** An episode can also end `abandoned`: the work stopped for a reason outside the task, and nothing learns from it. */
const EPISODE_OUTCOMES = [...OUTCOMES, "abandoned"] as const;

type Metadata = NonNullable<Schemas["EpisodeCreate"]["metadata"]>;

/** `key=value` pairs; values that read as numbers or booleans are sent as such. */
function metadata(pairs: string[] | undefined): Metadata | undefined {
  if (!pairs?.length) return undefined;
  const out: Metadata = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new UsageError(`--meta takes key=value, not '${pair}'.`);
    const raw = pair.slice(eq + 1);
    out[pair.slice(0, eq)] =
      raw === "true" ? true : raw === "false" ? false : raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  }
  return out;
}

/** A value given inline, or read from a file with `@file` (`@-` reads stdin). */
const textArg = (value: string | undefined): string | undefined => (value?.startsWith("@") ? readInput(value.slice(1)) : value);

function getEpisode(praxis: Praxis, agentId: string, id: string): Promise<Schemas["Episode"]> {
  return unwrap(praxis.api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { agentId, id } } }));
}

function extractionLine(r: NonNullable<Schemas["Episode"]["result"]>): string {
  if (r.extraction === "not-needed") return "not needed";
  const taught = r.taught
    ? `: ${r.taught.lessonIds.length ? `lesson ${r.taught.lessonIds.join(", ")}` : "nothing learned"}${r.taught.reason ? ` (${r.taught.reason})` : ""}`
    : "";
  return `${r.extraction} (job ${r.jobId})${taught}`;
}

function printEpisode(e: Schemas["Episode"]): void {
  console.log(`Episode ${e.id}: ${e.status}${e.outcome ? `, ${e.outcome}` : ""}${e.score !== null ? ` (score ${e.score})` : ""}`);
  console.log(`  task: ${e.task}`);
  if (e.answer) console.log(`  answer: ${e.answer}`);
  if (e.result) {
    const rewarded = e.result.rewarded.map((m) => `${m.id} → ${fixed(m.q)}`).join(", ");
    console.log(`  reward ${e.result.reward}; rewarded: ${rewarded || "nothing"}`);
    const c = e.result.case;
    const held = c && c.status !== "active" ? ` (${c.status}${c.reason ? `: ${c.reason}` : ""})` : "";
    console.log(`  case: ${e.result.caseId ?? "none"}${held}; lesson extraction ${extractionLine(e.result)}`);
  }
  if (e.attempts.length) {
    console.log("");
    table(
      e.attempts.map((a) => ({ ...a, ok: a.ok ? "ok" : "failed", at: when(a.at), toolCalls: a.toolCalls.join(", ") })),
      ["n", "ok", "description", "error", "toolCalls", "at"],
    );
  }
}

export function registerEpisode(program: Command): void {
  const episode = program
    .command("episode")
    .description("Episodes: one task the agent works on, its attempts and its outcome (start → prompt --episode → attempt … → end)");

  episode
    .command("start <agentId> <task>")
    .description("Start an episode; prints its id")
    .option("--meta <key=value...>", "metadata")
    .action(async (agentId: string, task: string, opts: { meta?: string[] }, cmd: Command) => {
      const body = { task, metadata: metadata(opts.meta) };
      const e = await unwrap(client(cmd).api.POST("/v1/agents/{agentId}/episodes", { params: { path: { agentId } }, body }));
      output(cmd, e, () => console.log(e.episodeId));
    });

  episode
    .command("attempt <agentId> <episodeId> <description>")
    .description("Log an attempt (ok unless --failed or --error)")
    .option("--failed", "the attempt failed")
    .option("--error <text>", "what went wrong (a stack trace is digested, secrets redacted); @file reads a file")
    .option("--tool <name...>", "tools the attempt called")
    .action(
      async (
        agentId: string,
        episodeId: string,
        description: string,
        opts: { failed?: boolean; error?: string; tool?: string[] },
        cmd: Command,
      ) => {
        const error = textArg(opts.error);
        const body: Schemas["AttemptCreate"] = {
          description,
          ok: !opts.failed && error === undefined,
          error,
          toolCalls: opts.tool?.map((name) => ({ name })),
        };
        const a = await unwrap(
          client(cmd).api.POST("/v1/agents/{agentId}/episodes/{id}/attempts", { params: { path: { agentId, id: episodeId } }, body }),
        );
        output(cmd, a, () => console.log(`Attempt ${a.n} ${a.ok ? "ok" : "failed"}${a.error ? `: ${a.error}` : ""}`));
      },
    );

  episode
    .command("end <agentId> <episodeId>")
    .description("End an episode: rewards what it retrieved (cited memories most), stores a case, learns lessons from mixed outcomes")
    .addOption(
      new Option("--outcome <outcome>", "how it went; abandoned: stopped for a reason outside the task, nothing learns")
        .choices(EPISODE_OUTCOMES)
        .makeOptionMandatory(),
    )
    .option("--score <q>", "quality in [0, 1]; multiplies the reward")
    .option("--answer <text>", "the agent's answer; @file reads a file")
    .option("--cite <idOrLabel...>", "memories that helped (ids or labels such as G0); [G#] labels in the answer count too")
    .action(
      async (
        agentId: string,
        episodeId: string,
        opts: { outcome: (typeof EPISODE_OUTCOMES)[number]; score?: string; answer?: string; cite?: string[] },
        cmd: Command,
      ) => {
        const body: Schemas["EpisodeEnd"] = {
          outcome: opts.outcome,
          score: optionalNumber(opts.score, "--score", { min: 0, max: 1 }),
          answer: textArg(opts.answer),
          citedIds: opts.cite,
        };
        const e = await unwrap(
          client(cmd).api.POST("/v1/agents/{agentId}/episodes/{id}/end", { params: { path: { agentId, id: episodeId } }, body }),
        );
        output(cmd, e, printEpisode);
      },
    );

  episode
    .command("show <agentId> <episodeId>")
    .description("An episode with its attempts and result")
    .action(async (agentId: string, episodeId: string, _opts, cmd: Command) => {
      output(cmd, await getEpisode(client(cmd), agentId, episodeId), printEpisode);
    });

  episode
    .command("ls <agentId>")
    .description("Episodes, newest first")
    .addOption(new Option("--status <status>", "only open or ended ones").choices(["open", "ended"] as const))
    .action(async (agentId: string, opts: { status?: "open" | "ended" }, cmd: Command) => {
      const api = client(cmd).api;
      const items = await allPages((cursor) =>
        unwrap(
          api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId }, query: { limit: 200, cursor, status: opts.status } } }),
        ),
      );
      output(cmd, items, (rows) =>
        table(
          rows.map((e) => ({ ...e, outcome: e.outcome ?? "", createdAt: when(e.createdAt) })),
          ["id", "status", "outcome", "task", "createdAt"],
        ),
      );
    });
}
