import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { Env } from "../../env";
import { agents } from "../../db/schema";
import { db } from "../../db/client";
import type { KeyPrincipal } from "../../core/principal";
import { cursorField, pageOf } from "../../core/cursor";

export type AgentRow = typeof agents.$inferSelect;

/** An agent as the API shows it. */
export const presentAgent = (a: AgentRow) => ({
  agentId: a.agentId,
  displayName: a.displayName ?? null,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  lastActiveAt: a.lastActiveAt ?? null,
});

/** The agents a key may see, ordered by id, a page at a time. */
export async function agentPage(
  env: Env,
  key: Pick<KeyPrincipal, "tenantId" | "agentIds">,
  page: { limit: number; cursor?: string | undefined },
) {
  const after = cursorField(page.cursor, { a: "string" })?.a;
  const rows = await db(env)
    .select()
    .from(agents)
    .where(
      and(
        eq(agents.tenantId, key.tenantId),
        after ? gt(agents.agentId, after) : undefined,
        key.agentIds ? inArray(agents.agentId, key.agentIds) : undefined,
      ),
    )
    .orderBy(asc(agents.agentId))
    .limit(page.limit + 1)
    .all();
  const { items, nextCursor } = pageOf(rows, page.limit, (last) => ({ a: last.agentId }));
  return { items: items.map(presentAgent), nextCursor };
}
