import { DomainError } from "../core/errors";
import { tenantPrincipal } from "../core/principal";
import { TtlLru } from "../core/ttl-lru";
import type { ToolContext } from "./tool";

/**
 * Read-your-writes within an MCP session: the library version each write tool made for an agent
 * is remembered, and the session's next reads of that agent (get_prompt, pull_experiences) ask for
 * it as `minVersion` unless they name one. The server is stateless, so the memory is kept under
 * the session (the `Mcp-Session-Id` a client sends, else its API key: a stateless session has no
 * id of its own) in the isolate, and in the location's cache, which the other isolates serving the
 * session there see. The Cache API does nothing on *.workers.dev (only custom domains have it), so
 * there the isolate's memory is all: reads landing in another isolate may lag as without it.
 */
const CACHE_NAME = "praxis-mcp-sessions";
const CACHE_ORIGIN = "https://mcp-sessions.praxis.invalid";
/** A session silent for a day starts over: its reads are then within the staleness bound anyway. */
const TTL_S = 86_400;
/** Sessions × agents an isolate remembers; the least recently used go first. */
const HELD = 10_000;

let held = new TtlLru<string, number>(HELD, TTL_S * 1000);

/** Forgets what this isolate remembers (tests: a request landing in another isolate). */
export function forgetSessionVersions(): void {
  held = new TtlLru<string, number>(HELD, TTL_S * 1000);
}

export interface SessionVersions {
  /** The latest library version this session wrote for the agent, if it wrote any. */
  latest(agentId: string): Promise<number | undefined>;
  remember(agentId: string, version: number): Promise<void>;
  forget(agentId: string): Promise<void>;
}

export function sessionVersions(c: ToolContext): SessionVersions {
  const key = tenantPrincipal(c.get("principal"));
  const session = c.req.header("mcp-session-id") || `key:${key.keyId}`;
  const url = (agentId: string) => `${CACHE_ORIGIN}/${[key.tenantId, session, agentId].map(encodeURIComponent).join("/")}`;
  const latest = async (agentId: string) => {
    const hit = await (await caches.open(CACHE_NAME)).match(url(agentId));
    const cached = hit ? Number(await hit.text()) : Number.NaN;
    const here = held.get(url(agentId));
    if (!Number.isInteger(cached)) return here;
    return here === undefined ? cached : Math.max(here, cached);
  };
  return {
    latest,
    async remember(agentId, version) {
      if (version <= ((await latest(agentId)) ?? -1)) return;
      held.set(url(agentId), version);
      const headers = { "cache-control": `max-age=${TTL_S}` };
      await (await caches.open(CACHE_NAME)).put(url(agentId), new Response(String(version), { headers }));
    },
    async forget(agentId) {
      held.delete(url(agentId));
      await (await caches.open(CACHE_NAME)).delete(url(agentId));
    },
  };
}

/**
 * Runs a read at the session's own version of the agent's library unless it names a `minVersion`.
 * A remembered version the library never reaches (the agent was deleted and made again) is
 * forgotten, and the read answered without it, rather than failing every later read.
 */
export async function readOwnWrites<T>(
  versions: SessionVersions,
  agentId: string,
  minVersion: number | undefined,
  read: (minVersion: number | undefined) => Promise<T>,
): Promise<T> {
  if (minVersion !== undefined) return read(minVersion);
  const own = await versions.latest(agentId);
  if (own === undefined) return read(undefined);
  try {
    return await read(own);
  } catch (err) {
    if (!(err instanceof DomainError) || err.kind !== "version-not-reached") throw err;
    await versions.forget(agentId);
    return read(undefined);
  }
}
