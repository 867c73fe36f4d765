import { VectorizeVectorIndex } from "../../../src/adapters/vector-indexes/vectorize";

/**
 * Whether this object's agent exists. The object is told when its agent is created and deleted,
 * so a call for an unknown or deleted agent is refused in the same round trip that would have done
 * the work, and nothing (practice, evaluations, jobs) recreates a deleted agent's memory.
 * The state sits in the object's key-value storage, outside the agent's SQL tables.
 */
export type AgentState = "active" | "deleted";

const STATE_KEY = "praxis:agent";

/**
 * The state, and the agent's incarnation: an id drawn each time the agent is created, so work begun
 * for an agent that was deleted and created again under the same id (a practice run's promotion, a
 * queued job) is told apart from the new agent's and refused.
 */
interface StoredState {
  state: AgentState;
  at: number;
  incarnation?: string;
}

export function agentState(storage: DurableObjectStorage): AgentState | undefined {
  return storage.kv.get<StoredState>(STATE_KEY)?.state;
}

export function setAgentState(storage: DurableObjectStorage, state: AgentState, at: number, incarnation?: string): void {
  storage.kv.put(STATE_KEY, { state, at, ...(incarnation ? { incarnation } : {}) });
}

/** The active agent's incarnation; an agent created before incarnations were kept is given one now. */
export function agentIncarnation(storage: DurableObjectStorage): string {
  const stored = storage.kv.get<StoredState>(STATE_KEY);
  if (stored?.incarnation) return stored.incarnation;
  const incarnation = crypto.randomUUID();
  storage.kv.put(STATE_KEY, { state: stored?.state ?? "active", at: stored?.at ?? Date.now(), incarnation });
  return incarnation;
}

/** No tables yet: the object was never used for an agent, and answering "no such agent" must not create any. */
export function isBlank(storage: DurableObjectStorage): boolean {
  return storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_schema'").toArray().length === 0;
}

/**
 * Agents created before objects tracked their state have none; the control plane (D1) decides once.
 * Only a positive answer is remembered, so probing made-up agent ids stores nothing.
 */
export async function existsInControlPlane(db: D1Database, tenantId: string, agentId: string): Promise<boolean> {
  const row = await db.prepare("SELECT 1 AS found FROM agents WHERE tenant_id = ? AND agent_id = ?").bind(tenantId, agentId).first();
  return row !== null;
}

/** Every item id that may have a vector in Vectorize, read before the tables are dropped. */
export function vectorItemIds(storage: DurableObjectStorage): string[] {
  if (isBlank(storage)) return [];
  return storage.sql
    .exec<{ id: string }>(
      "SELECT id FROM experiences UNION SELECT id FROM cases UNION SELECT item_id FROM vectors UNION SELECT item_id FROM vector_outbox",
    )
    .toArray()
    .map((r) => r.id);
}

/** Removes the agent's vectors from Vectorize: their ids are derived from the object's name and the item ids. */
export async function eraseRemoteVectors(binding: VectorizeIndex | undefined, idScope: string, itemIds: string[]): Promise<void> {
  if (!binding || itemIds.length === 0) return;
  await new VectorizeVectorIndex(binding, "erase", { dims: 1, idScope }).remove(itemIds);
}

/** The tenant and agent an object serves, from its name `${tenantId}:${agentId}`; null for an unnamed object. */
export function agentIdentity(name: string | undefined): { tenantId: string; agentId: string } | null {
  const at = name?.indexOf(":") ?? -1;
  return name && at > 0 ? { tenantId: name.slice(0, at), agentId: name.slice(at + 1) } : null;
}
