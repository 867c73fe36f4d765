import { and, eq, inArray } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv, Env } from "../env";
import { agents, practiceRuns, practiceSchedules } from "../db/schema";
import { db } from "../db/client";
import { requireAgentAccess, type Scope } from "../core/principal";
import { notFound } from "../core/errors";
import type { Caller, Deps } from "./deps";
import type { SessionEnd } from "../core/episode-types";
import { callMemory, memoryStub, type MemoryStub } from "./agent-memory";
import { doCall, d1Read, d1Write, unavailable } from "./binding-faults";
import { Semaphore, SemaphoreTimeoutError } from "../core/semaphore";
import { cancelRun } from "./practice";
import { cancelAgentEvaluations } from "./evaluation";
import { flushMarksIfDue, markAgentActive } from "./usage-marks";

/**
 * Agent-memory methods that change nothing a second call would change again, so a `.retryable`
 * failure may be retried. Writes are retried only when they carry an idempotency key (the
 * argument at the given position).
 */
const IDEMPOTENT_READS = new Set([
  "retrieve", "prompt", "getConfig", "getExperience", "listExperiences", "libraryVersions", "libraryVersion", "libraryDiff",
  "exportLibrary", "getCase", "listCases", "analytics", "getEpisode", "episodeRetrievals", "listEpisodes", "episodesForDataset", "getJob", "listJobs",
  "similarExperiences", "registerAgent", "deleteAgent", "readModel",
]);
const IDEMPOTENCY_KEY_ARG: Record<string, number> = {
  reward: 1, createEpisode: 1, createCase: 1, createExperience: 3, applyLibrary: 4, rollback: 2, importLibrary: 3,
};

function idempotent(method: string, args: unknown[]): boolean {
  if (IDEMPOTENT_READS.has(method)) return true;
  const at = IDEMPOTENCY_KEY_ARG[method];
  return at !== undefined && typeof args[at] === "string";
}

/**
 * Writes one isolate sends to one agent's object at a time. The object applies writes one after
 * another, so more in flight only lengthen its queue (and a burst of hundreds has brought the local
 * runtime down); a write that finds no slot within WRITE_SLOT_WAIT_MS answers 503 with Retry-After.
 */
const WRITE_SLOTS_PER_AGENT = 16;
const WRITE_SLOT_WAIT_MS = 15_000;
const MAX_WRITE_SLOT_SETS = 1_000;
const writeSlots = new Map<string, Semaphore>();

function writeSlotsOf(tenantId: string, agentId: string): Semaphore {
  const key = `${tenantId}\u0000${agentId}`;
  let slots = writeSlots.get(key);
  if (!slots) {
    if (writeSlots.size >= MAX_WRITE_SLOT_SETS) for (const [k, s] of writeSlots) if (s.inUse === 0 && s.waiting === 0) writeSlots.delete(k);
    writeSlots.set(key, (slots = new Semaphore(WRITE_SLOTS_PER_AGENT, { maxWaitMs: WRITE_SLOT_WAIT_MS })));
  }
  return slots;
}

/**
 * The agent's Durable Object as routes use it: each call goes through a fresh stub, so a retried
 * call never reuses a stub a failure may have broken, with the documented faults handled
 * (services/binding-faults), and writes bounded per agent (WRITE_SLOTS_PER_AGENT).
 */
export function resilientMemory(env: Env, tenantId: string, agentId: string): MemoryStub {
  return new Proxy({} as MemoryStub, {
    get(_target, method) {
      if (typeof method !== "string" || method === "then") return undefined;
      return (...args: unknown[]) => {
        const call = () =>
          doCall(() => {
            const stub = memoryStub(env, tenantId, agentId) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
            return stub[method]!(...args);
          }, idempotent(method, args));
        if (IDEMPOTENT_READS.has(method)) return call();
        return writeSlotsOf(tenantId, agentId)
          .run(call)
          .catch((e: unknown) => {
            if (e instanceof SemaphoreTimeoutError) throw unavailable(`This agent's memory has ${e.limit} writes from this instance in progress; retry after a short pause.`);
            throw e;
          });
      };
    },
  });
}

function noteActivity(deps: Pick<Deps, "env" | "waitUntil">, tenantId: string, agentId: string) {
  const now = Date.now();
  markAgentActive(tenantId, agentId, now);
  flushMarksIfDue(deps.env, deps, now);
}

/**
 * The agent's memory for a caller allowed to use it, without asking D1 whether the agent exists:
 * its Durable Object knows, and refuses calls for an unknown or deleted agent with not-found in the
 * same round trip. The hot paths (retrieve, rewards, prompt, episodes) use this. Only use cases
 * (src/services) hold the stub it returns.
 */
