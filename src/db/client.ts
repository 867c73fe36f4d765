import { drizzle } from "drizzle-orm/d1";

/**
 * The D1 database through drizzle's query builder. No relational schema is passed: nothing uses
 * `db.query`, and with one drizzle re-derives the relations of every table on each call, which
 * was a visible share of a request's CPU time.
 */
export const db = (env: { DB: D1Database }) => drizzle(env.DB);
export type Db = ReturnType<typeof db>;
