import type { Stage } from "./run-types";

/** The stages that are work units sent through the queue (the apply stage runs in the DO). */
export type UnitStage = Exclude<Stage, "apply">;

/**
 * One unit of practice work: (epoch, step, task, rollout, stage). Group-level units (summary,
 * advantage) have no rollout and the step's batch update has no task either. The key is the
 * idempotency key of the unit: results are stored under it, so a redelivered message is a no-op.
 */
export interface UnitRef {
  epoch: number;
  step: number;
  task: number | null;
  rollout: number | null;
  stage: UnitStage;
}

export function unitKey(u: UnitRef): string {
  return [`e${u.epoch}`, `s${u.step}`, u.task === null ? "t*" : `t${u.task}`, u.rollout === null ? "r*" : `r${u.rollout}`, u.stage].join(
    ".",
  );
}

const KEY_RE = /^e(\d+)\.s(\d+)\.t(\d+|\*)\.r(\d+|\*)\.(rollout|verify|summary|advantage|hindsight|batch)$/;

export function parseUnitKey(key: string): UnitRef | null {
  const m = KEY_RE.exec(key);
  if (!m) return null;
  return {
    epoch: Number(m[1]),
    step: Number(m[2]),
    task: m[3] === "*" ? null : Number(m[3]),
    rollout: m[4] === "*" ? null : Number(m[4]),
    stage: m[5] as UnitStage,
  };
}

/**
 * The public id of a rollout, as a webhook policy sees it: the run id, the unit key and the
 * dispatch's random id (so ids cannot be guessed), letting the result route find the run without a
 * lookup table. A rollout the service runs itself (an `llm` policy) has no dispatch id.
 */
export const rolloutIdOf = (runId: string, key: string, dispatchId: string | null) =>
  `${runId}.${key.replace(/\.rollout$/, "")}${dispatchId ? `.${dispatchId}` : ""}`;

const DISPATCH_ID_RE = /^[A-Za-z0-9_-]{16,64}$/;

export function parseRolloutId(rolloutId: string): { runId: string; key: string; dispatchId: string } | null {
  const first = rolloutId.indexOf(".");
  const last = rolloutId.lastIndexOf(".");
  if (first <= 0 || last <= first) return null;
  const dispatchId = rolloutId.slice(last + 1);
  if (!DISPATCH_ID_RE.test(dispatchId)) return null;
  const key = `${rolloutId.slice(first + 1, last)}.rollout`;
  const ref = parseUnitKey(key);
  if (!ref || ref.task === null || ref.rollout === null) return null;
  return { runId: rolloutId.slice(0, first), key, dispatchId };
}