export function agentMemory(deps: Pick<Deps, "env" | "waitUntil">, caller: Caller, agentId: string, scope: Scope) {
  const key = requireAgentAccess(caller, agentId, scope);
  noteActivity(deps, key.tenantId, agentId);
  return { key, agent: { agentId }, memory: resilientMemory(deps.env, key.tenantId, agentId) };
}

/** Doors not yet moved onto use cases; goes when the last route stops holding stubs. */
export const agentMemoryFor = (c: Context<AppEnv>, agentId: string, scope: Scope) =>
  agentMemory({ env: c.env, waitUntil: (p) => c.executionCtx.waitUntil(p) }, c.get("principal"), agentId, scope);

/** The agent's control-plane row, or undefined. */
export function agentRow(env: Env, tenantId: string, agentId: string) {
  return d1Read(() => db(env).select().from(agents).where(and(eq(agents.tenantId, tenantId), eq(agents.agentId, agentId))).get());
}

/**
 * Resolves an agent for the caller with its control-plane row: scope and agent restrictions
 * first, then existence within the key's own tenant, so another tenant's agent is
 * indistinguishable from a missing one. For use cases that work on D1 (runs, schedules, datasets).
 */
export async function agentWithRow(deps: Pick<Deps, "env" | "waitUntil">, caller: Caller, agentId: string, scope: Scope) {
  const key = requireAgentAccess(caller, agentId, scope);
  const row = await agentRow(deps.env, key.tenantId, agentId);
  if (!row) throw notFound(`Agent '${agentId}' does not exist.`);
  noteActivity(deps, key.tenantId, agentId);
  return { key, agent: row, memory: resilientMemory(deps.env, key.tenantId, agentId) };
}

/** Doors not yet moved onto use cases; goes when the last route stops holding stubs. */
export const agentFor = (c: Context<AppEnv>, agentId: string, scope: Scope) =>
  agentWithRow({ env: c.env, waitUntil: (p) => c.executionCtx.waitUntil(p) }, c.get("principal"), agentId, scope);

/** A verified session-end delivery becomes an episode of its agent; the agent's object refuses an unknown one. */
export async function ingestSession(env: Env, session: SessionEnd) {
  return callMemory(() => resilientMemory(env, session.tenantId, session.agentId).ingestSession(session));
}

/**
 * Creates the agent, or updates its display name. Its Durable Object is told every time, which also
 * completes a creation interrupted between D1 and the object.
 */
export async function putAgent(env: Env, tenantId: string, agentId: string, displayName: string | null | undefined) {
  const d = db(env);
  const where = and(eq(agents.tenantId, tenantId), eq(agents.agentId, agentId));
  let row = await agentRow(env, tenantId, agentId);
  let created = false;
  if (row && displayName !== undefined) {
    row = await d1Write(() => d.update(agents).set({ displayName, updatedAt: Date.now() }).where(where).returning().get());
  } else if (!row) {
    // Two concurrent PUTs race here; the primary key lets exactly one insert win.
    const inserted = await d1Write(() => d.insert(agents).values({ tenantId, agentId, displayName: displayName ?? null }).onConflictDoNothing().returning().get());
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
export async function deleteAgent(env: Env, tenantId: string, agentId: string, log: { warn(m: string, f?: Record<string, unknown>): void }) {
  if (!(await agentRow(env, tenantId, agentId))) throw notFound(`Agent '${agentId}' does not exist.`);
  const { storageDeleted } = await resilientMemory(env, tenantId, agentId).deleteAgent();
  const going = await d1Read(() =>
    db(env)
      .select({ runId: practiceRuns.runId, status: practiceRuns.status })
      .from(practiceRuns)
      .where(and(eq(practiceRuns.tenantId, tenantId), eq(practiceRuns.agentId, agentId), inArray(practiceRuns.status, ["creating", "queued", "running"])))
      .all(),
  );
  // A run still being set up has no object to cancel yet, or one its setup is still filling: its
  // row ends here, so the setup's last step (creating → queued) finds nothing to move and no
  // admission ever starts it. Its object, if any, also holds the old incarnation, refused by a new agent.
  await d1Write(() =>
    env.DB.prepare("UPDATE practice_runs SET status = 'cancelled', error = 'the agent was deleted', updated_at = ?1 WHERE tenant_id = ?2 AND agent_id = ?3 AND status = 'creating'")
      .bind(Date.now(), tenantId, agentId)
      .run(),
  );
  for (const { runId } of going.filter((r) => r.status !== "creating")) {
    // A run that cannot be cancelled now still cannot write to the deleted agent: its object refuses.
    await cancelRun(env, { tenantId, agentId }, runId).catch((err: unknown) => log.warn("cancelling a deleted agent's run failed", { runId, err: String(err) }));
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
