import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { Env } from "../env";
import { agents } from "../db/schema";
import { db } from "../db/client";
import type { KeyPrincipal } from "../http/auth";
import { badRequest } from "../http/problem";
import { decodeCursor, encodeCursor } from "../core/cursor";

export type AgentRow = typeof agents.$inferSelect;

/** An agent as the API shows it. */
export const presentAgent = (a: AgentRow) => ({
  agentId: a.agentId,
  displayName: a.displayName ?? null,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  lastActiveAt: a.lastActiveAt ?? null,
});

/**
 * Creates the agent, or updates its display name when one is given; `created` says which. Two
 * concurrent calls race on the insert, and the primary key lets exactly one of them create.
 */
export async function putAgent(env: Env, tenantId: string, agentId: string, displayName: string | null | undefined): Promise<{ row: AgentRow; created: boolean }> {
  const d = db(env);
  const where = and(eq(agents.tenantId, tenantId), eq(agents.agentId, agentId));
  const existing = await d.select().from(agents).where(where).get();
  if (existing) {
    if (displayName === undefined) return { row: existing, created: false };
    const updated = await d.update(agents).set({ displayName, updatedAt: Date.now() }).where(where).returning().get();
    return { row: updated!, created: false };
  }
  const created = await d.insert(agents).values({ tenantId, agentId, displayName: displayName ?? null }).onConflictDoNothing().returning().get();
  if (created) return { row: created, created: true };
  return { row: (await d.select().from(agents).where(where).get())!, created: false };
}

/** The agents a key may see, ordered by id, a page at a time. */
export async function listAgents(env: Env, key: Pick<KeyPrincipal, "tenantId" | "agentIds">, page: { limit: number; cursor?: string | undefined }) {
  let after: string | undefined;
  if (page.cursor) {
    const decoded = decodeCursor(page.cursor);
    if (!decoded || typeof decoded.a !== "string") throw badRequest("The cursor is not valid.", [{ path: "query.cursor", message: "Not a cursor from this API" }]);
    after = decoded.a;
  }
  const rows = await db(env)
    .select()
    .from(agents)
    .where(and(eq(agents.tenantId, key.tenantId), after ? gt(agents.agentId, after) : undefined, key.agentIds ? inArray(agents.agentId, key.agentIds) : undefined))
    .orderBy(asc(agents.agentId))
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit);
  return { items: items.map(presentAgent), nextCursor: rows.length > page.limit ? encodeCursor({ a: items[items.length - 1]!.agentId }) : null };
}
