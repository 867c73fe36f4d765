import type { Command } from "commander";
import { unwrap, type Schemas } from "../../../client/src/index.js";
import { allPages, integer, optionalInteger, POSITIVE, SEED } from "../args.js";
import { client, globals } from "../config.js";
import { UnsuccessfulError } from "../errors.js";
import { follow, learningCurve, printCurve, printRun, runView } from "../follow.js";
import { output, table, when } from "../output.js";

interface StartOptions {
  dataset: string;
  epochs?: string;
  batchSize?: string;
  groupSize?: string;
  verifier?: string;
  model?: string;
  system?: string;
  concurrency?: string;
  maxTokens?: string;
  seed?: string;
  promote: boolean;
  follow?: boolean;
}

/** A run summary's promotion in a few words: the version it made, or that it made none. */
function promotionCell(promotion: unknown): string {
  if (!promotion || typeof promotion !== "object") return "";
  const p = promotion as { promoted?: boolean; version?: number | null };
  return p.promoted ? `v${p.version}` : "not promoted";
}

export function registerPractice(program: Command): void {
  const practice = program.command("practice").description("Practice runs (Training-Free GRPO)");
  practice
    .command("start <agentId>")
    .description("Start a practice run on a dataset")
    .requiredOption("--dataset <dataset>", "the dataset to practise on (id or name)")
    .option("--epochs <n>", "passes over the train split")
    .option("--batch-size <n>", "tasks per step")
    .option("--group-size <n>", "rollouts per task (2-16)")
    .option("--verifier <kind>", "exact, contains, regex, numeric, math, json, majority (default: the dataset's)")
    .option("--model <model>", "policy model (default: LLM_MODEL_POLICY)")
    .option("--system <prompt>", "the agent's own system prompt")
    .option("--concurrency <n>", "units in flight")
    .option("--max-tokens <n>", "token budget of the run")
    .option("--seed <n>", "seed for shuffling and sampling")
    .option("--no-promote", "keep the learned library in the run")
    .option("--follow", "show live progress until the run ends, then its learning curve")
    .action(async (agentId: string, opts: StartOptions, cmd: Command) => {
      const praxis = client(cmd);
      const body: Schemas["PracticeRunCreate"] = {
        datasetId: opts.dataset,
        epochs: optionalInteger(opts.epochs, "--epochs", POSITIVE),
        batchSize: optionalInteger(opts.batchSize, "--batch-size", POSITIVE),
        groupSize: optionalInteger(opts.groupSize, "--group-size", { min: 2, max: 16 }),
        concurrency: optionalInteger(opts.concurrency, "--concurrency", POSITIVE),
        seed: optionalInteger(opts.seed, "--seed", SEED),
        promote: opts.promote ? undefined : "never",
        budget: opts.maxTokens ? { maxTokens: integer(opts.maxTokens, "--max-tokens", POSITIVE) } : undefined,
        // The kind is checked by the API (a problem lists the kinds it takes).
        verifier: opts.verifier ? ({ kind: opts.verifier } as Schemas["PracticeRunCreate"]["verifier"]) : undefined,
        policy: { kind: "llm", model: opts.model, system: opts.system },
      };
      const started = await unwrap(praxis.api.POST("/v1/agents/{agentId}/practice-runs", { params: { path: { agentId } }, body }));
      if (!opts.follow)
        return output(cmd, started, (s) =>
          console.log(`Run ${s.runId} ${s.status}; follow it with: praxis practice show ${agentId} ${s.runId}`),
        );
      const quiet = Boolean(globals(cmd).json);
      if (!quiet) console.error(`Run ${started.runId} ${started.status}`);
      const view = await follow(praxis, agentId, started.runId, quiet);
      const curve = await learningCurve(praxis, agentId, started.runId);
      output(cmd, { run: view, curve }, () => {
        printRun(view);
        printCurve(curve);
      });
      if (view.status !== "completed")
        throw new UnsuccessfulError(`Run ${view.runId} ended ${view.status}${view.error ? `: ${view.error}` : ""}`);
    });
  practice
    .command("ls <agentId>")
    .description("The agent's practice runs, newest first: status, dataset, promotion")
    .action(async (agentId: string, _opts, cmd: Command) => {
      const api = client(cmd).api;
      const runs = await allPages((cursor) =>
        unwrap(api.GET("/v1/agents/{agentId}/practice-runs", { params: { path: { agentId }, query: { limit: 200, cursor } } })),
      );
      output(cmd, runs, (rows) =>
        table(
          rows.map((r) => ({ ...r, promotion: promotionCell(r.summary?.promotion), createdAt: when(r.createdAt) })),
          ["runId", "status", "datasetId", "promotion", "createdAt", "error"],
        ),
      );
    });
  practice
    .command("show <agentId> <runId>")
    .description("A run: status, progress, reward per step, usage, and its learning curve")
    .action(async (agentId: string, runId: string, _opts, cmd: Command) => {
      const praxis = client(cmd);
      const [view, curve] = await Promise.all([runView(praxis, agentId, runId), learningCurve(praxis, agentId, runId)]);
      output(cmd, { run: view, curve }, () => {
        printRun(view);
        printCurve(curve);
      });
    });
}
