import { and, eq } from "drizzle-orm";
import { libraries } from "../../db/schema";
import { db } from "../../db/client";
import { forbidden, notFound } from "../../core/errors";
import { requireScope, type KeyPrincipal, type Scope } from "../../core/principal";
import { libraryMemoryId } from "../../core/shared-lessons";
import type { Caller, Deps } from "../deps";
import { agentWithRow, resilientMemory } from "./agent-access";
import { d1Read } from "./binding-faults";

/**
 * Where a lesson use case works: an agent's library, or a shared library of the tenant.
 * A shared library's lessons live in an AgentMemory object of their own, called as an agent's is,
 * so one use case serves both doors (`/v1/agents/:agentId/…` and `/v1/libraries/:libraryId/…`)
 * with the same screening, versions and quarantine.
 */
export type LessonTarget = { agentId: string; libraryId?: undefined } | { libraryId: string; agentId?: undefined };

/** The target's name in audit records and errors: the agent's id, or the library's. */
export const targetName = (t: LessonTarget) => (t.libraryId !== undefined ? t.libraryId : t.agentId);

/** A key limited to some libraries gets 403 for the others (they belong to its own tenant, so nothing leaks). */
export function requireLibraryAccess(caller: Caller, libraryId: string, needed: Scope): KeyPrincipal {
  const key = requireScope(caller, needed);
  if (key.libraryIds && !key.libraryIds.includes(libraryId)) throw forbidden(`This key is not allowed to use library '${libraryId}'.`);
  return key;
}

/**
 * A key limited to some agents changes a library only while every subscriber is one of its agents:
 * a library's lessons reach its subscribers' prompts, which such a key may not reach otherwise. A
 * library with no subscriber yet (one it just created) is its to change. One D1 read.
 */
export async function requireLibraryWrite(deps: Pick<Deps, "env">, caller: Caller, libraryId: string, needed: Scope) {
  const key = requireLibraryAccess(caller, libraryId, needed);
  if (!key.agentIds) return key;
  const outside = await d1Read(() =>
    deps.env.DB.prepare(
      `SELECT agent_id FROM library_subscriptions WHERE tenant_id = ?1 AND library_id = ?2
         AND agent_id NOT IN (SELECT value FROM json_each(?3)) LIMIT 1`,
    )
      .bind(key.tenantId, libraryId, JSON.stringify(key.agentIds))
      .first<{ agent_id: string }>(),
  );
  if (outside)
    throw forbidden(
      `Library '${libraryId}' has subscribers this key may not use; changing it needs a key not restricted to agents, or one that may use all of them.`,
    );
  return key;
}

export function libraryRow(env: Deps["env"], tenantId: string, libraryId: string) {
  return d1Read(() =>
    db(env)
      .select()
      .from(libraries)
      .where(and(eq(libraries.tenantId, tenantId), eq(libraries.libraryId, libraryId)))
      .get(),
  );
}

/**
 * Resolves a library for the caller: scope and library restrictions first (and, to change it, its
 * subscribers: requireLibraryWrite), then existence within the key's own tenant, so another tenant's library is indistinguishable from a missing one.
 * `memoryId` stands in for the agent id where a use case names one (the usage ledger, the review
 * before a write).
 */
export async function libraryTarget(deps: Pick<Deps, "env">, caller: Caller, libraryId: string, scope: Scope) {
  const key = scope === "read" ? requireLibraryAccess(caller, libraryId, scope) : await requireLibraryWrite(deps, caller, libraryId, scope);
  const row = await libraryRow(deps.env, key.tenantId, libraryId);
  if (!row) throw notFound(`Library '${libraryId}' does not exist.`);
  const memoryId = libraryMemoryId(libraryId);
  return { key, library: row, memoryId, memory: resilientMemory(deps.env, key.tenantId, memoryId) };
}

/** The target's object for a caller allowed to use it at `scope`, with the id its object is named by. */
export async function lessonTarget(deps: Pick<Deps, "env" | "waitUntil">, caller: Caller, target: LessonTarget, scope: Scope) {
  if (target.libraryId !== undefined) {
    const { key, memoryId, memory } = await libraryTarget(deps, caller, target.libraryId, scope);
    return { key, memoryId, memory };
  }
  const { key, memory } = await agentWithRow(deps, caller, target.agentId, scope);
  return { key, memoryId: target.agentId, memory };
}
