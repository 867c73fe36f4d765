import { and, eq, inArray } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../db/client";
import { practiceRuns } from "../db/schema";
import { remedialTasks, remedialVerdict } from "../core/practice/remedial";
import { RunCreateSchema } from "../core/practice/run-types";
import { VerifierSchema } from "../core/verifiers/schema";
import { D1UsageLedger } from "../llm/ledger";
import { llmConfigured, toProblem } from "../llm";
import { callMemory, memoryStub } from "./agent-memory";
import { createDataset } from "./datasets";
import { admitQueuedRuns, createRun } from "./practice";

const HOUR = 3_600_000;

export type RemedialOutcome =
  | { outcome: "off" }
  | { outcome: "not-due" | "cooldown"; reason: string }
  | { outcome: "skipped"; reason: string; datasetId?: string }
  | { outcome: "started"; runId: string; datasetId: string; successRate: number };

/**
 * Takes this cooldown's one trigger: a single upsert that only writes when the last trigger is at
 * least a cooldown old, so of any number of concurrent or redelivered checks exactly one wins.
 */
async function claimCooldown(env: Env, tenantId: string, agentId: string, at: number, cooldownMs: number): Promise<boolean> {
  const r = await env.DB.prepare(
    `INSERT INTO remedial_claims (tenant_id, agent_id, last_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (tenant_id, agent_id) DO UPDATE SET last_at = excluded.last_at WHERE remedial_claims.last_at <= ?3 - ?4
     RETURNING last_at`,
  )
    .bind(tenantId, agentId, at, cooldownMs)
    .all();
  return r.results.length === 1;
}

/**
 * Runs from the agent's sweep (every agent, every 5 minutes, through the jobs queue): one check per
 * agent per sweep whatever the episode traffic, which a 24-hour cooldown can well afford. Everything
 * that would stop a run is checked before the cooldown is claimed, so a trigger is spent only when a
 * run is expected to start. Should the worker die after the claim, that trigger is lost until the
 * cooldown passes (and the failures are still there): never a second run in one cooldown.
 */
export async function checkRemedial(env: Env, tenantId: string, agentId: string, at: number): Promise<RemedialOutcome> {
  const stub = memoryStub(env, tenantId, agentId);
  const cfg = (await callMemory(() => stub.getConfig())).remedial;
  if (!cfg.enabled) return { outcome: "off" };
  const window = await callMemory(() => stub.episodesForDataset({ limit: cfg.windowEpisodes }));
  const verdict = remedialVerdict(cfg, window);
  if (!verdict.due) return { outcome: "not-due", reason: verdict.reason };

  if (!llmConfigured(env)) return { outcome: "skipped", reason: "no LLM is configured" };
  const budget = await new D1UsageLedger(env).assertWithinBudget(tenantId).then(
    () => null,
    (err: unknown) => toProblem(err),
  );
  if (budget) return { outcome: "skipped", reason: budget.message };
  const going = await db(env)
    .select({ runId: practiceRuns.runId })
    .from(practiceRuns)
    .where(and(eq(practiceRuns.tenantId, tenantId), eq(practiceRuns.agentId, agentId), inArray(practiceRuns.status, ["queued", "running"])))
    .get();
  if (going) return { outcome: "skipped", reason: `practice run '${going.runId}' of this agent is still going` };
  if (!(await claimCooldown(env, tenantId, agentId, at, cfg.cooldownHours * HOUR))) {
    return { outcome: "cooldown", reason: `remedial practice already started within the last ${cfg.cooldownHours} hours` };
  }

  const rate = `${Math.round(verdict.successRate * 100)}%`;
  const { dataset } = await createDataset(env, tenantId, {
    name: `remedial practice: ${agentId}`,
    description: `Mined at ${new Date(at).toISOString()}: ${rate} success over the last ${cfg.windowEpisodes} ended episodes (minimum ${Math.round(cfg.minSuccessRate * 100)}%).`,
    holdoutFraction: 0,
    // Episode answers are free-form, so a mined ground truth is a reference for a judge rather than
    // a string to match; and `majority` would reward the answer the agent keeps getting wrong.
    verifier: VerifierSchema.parse({ kind: "llm-judge" }),
    tasks: remedialTasks(agentId, window),
  });
  const body = RunCreateSchema.safeParse({ ...cfg.run, datasetId: dataset.datasetId });
  if (!body.success) return { outcome: "skipped", reason: `the remedial run options are not valid: ${body.error.issues[0]?.message ?? "invalid"}`, datasetId: dataset.datasetId };
  try {
    const run = await createRun(env, { tenantId, agentId }, body.data, undefined, { exclusive: true });
    await admitQueuedRuns(env, tenantId);
    return { outcome: "started", runId: run.runId, datasetId: dataset.datasetId, successRate: verdict.successRate };
  } catch (err) {
    const problem = toProblem(err);
    if (!problem) throw err;
    return { outcome: "skipped", reason: problem.message, datasetId: dataset.datasetId };
  }
}
