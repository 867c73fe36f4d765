import { Option, type Command } from "commander";
import { unwrap, type Schemas } from "../../../client/src/index.js";
import { integer, optionalInteger, SEED } from "../args.js";
import { client } from "../config.js";
import { UnsuccessfulError } from "../errors.js";
import { fixed, intervalText, output } from "../output.js";

const POLL_MS = 2000;

interface EvalOptions {
  dataset: string;
  split: "train" | "holdout";
  samples?: string;
  version?: string;
  run?: string;
  model?: string;
  verifier?: string;
  seed?: string;
  wait: boolean;
}

export function registerEval(program: Command): void {
  program
    .command("eval <agentId>")
    .description("Evaluate the agent's library on a dataset split; waits and prints accuracy with its 95% interval")
    .requiredOption("--dataset <dataset>", "the dataset (id or name)")
    .addOption(new Option("--split <split>", "which tasks").choices(["train", "holdout"] as const).default("holdout"))
    .option("--samples <n>", "policy calls per task (1-8)")
    .option("--version <n>", "library version to evaluate (0: no lessons); default the active library")
    .option("--run <runId>", "a practice run's library instead")
    .option("--model <model>", "policy model")
    .option("--verifier <kind>", "verifier kind (default: the dataset's)")
    .option("--seed <n>", "seed")
    .option("--no-wait", "print the evaluation id and return")
    .action(async (agentId: string, opts: EvalOptions, cmd: Command) => {
      const praxis = client(cmd);
      const body: Schemas["EvaluationCreate"] = {
        datasetId: opts.dataset,
        split: opts.split,
        samples: optionalInteger(opts.samples, "--samples", { min: 1, max: 8 }),
        seed: optionalInteger(opts.seed, "--seed", SEED),
        library: opts.run
          ? { runId: opts.run }
          : opts.version !== undefined
            ? { version: integer(opts.version, "--version", { min: 0 }) }
            : undefined,
        policy: { kind: "llm", model: opts.model },
        verifier: opts.verifier ? ({ kind: opts.verifier } as Schemas["EvaluationCreate"]["verifier"]) : undefined,
      };
      const { evaluationId } = await unwrap(praxis.api.POST("/v1/agents/{agentId}/evaluations", { params: { path: { agentId } }, body }));
      if (!opts.wait) return output(cmd, { evaluationId }, () => console.log(evaluationId));
      const get = () =>
        unwrap(praxis.api.GET("/v1/agents/{agentId}/evaluations/{evaluationId}", { params: { path: { agentId, evaluationId } } }));
      let ev = await get();
      while (ev.status === "queued" || ev.status === "running") {
        await new Promise((r) => setTimeout(r, POLL_MS));
        ev = await get();
      }
      output(cmd, ev, (e) =>
        console.log(
          `Evaluation ${e.evaluationId}: ${e.status}${e.status === "completed" ? ` — accuracy ${fixed(e.accuracy)} (95% interval ${intervalText(e.interval)})` : ""}`,
        ),
      );
      if (ev.status !== "completed") throw new UnsuccessfulError(`Evaluation ${ev.evaluationId} ${ev.status}`);
    });
}
