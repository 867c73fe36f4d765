import { asc, eq } from "drizzle-orm";
import { db } from "../db/client";
import { agents } from "../db/schema";
import { outcome } from "../core/errors";
import type { JobMessage } from "../core/job-messages";
import { requireSystem } from "../core/principal";
import type { Caller, Deps } from "../platform/deps";
import { resilientMemory } from "../platform/objects/agent-access";

/**
 * An agent's own upkeep, asked through the jobs queue (never by a client): the sweep its alarm
 * plans (time-outs, fading, retention) and re-embedding its memories after the embedder changed.
 */
type AgentRef = { tenantId: string; agentId: string };

export const sweepAgent = (deps: Pick<Deps, "env">, caller: Caller, input: AgentRef & { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return resilientMemory(deps.env, input.tenantId, input.agentId).sweep({ at: input.at });
  });

/** One batch of re-embedding with `model`; `remaining` says whether another batch is due, `stale` that the model changed meanwhile. */
export const reembedBatch = (deps: Pick<Deps, "env">, caller: Caller, input: AgentRef & { model: string }) =>
  outcome(async () => {
    requireSystem(caller);
    return resilientMemory(deps.env, input.tenantId, input.agentId).reembed({ model: input.model });
  });

const SEND_BATCH = 100;
/** Legacy agents asked for their first sweep per cron run; the rest wait for the next run. */
const LEGACY_PER_CRON = 2000;

/**
 * Agents sweep themselves: an agent's Durable Object sets its own alarm when something falls due
 * (an episode's time-to-live, a lesson fading, a record past retention, a sweep after it was used),
 * so the cron wakes no agent. Agents from before that have no alarm yet; each is asked once, through
 * the queue, for a sweep that sets it, and marked, a page at a time (a marked page drops out of the
 * next query, so no cursor is kept). Returns how many were asked.
 */
export const armLegacyAgents = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number; pageSize?: number }) =>
  outcome(async () => {
    requireSystem(caller);
    const { env } = deps;
    const pageSize = input.pageSize ?? SEND_BATCH;
    let sent = 0;
    const mark = env.DB.prepare("UPDATE agents SET upkeep_armed = 1 WHERE tenant_id = ? AND agent_id = ?");
    while (sent < LEGACY_PER_CRON) {
      const rows = await db(env)
        .select({ tenantId: agents.tenantId, agentId: agents.agentId })
        .from(agents)
        .where(eq(agents.upkeepArmed, 0))
        .orderBy(asc(agents.tenantId), asc(agents.agentId))
        .limit(pageSize)
        .all();
      if (!rows.length) break;
      const batch: { body: JobMessage }[] = rows.map((r) => ({ body: { type: "agent.sweep", ...r, at: input.at } }));
      await env.JOBS.sendBatch(batch);
      // Marked once sent: a crash in between sends the page again, and a second sweep is harmless.
      await env.DB.batch(rows.map((r) => mark.bind(r.tenantId, r.agentId)));
      sent += rows.length;
    }
    return sent;
  });
