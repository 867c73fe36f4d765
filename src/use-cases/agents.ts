import { and, eq, inArray } from "drizzle-orm";
import type { Env } from "../env";
import { agents, practiceRuns, practiceSchedules } from "../db/schema";
import { db } from "../db/client";
import { requireAgentAccess, requireScope, requireSystem } from "../core/principal";
import { notFound, outcome, unwrap } from "../core/errors";
import type { Caller, Deps } from "../platform/deps";
import type { SessionEnd } from "../core/episode-types";
import { d1Read, d1Write } from "../platform/objects/binding-faults";
import { cancelRun } from "../platform/practice/runs";
import { cancelAgentEvaluations } from "../platform/practice/evaluations";
import { agentRow, agentWithRow, resilientMemory } from "../platform/objects/agent-access";
import { agentPage, presentAgent } from "../platform/records/agent-directory";
import { recordAudit } from "../platform/records/audit";
import { forgetDeleted } from "../platform/edge/read-pipeline";

/** A verified session-end delivery becomes an episode of its agent; the agent's object refuses an unknown one. */
export async function ingestSession(env: Env, session: SessionEnd) {
  return resilientMemory(env, session.tenantId, session.agentId).ingestSession(session);
}

/**
 * Creates the agent, or updates its display name. Its Durable Object is told every time, which also
 * completes a creation interrupted between D1 and the object.
 */
async function putAgent(env: Env, tenantId: string, agentId: string, displayName: string | null | undefined) {
  const d = db(env);
  const where = and(eq(agents.tenantId, tenantId), eq(agents.agentId, agentId));
  let row = await agentRow(env, tenantId, agentId);
  let created = false;
  if (row && displayName !== undefined) {
    row = await d1Write(() => d.update(agents).set({ displayName, updatedAt: Date.now() }).where(where).returning().get());
  } else if (!row) {
    // Two concurrent PUTs race here; the primary key lets exactly one insert win.
    const inserted = await d1Write(() =>
      d
        .insert(agents)
        .values({ tenantId, agentId, displayName: displayName ?? null })
        .onConflictDoNothing()
        .returning()
        .get(),
    );
    created = inserted !== undefined;
    row = inserted ?? (await agentRow(env, tenantId, agentId));
  }
  await resilientMemory(env, tenantId, agentId).registerAgent();
  return { row: row!, created };
}

/**
 * Deletes the agent: its object first (memory, cases, episodes, jobs, vectors in Vectorize; it
 * refuses every later call, whoever makes it), then its practice runs are cancelled, then its
 * schedules and its control-plane row go. A failure part way leaves the row, so the deletion can be repeated.
 */
async function eraseAgent(env: Env, tenantId: string, agentId: string, log: { warn(m: string, f?: Record<string, unknown>): void }) {
  if (!(await agentRow(env, tenantId, agentId))) throw notFound(`Agent '${agentId}' does not exist.`);
  const { storageDeleted } = await resilientMemory(env, tenantId, agentId).deleteAgent();
  forgetDeleted(tenantId, agentId);
  const going = await d1Read(() =>
    db(env)
      .select({ runId: practiceRuns.runId, status: practiceRuns.status })
      .from(practiceRuns)
      .where(
        and(
          eq(practiceRuns.tenantId, tenantId),
          eq(practiceRuns.agentId, agentId),
          inArray(practiceRuns.status, ["creating", "queued", "running"]),
        ),
      )
      .all(),
  );
  // A run still being set up has no object to cancel yet, or one its setup is still filling: its
  // row ends here, so the setup's last step (creating → queued) finds nothing to move and no
  // admission ever starts it. Its object, if any, also holds the old incarnation, refused by a new agent.
  await d1Write(() =>
    env.DB.prepare(
      "UPDATE practice_runs SET status = 'cancelled', error = 'the agent was deleted', updated_at = ?1 WHERE tenant_id = ?2 AND agent_id = ?3 AND status = 'creating'",
    )
      .bind(Date.now(), tenantId, agentId)
      .run(),
  );
  for (const { runId } of going.filter((r) => r.status !== "creating")) {
    // A run that cannot be cancelled now still cannot write to the deleted agent: its object refuses.
    await cancelRun(env, { tenantId, agentId }, runId).catch((err: unknown) =>
      log.warn("cancelling a deleted agent's run failed", { runId, err: String(err) }),
    );
  }
  // Evaluations never write to the agent, but they would go on spending its tenant's LLM budget.
  const evaluationsCancelled = await cancelAgentEvaluations(env, tenantId, agentId, "the agent was deleted").catch((err: unknown) => {
    log.warn("cancelling a deleted agent's evaluations failed", { agentId, err: String(err) });
    return 0;
  });
  const d = db(env);
  // One batch: the agent's schedules (they would fire runs for it) go with its row, or neither does.
  await d1Write(() =>
    d.batch([
      d.delete(practiceSchedules).where(and(eq(practiceSchedules.tenantId, tenantId), eq(practiceSchedules.agentId, agentId))),
      d.delete(agents).where(and(eq(agents.tenantId, tenantId), eq(agents.agentId, agentId))),
    ]),
  );
  return { storageDeleted, runsCancelled: going.length, evaluationsCancelled };
}

/** The agents the caller's key may see, ordered by id, a page at a time. */
export const listAgents = (deps: Deps, caller: Caller, input: { limit: number; cursor?: string | undefined }) =>
  outcome(async () => agentPage(deps.env, requireScope(caller, "read"), input));

/** Creates the agent (audited), or updates its display name; safe to repeat. `created` says which. */
export const upsertAgent = (deps: Deps, caller: Caller, input: { agentId: string; displayName?: string | null | undefined }) =>
  outcome(async () => {
    const { agentId } = input;
    const key = requireAgentAccess(caller, agentId, "write");
    const { row, created } = await putAgent(deps.env, key.tenantId, agentId, input.displayName);
    if (created) await recordAudit(deps, caller, { tenantId: key.tenantId, action: "agent.create", target: agentId });
    return { agent: presentAgent(row), created };
  });

/** Another tenant's agent is not-found, like a missing one. */
export const getAgent = (deps: Deps, caller: Caller, input: { agentId: string }) =>
  outcome(async () => presentAgent((await agentWithRow(deps, caller, input.agentId, "read")).agent));

/** Deletes the agent with everything it holds (admin scope; audited with what it cancelled). */
export const deleteAgent = (deps: Deps, caller: Caller, input: { agentId: string }) =>
  outcome(async () => {
    const { agentId } = input;
    const key = requireAgentAccess(caller, agentId, "admin");
    const { storageDeleted, runsCancelled, evaluationsCancelled } = await eraseAgent(deps.env, key.tenantId, agentId, deps.logger);
    await recordAudit(deps, caller, {
      tenantId: key.tenantId,
      action: "agent.delete",
      target: agentId,
      detail: { runsCancelled, evaluationsCancelled },
    });
    return { agentId, deleted: true as const, storageDeleted, runsCancelled, evaluationsCancelled };
  });

/**
 * The agent's current incarnation (see durable-objects/agent-memory/object/lifecycle.ts), for the queue
 * consumer to drop messages of an earlier one; null when the agent is gone.
 */
export const agentIncarnation = (deps: Pick<Deps, "env">, caller: Caller, agent: { tenantId: string; agentId: string }) =>
  outcome(async (): Promise<string | null> => {
    requireSystem(caller);
    const current = await outcome(() => resilientMemory(deps.env, agent.tenantId, agent.agentId).incarnation());
    if (!current.ok && current.error.kind === "not-found") return null;
    return unwrap(current);
  });
