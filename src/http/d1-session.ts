import type { Context } from "hono";
import type { AppEnv } from "../env";
import { derivedEnv } from "../config";

/**
 * D1 read replication for one request. Reads go to the nearest replica through a D1 session; a
 * client that just wrote returns the `x-d1-bookmark` it was given, and the replica answering its
 * next request waits until it has caught up to that write (sequential consistency). Without a
 * bookmark a GET may read any replica; other methods start at the primary, since they usually read
 * what they are about to change. Writes always go to the primary.
 */
export const BOOKMARK_HEADER = "x-d1-bookmark";
/** Bookmarks are opaque, short strings; anything else is not one of ours. */
const BOOKMARK_RE = /^[\x21-\x7e]{1,256}$/;

export function useD1Session(c: Context<AppEnv>): () => void {
  const primary = c.env.DB;
  if (typeof primary.withSession !== "function") return () => undefined;
  const sent = c.req.header(BOOKMARK_HEADER);
  const start =
    sent && BOOKMARK_RE.test(sent) ? sent : c.req.method === "GET" || c.req.method === "HEAD" ? "first-unconstrained" : "first-primary";
  const session = primary.withSession(start);
  // Drizzle and the use cases see the session as their database: it has the methods they call.
  const db = {
    prepare: (query: string) => session.prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => session.batch<T>(statements),
    exec: (query: string) => primary.exec(query),
    dump: () => primary.dump(),
    withSession: (constraint?: string) => primary.withSession(constraint),
  } as D1Database;
  c.env = derivedEnv(c.env, { ...c.env, DB: db });
  return () => {
    const bookmark = session.getBookmark();
    if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
  };
}
