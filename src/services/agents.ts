import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv, Env } from "../env";
import { agents } from "../db/schema";
import { db } from "../db/client";
import { requireAgentAccess, type Scope } from "../http/auth";
import { notFound } from "../http/problem";
import type { SessionEnd } from "../core/episode-types";
import { callMemory, memoryStub } from "./agent-memory";

/** Last activity is tracked per minute; finer resolution would turn every read into a D1 write. */
const ACTIVITY_RESOLUTION_MS = 60_000;

/**
 * Resolves an agent for the calling key: scope and agent restrictions first, then existence
 * within the key's own tenant, so another tenant's agent is indistinguishable from a missing one.
 */
export async function agentFor(c: Context<AppEnv>, agentId: string, scope: Scope) {
  const key = requireAgentAccess(c.get("principal"), agentId, scope);
  const cached = c.get("agentLookup");
  const row =
    cached && cached.agentId === agentId
      ? cached.row
      : await db(c.env)
          .select()
          .from(agents)
          .where(and(eq(agents.tenantId, key.tenantId), eq(agents.agentId, agentId)))
          .get();
  if (!row) throw notFound(`Agent '${agentId}' does not exist.`);
  const now = Date.now();
  if (!row.lastActiveAt || now - row.lastActiveAt > ACTIVITY_RESOLUTION_MS) {
    c.executionCtx.waitUntil(
      db(c.env)
        .update(agents)
        .set({ lastActiveAt: now })
        .where(and(eq(agents.tenantId, key.tenantId), eq(agents.agentId, agentId)))
        .run()
        .then(() => undefined),
    );
  }
  return { key, agent: row, memory: memoryStub(c.env, key.tenantId, agentId) };
}

/** A verified session-end delivery becomes an episode of its agent, which must exist in the signing tenant. */
export async function ingestSession(env: Env, session: SessionEnd) {
  const agent = await db(env)
    .select({ agentId: agents.agentId })
    .from(agents)
    .where(and(eq(agents.tenantId, session.tenantId), eq(agents.agentId, session.agentId)))
    .get();
  if (!agent) throw notFound(`Agent '${session.agentId}' does not exist.`);
  return callMemory(() => memoryStub(env, session.tenantId, session.agentId).ingestSession(session));
}
