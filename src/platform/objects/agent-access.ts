import { and, eq } from "drizzle-orm";
import type { Env } from "../../env";
import { agents } from "../../db/schema";
import { db } from "../../db/client";
import { requireAgentAccess, type Scope } from "../../core/principal";
import { notFound, unavailable } from "../../core/errors";
import type { Caller, Deps } from "../deps";
import type { AgentMemory } from "../../../durable-objects/agent-memory";
import { AGENT_MEMORY_CONTRACT } from "../../../durable-objects/agent-memory/contract";
import { memoryName } from "./memory-name";
import { d1Read } from "./binding-faults";
import { resilientObject, type Resilient } from "./object-stub";
import { Semaphore, SemaphoreTimeoutError } from "../../core/semaphore";
import { flushMarksIfDue, markAgentActive } from "../edge/activity-marks";

/**
 * An agent as a use case reaches it: the caller's access, the agent's row when the use case needs
 * it, and its Durable Object behind the retry and write-slot rules. It sits below the use cases
 * (and below agents.ts, whose deletion reaches runs and evaluations), so the use cases of runs,
 * evaluations and datasets live beside their own mechanisms without an import circle.
 */

/**
 * Writes one isolate sends to one agent's object at a time. The object applies writes one after
 * another, so more in flight only lengthen its queue (and a burst of hundreds has brought the local
 * runtime down); a write that finds no slot within WRITE_SLOT_WAIT_MS answers 503 with Retry-After.
 */
const WRITE_SLOTS_PER_AGENT = 16;
const WRITE_SLOT_WAIT_MS = 15_000;
const MAX_WRITE_SLOT_SETS = 1_000;
const writeSlots = new Map<string, Semaphore>();

function writeSlotsOf(name: string): Semaphore {
  let slots = writeSlots.get(name);
  if (!slots) {
    if (writeSlots.size >= MAX_WRITE_SLOT_SETS) for (const [k, s] of writeSlots) if (s.inUse === 0 && s.waiting === 0) writeSlots.delete(k);
    writeSlots.set(name, (slots = new Semaphore(WRITE_SLOTS_PER_AGENT, { maxWaitMs: WRITE_SLOT_WAIT_MS })));
  }
  return slots;
}

/**
 * The agent's Durable Object as use cases call it (object-stub.ts), with its retry
 * classes from its contract and writes bounded per agent (WRITE_SLOTS_PER_AGENT).
 */
export function resilientMemory(env: Env, tenantId: string, agentId: string): Memory {
  return memoryNamed(env, memoryName(tenantId, agentId));
}

/** The same by the object's name (`tenant:agent`), for senders that hold only the name (platform/edge/retrieval-counters.ts). */
export function memoryNamed(env: Env, name: string): Memory {
  return resilientObject<AgentMemory>(AGENT_MEMORY_CONTRACT, () => env.AGENT_MEMORY.getByName(name), {
    outcomes: true,
    around: (retry, call) =>
      retry.write
        ? writeSlotsOf(name)
            .run(call)
            .catch((e: unknown) => {
              if (e instanceof SemaphoreTimeoutError)
                throw unavailable(`This agent's memory has ${e.limit} writes from this instance in progress; retry after a short pause.`);
              throw e;
            })
        : call(),
  });
}

export type Memory = Resilient<AgentMemory>;

function noteActivity(deps: Pick<Deps, "env" | "waitUntil">, tenantId: string, agentId: string) {
  const now = Date.now();
  markAgentActive(tenantId, agentId, now);
  flushMarksIfDue(deps.env, deps, now);
}

/**
 * The agent's memory for a caller allowed to use it, without asking D1 whether the agent exists:
 * its Durable Object knows, and refuses calls for an unknown or deleted agent with not-found in the
 * same round trip. The hot paths (retrieve, rewards, prompt, episodes) use this. Only use cases
 * (src/platform) hold the stub it returns.
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
