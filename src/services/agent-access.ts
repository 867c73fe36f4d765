import { and, eq } from "drizzle-orm";
import type { Env } from "../env";
import { agents } from "../db/schema";
import { db } from "../db/client";
import { requireAgentAccess, type Scope } from "../core/principal";
import { notFound, unavailable } from "../core/errors";
import type { Caller, Deps } from "./deps";
import { memoryStub, type MemoryStub } from "./agent-memory";
import { doCall, d1Read } from "./binding-faults";
import { Semaphore, SemaphoreTimeoutError } from "../core/semaphore";
import { flushMarksIfDue, markAgentActive } from "./activity-marks";

/**
 * An agent as a use case reaches it: the caller's access, the agent's row when the use case needs
 * it, and its Durable Object behind the retry and write-slot rules. It sits below the use cases
 * (and below agents.ts, whose deletion reaches runs and evaluations), so the use cases of runs,
 * evaluations and datasets live beside their own mechanisms without an import circle.
 */

/**
 * Agent-memory methods that change nothing a second call would change again, so a `.retryable`
 * failure may be retried. Writes are retried only when they carry an idempotency key (the
 * argument at the given position).
 */
const IDEMPOTENT_READS = new Set([
  "retrieve",
  "prompt",
  "getConfig",
  "getExperience",
  "listExperiences",
  "libraryVersions",
  "libraryVersion",
  "libraryDiff",
  "exportLibrary",
  "getCase",
  "listCases",
  "analytics",
  "getEpisode",
  "episodeRetrievals",
  "listEpisodes",
  "episodesForDataset",
  "getJob",
  "listJobs",
  "similarExperiences",
  "registerAgent",
  "deleteAgent",
  "readModel",
  "subscriptions",
  "sharedStats",
  "subscribedLessons",
]);
const IDEMPOTENCY_KEY_ARG: Record<string, number> = {
  reward: 1,
  createEpisode: 1,
  createCase: 1,
  createExperience: 3,
  applyLibrary: 4,
  rollback: 2,
  importLibrary: 3,
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
          doCall(
            () => {
              const stub = memoryStub(env, tenantId, agentId) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
              return stub[method]!(...args);
            },
            idempotent(method, args),
          );
        if (IDEMPOTENT_READS.has(method)) return call();
        return writeSlotsOf(tenantId, agentId)
          .run(call)
          .catch((e: unknown) => {
            if (e instanceof SemaphoreTimeoutError)
              throw unavailable(`This agent's memory has ${e.limit} writes from this instance in progress; retry after a short pause.`);
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

/** The agent's control-plane row, or undefined. */
export function agentRow(env: Env, tenantId: string, agentId: string) {
  return d1Read(() =>
    db(env)
      .select()
      .from(agents)
      .where(and(eq(agents.tenantId, tenantId), eq(agents.agentId, agentId)))
      .get(),
  );
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

/** The tenant and id of an agent the caller may use: for use cases working on its D1 rows (runs, evaluations, schedules). */
export async function agentOwner(deps: Pick<Deps, "env" | "waitUntil">, caller: Caller, agentId: string, scope: Scope) {
  const { key } = await agentWithRow(deps, caller, agentId, scope);
  return { tenantId: key.tenantId, agentId };
}
