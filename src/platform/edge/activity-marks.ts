import type { Env } from "../../env";

/**
 * When keys were last used and agents last active, kept off the hot path: each isolate collects
 * the marks and writes them in one D1 batch once its oldest unwritten mark is a minute old (the
 * resolution both fields promise). A burst of requests therefore writes nothing to D1 while it is
 * served; an isolate that ends before its batch is due loses at most a minute of marks.
 */
const FLUSH_AFTER_MS = 60_000;

const keys = new Map<string, number>();
const agents = new Map<string, { tenantId: string; agentId: string; at: number }>();
let oldest = 0;

export function markKeyUsed(keyId: string, at: number): void {
  if (keys.size + agents.size === 0) oldest = at;
  keys.set(keyId, at);
}

export function markAgentActive(tenantId: string, agentId: string, at: number): void {
  if (keys.size + agents.size === 0) oldest = at;
  agents.set(`${tenantId}\u0000${agentId}`, { tenantId, agentId, at });
}

/** Starts the batch write, in the background, when one is due. */
export function flushMarksIfDue(env: Env, ctx: { waitUntil(p: Promise<unknown>): void }, now: number): void {
  if (keys.size + agents.size === 0 || now - oldest < FLUSH_AFTER_MS) return;
  const statements = [
    ...[...keys].map(([id, at]) =>
      env.DB.prepare("UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?").bind(at, id),
    ),
    ...[...agents.values()].map((a) =>
      env.DB.prepare("UPDATE agents SET last_active_at = max(coalesce(last_active_at, 0), ?) WHERE tenant_id = ? AND agent_id = ?").bind(
        a.at,
        a.tenantId,
        a.agentId,
      ),
    ),
  ];
  keys.clear();
  agents.clear();
  ctx.waitUntil(env.DB.batch(statements).catch(() => undefined));
}
