import { and, eq, lte } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../db/client";
import { remedialClaims } from "../db/schema";
import { sha256Hex } from "../core/api-key";
import { remedialTasks, remedialVerdict } from "../core/practice/remedial";
import { RunCreateSchema } from "../core/practice/run-types";
import { VerifierSchema } from "../core/verifiers/schema";
import { LlmLedger } from "../llm/ledger";
import { llmConfigured } from "../llm";
import { DomainError, outcome } from "../core/errors";
import { requireSystem } from "../core/principal";
import type { Caller, Deps } from "../platform/deps";
import { resilientMemory } from "../platform/objects/agent-access";
import { replaceDataset } from "./datasets";
import { admitQueuedRuns, createRun, keyedRunId } from "../platform/practice/runs";

const HOUR = 3_600_000;
/**
 * A due trigger held back by the agent's other run or a spent budget is checked again after this
 * (a delayed queue message): the agent asks only when episodes end, and an idle agent would not.
 */
export const REMEDIAL_RECHECK_SECONDS = 30 * 60;
/** Runs a trigger may try when setting one up fails (the run is then `failed` and a retry needs a new one). */
const SETUP_ATTEMPTS = 3;
const ACTIVE = new Set(["creating", "queued", "running"]);

/** A run whose setup failed (practice.ts marks it so), which spends no trigger. */
const failedSetup = (run: { status: string; error: string | null } | undefined) =>
  run?.status === "failed" && (run.error ?? "").startsWith("setting up the run");

export type RemedialOutcome =
  | { outcome: "off" }
  | { outcome: "not-due" | "cooldown"; reason: string }
  | { outcome: "skipped"; reason: string; datasetId?: string; recheckInSeconds?: number }
  | { outcome: "started"; runId: string; datasetId: string; successRate: number };

/** The agent's one remedial dataset: each trigger replaces its tasks rather than adding a dataset. */
export const remedialDatasetId = async (tenantId: string, agentId: string) =>
  `ds_${(await sha256Hex(`remedial|${tenantId}|${agentId}`)).slice(0, 20)}`;

/**
 * The trigger of the current cooldown: a conditional upsert that writes only when the last
 * trigger is at least a cooldown old, then a read of whichever trigger holds, in one batch. Of any
 * number of concurrent or redelivered checks exactly one writes; all of them read the same trigger.
 */
async function currentTrigger(env: Env, tenantId: string, agentId: string, at: number, cooldownMs: number): Promise<number> {
  const d = db(env);
  const [, current] = await d.batch([
    d
      .insert(remedialClaims)
      .values({ tenantId, agentId, lastAt: at })
      .onConflictDoUpdate({
        target: [remedialClaims.tenantId, remedialClaims.agentId],
        set: { lastAt: at },
        setWhere: lte(remedialClaims.lastAt, at - cooldownMs),
      }),
    d
      .select({ lastAt: remedialClaims.lastAt })
      .from(remedialClaims)
      .where(and(eq(remedialClaims.tenantId, tenantId), eq(remedialClaims.agentId, agentId))),
  ]);
  return current[0]!.lastAt;
}

/**
 * Runs when the agent's sweep has seen episodes end since the last check (an `agent.remedial`
 * message through the jobs queue): at most one check per sweep whatever the episode traffic.
 *
 * A trigger and its run are one step. The trigger is claimed first, and its run is created with an
 * idempotency key naming the trigger, so the run id follows from it: a trigger is spent only once
 * that run exists. Until then every check within the cooldown (a redelivery, the next sweep, a
 * concurrent check) completes the same trigger, and all of them arrive at the same one run. A
 * failure part-way (the dataset written, the run `creating`) is finished by the next check; a run
 * whose setup failed outright spends nothing either: the next check tries a fresh run (at most
 * SETUP_ATTEMPTS per trigger, so a setup that always fails does not retry every sweep).
 */
export const checkRemedial = (deps: Pick<Deps, "env">, caller: Caller, input: { tenantId: string; agentId: string; at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return remedialCheck(deps.env, input.tenantId, input.agentId, input.at);
  });

