import cliProgress from "cli-progress";
import type { Praxis } from "../../client/src/index.js";
import { unwrap } from "../../client/src/index.js";
import { cell, fixed, intervalText, table } from "./output.js";

export function runView(praxis: Praxis, agentId: string, runId: string) {
  return unwrap(praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: { path: { agentId, runId } } }));
}

export function learningCurve(praxis: Praxis, agentId: string, runId: string) {
  return unwrap(praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/curve", { params: { path: { agentId, runId } } }));
}

export type RunView = Awaited<ReturnType<typeof runView>>;
export type Curve = Awaited<ReturnType<typeof learningCurve>>;

/**
 * Live progress from the run's event stream until the run ends: on a terminal one bar for the
 * steps of the run and one for the current stage (rollouts done of the step's rollouts);
 * otherwise one line per step on stderr; nothing with `quiet` (--json).
 */
export async function follow(praxis: Praxis, agentId: string, runId: string, quiet: boolean): Promise<RunView> {
  const tty = process.stderr.isTTY && !quiet;
  let view = await runView(praxis, agentId, runId);
  const totalSteps = () => Math.max(1, (view.config.epochs ?? 1) * Math.max(1, view.progress.stepsPerEpoch));
  const bars = tty
    ? new cliProgress.MultiBar(
        { format: "{name} [{bar}] {value}/{total} {info}", hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const steps = bars?.create(totalSteps(), 0, { name: "steps ", info: "" });
  const stage = bars?.create(1, 0, { name: "stage ", info: "waiting" });
  let done = 0;
  try {
    for await (const e of praxis.agent(agentId).practiceEvents(runId)) {
      const d = e.data;
      if (e.type === "status" && d.status === "running") {
        view = await runView(praxis, agentId, runId);
        steps?.setTotal(totalSteps());
      } else if (e.type === "stage") {
        stage?.update(0, { info: `epoch ${cell(d.epoch)} step ${cell(d.step)}: ${cell(d.stage)}` });
        if (d.stage === "rollout" && typeof d.tasks === "number") stage?.setTotal(d.tasks * (view.config.groupSize ?? 1));
      } else if (e.type === "rollout" && typeof d.done === "number") {
        if (typeof d.total === "number") stage?.setTotal(d.total);
        stage?.update(d.done, { info: `epoch ${cell(d.epoch)} step ${cell(d.step)}: rollouts` });
      } else if (e.type === "step") {
        done++;
        const info = `reward ${fixed(typeof d.meanReward === "number" ? d.meanReward : null)}, library ${cell(d.librarySize)}`;
        steps?.update(done, { info });
        if (!tty && !quiet) console.error(`epoch ${cell(d.epoch)} step ${cell(d.step)}: ${info}, ${cell(d.changes)} changes`);
      } else if (e.type === "budget" && !tty && !quiet) console.error(`budget reached: ${cell(d.reason)}`);
    }
  } finally {
    bars?.stop();
  }
  return runView(praxis, agentId, runId);
}

export function printRun(v: RunView): void {
  console.log(`Run ${v.runId} (agent ${v.agentId}, dataset ${v.datasetId}): ${v.status}${v.error ? ` — ${v.error}` : ""}`);
  console.log(
    `  progress: epoch ${v.progress.epoch + 1}/${v.config.epochs}, step ${v.progress.step + 1}/${v.progress.stepsPerEpoch}${v.progress.stage ? `, ${v.progress.stage}` : ""}`,
  );
  console.log(
    `  library: ${v.librarySize} experiences; usage: ${v.usage.calls} LLM calls, ${v.usage.tokensIn + v.usage.tokensOut} tokens, $${v.usage.costUsd.toFixed(4)}`,
  );
  if (v.promotion)
    console.log(`  promotion: ${v.promotion.promoted ? `version ${v.promotion.version}` : "not promoted"} — ${v.promotion.reason}`);
}

export function printCurve(curve: Curve): void {
  if (curve.steps.length) {
    console.log("");
    table(
      curve.steps.map((s) => ({
        epoch: s.epoch,
        step: s.step,
        "train reward": fixed(s.trainReward),
        library: s.librarySize,
        tokens: s.tokens,
      })),
      ["epoch", "step", "train reward", "library", "tokens"],
    );
  }
  if (curve.epochs.length) {
    console.log("");
    table(
      curve.epochs.map((e) => ({
        epoch: e.epoch,
        split: e.split,
        round: e.round,
        accuracy: fixed(e.holdoutAccuracy),
        interval: intervalText(e.interval),
      })),
      ["epoch", "split", "round", "accuracy", "interval"],
    );
  }
}
