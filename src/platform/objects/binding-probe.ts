import type { Env } from "../../env";
import { derivedEnv } from "../../config";

/**
 * Round trips to the bindings on the request path, made observable: every D1 query (a batch is one
 * round trip), Durable Object call, KV operation and location-cache operation (`CACHE`, the Cache
 * API, reached through `probeCaches`) passes through `hook` first, which may count it, delay it or
 * fail it. Tests count and inject faults with it; the far-edge bench adds latency
 * (bench/edge-worker.ts). Nothing in production wraps its bindings.
 */
export type ProbedBinding = "DB" | "AGENT_MEMORY" | "PRAXIS_KEYS" | "CACHE";

export interface ProbeHooks {
  /** Before the round trip: may wait (latency) or throw (a fault that never reached the binding). */
  before?(binding: ProbedBinding, op: string): void | Promise<void>;
  /** After the binding answered: may throw (a fault whose effect already happened). */
  after?(binding: ProbedBinding, op: string): void | Promise<void>;
}

async function roundTrip<T>(hooks: ProbeHooks, binding: ProbedBinding, op: string, call: () => Promise<T>): Promise<T> {
  await hooks.before?.(binding, op);
  const value = await call();
  await hooks.after?.(binding, op);
  return value;
}

const RAW = Symbol("raw statement");
type Probed<T> = T & { [RAW]?: T };
const raw = <T>(s: T): T => (s as Probed<T>)[RAW] ?? s;

function probeStatement(stmt: D1PreparedStatement, hooks: ProbeHooks): D1PreparedStatement {
  const wrapped: Probed<D1PreparedStatement> = {
    [RAW]: stmt,
    bind: (...values: unknown[]) => probeStatement(stmt.bind(...values), hooks),
    first: ((col?: string) =>
      roundTrip(hooks, "DB", "first", () => (col === undefined ? stmt.first() : stmt.first(col)))) as D1PreparedStatement["first"],
    all: (() => roundTrip(hooks, "DB", "all", () => stmt.all())) as D1PreparedStatement["all"],
    run: (() => roundTrip(hooks, "DB", "run", () => stmt.run())) as D1PreparedStatement["run"],
    raw: ((opts?: { columnNames?: boolean }) =>
      roundTrip(hooks, "DB", "raw", () => stmt.raw(opts as { columnNames: true }))) as D1PreparedStatement["raw"],
  };
  return wrapped;
}

function probeD1Session(session: D1DatabaseSession, hooks: ProbeHooks): D1DatabaseSession {
  return {
    prepare: (query: string) => probeStatement(session.prepare(query), hooks),
    batch: ((stmts: D1PreparedStatement[]) =>
      roundTrip(hooks, "DB", "batch", () => session.batch(stmts.map(raw)))) as D1DatabaseSession["batch"],
    getBookmark: () => session.getBookmark(),
  };
}

function probeD1(db: D1Database, hooks: ProbeHooks): D1Database {
  return {
    prepare: (query: string) => probeStatement(db.prepare(query), hooks),
    batch: ((stmts: D1PreparedStatement[]) => roundTrip(hooks, "DB", "batch", () => db.batch(stmts.map(raw)))) as D1Database["batch"],
    exec: (query: string) => roundTrip(hooks, "DB", "exec", () => db.exec(query)),
    dump: () => roundTrip(hooks, "DB", "dump", () => db.dump()),
    withSession: (constraint?: string) => probeD1Session(db.withSession(constraint), hooks),
  } as D1Database;
}

function probeStub<T extends object>(stub: T, hooks: ProbeHooks): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function" || prop === "then") return value;
      // Reflect.apply: an RPC stub's method would take `.apply` for the name of a remote method.
      return (...args: unknown[]) => roundTrip(hooks, "AGENT_MEMORY", prop, () => Promise.resolve(Reflect.apply(value, target, args)));
    },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: any object's namespace; the stub is probed by method name, whatever its class
function probeNamespace<T extends DurableObjectNamespace<any>>(ns: T, hooks: ProbeHooks): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "getByName" || prop === "get") {
        return (...args: unknown[]) => probeStub(Reflect.apply(value as (...a: unknown[]) => object, target, args) as object, hooks);
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function probeKv(kv: KVNamespace, hooks: ProbeHooks): KVNamespace {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function") return value;
      return (...args: unknown[]) => roundTrip(hooks, "PRAXIS_KEYS", prop, () => Reflect.apply(value, target, args) as Promise<unknown>);
    },
  });
}

const CACHE_OPS = new Set(["match", "matchAll", "put", "add", "addAll", "delete", "keys"]);

function probeCache(cache: Cache, hooks: ProbeHooks): Cache {
  return new Proxy(cache, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function") return value;
      if (!CACHE_OPS.has(prop)) return value.bind(target);
      return (...args: unknown[]) => roundTrip(hooks, "CACHE", prop, () => Reflect.apply(value, target, args) as Promise<unknown>);
    },
  });
}

/**
 * The Cache API with every cache's operations passing through `hooks`. The Cache API is a global,
 * not a binding, so whoever probes it puts this in place of `globalThis.caches`.
 */
export function probeCaches(storage: CacheStorage, hooks: ProbeHooks): CacheStorage {
  return {
    open: async (name: string) => probeCache(await storage.open(name), hooks),
    get default() {
      return probeCache(storage.default, hooks);
    },
  } as CacheStorage;
}

/** The same environment with D1, the agents' Durable Objects and the key cache passing through `hooks`. */
export function probeEnv<E extends Env>(env: E, hooks: ProbeHooks): E {
  return derivedEnv(env, {
    ...env,
    DB: probeD1(env.DB, hooks),
    AGENT_MEMORY: probeNamespace(env.AGENT_MEMORY, hooks),
    ...(env.PRAXIS_KEYS ? { PRAXIS_KEYS: probeKv(env.PRAXIS_KEYS, hooks) } : {}),
  });
}