async function remedialCheck(env: Env, tenantId: string, agentId: string, at: number): Promise<RemedialOutcome> {
  const who = { tenantId, agentId };
  const memory = resilientMemory(env, tenantId, agentId);
  const cfg = (await memory.getConfig()).remedial;
  if (!cfg.enabled) return { outcome: "off" };
  const window = await memory.episodesForDataset({ limit: cfg.windowEpisodes });
  const verdict = remedialVerdict(cfg, window);
  if (!verdict.due) return { outcome: "not-due", reason: verdict.reason };

  if (!llmConfigured(env)) return { outcome: "skipped", reason: "no LLM is configured" };
  const budget = await new LlmLedger(env).assertWithinBudget(tenantId).then(
    () => null,
    (err: unknown) => (err instanceof DomainError ? err : null),
  );
  if (budget) return { outcome: "skipped", reason: budget.message, recheckInSeconds: REMEDIAL_RECHECK_SECONDS };
  const datasetId = await remedialDatasetId(tenantId, agentId);
  const body = RunCreateSchema.safeParse({ ...cfg.run, datasetId });
  if (!body.success)
    return { outcome: "skipped", reason: `the remedial run options are not valid: ${body.error.issues[0]?.message ?? "invalid"}` };

  const trigger = await currentTrigger(env, tenantId, agentId, at, cfg.cooldownHours * HOUR);
  const keys = Array.from({ length: SETUP_ATTEMPTS }, (_, i) => (i === 0 ? `remedial:${trigger}` : `remedial:${trigger}:${i}`));
  const ids = await Promise.all(keys.map((k) => keyedRunId(who, k)));
  const runs = await env.DB.prepare(
    `SELECT run_id AS runId, status, error FROM practice_runs
     WHERE tenant_id = ?1 AND agent_id = ?2 AND (run_id IN (${ids.map((_, i) => `?${i + 3}`).join(", ")}) OR status IN ('creating', 'queued', 'running'))`,
  )
    .bind(tenantId, agentId, ...ids)
    .all<{ runId: string; status: string; error: string | null }>();
  const byId = new Map(runs.results.map((r) => [r.runId, r]));
  // The trigger's run, or its next attempt when the setup of the one before failed.
  const attempt = ids.findIndex((id) => !failedSetup(byId.get(id)));
  const runId = ids[attempt];
  const own = runId === undefined ? undefined : byId.get(runId);
  if (runId === undefined || (own && own.status !== "creating")) {
    const detail = runId === undefined ? `its run could not be set up in ${SETUP_ATTEMPTS} attempts` : `run '${runId}'`;
    return { outcome: "cooldown", reason: `remedial practice already triggered within the last ${cfg.cooldownHours} hours (${detail})` };
  }
  // The trigger waits for the agent's other run; a check after it ends (within the cooldown) starts it.
  const going = runs.results.find((r) => !ids.includes(r.runId) && ACTIVE.has(r.status));
  if (going)
    return {
      outcome: "skipped",
      reason: `practice run '${going.runId}' of this agent is still going`,
      recheckInSeconds: REMEDIAL_RECHECK_SECONDS,
    };

  const rate = `${Math.round(verdict.successRate * 100)}%`;
  await replaceDataset(env, tenantId, datasetId, {
    name: `remedial practice: ${agentId}`,
    description: `Mined at ${new Date(trigger).toISOString()}: ${rate} success over the last ${cfg.windowEpisodes} ended episodes (minimum ${Math.round(cfg.minSuccessRate * 100)}%).`,
    holdoutFraction: 0,
    // Episode answers are free-form, so a mined ground truth is a reference for a judge rather than
    // a string to match; and `majority` would reward the answer the agent keeps getting wrong.
    verifier: VerifierSchema.parse({ kind: "llm-judge" }),
    tasks: remedialTasks(agentId, window),
  });
  try {
    const run = await createRun(env, who, body.data, keys[attempt]!, { exclusive: true });
    await admitQueuedRuns(env, tenantId);
    return { outcome: "started", runId: run.runId, datasetId, successRate: verdict.successRate };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { outcome: "skipped", reason: err.message, datasetId };
  }
}
