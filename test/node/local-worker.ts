import { randomBytes } from "node:crypto";
import { devServer } from "../../bench/lib/dev-server.mjs";

export interface LocalWorker {
  /** Base URL of the Worker, e.g. http://127.0.0.1:8931 (no trailing slash). */
  url: string;
  /** The operator key (PRAXIS_ADMIN_KEY) the Worker was started with: POST /v1/tenants takes it. */
  adminKey: string;
  stop(): Promise<void>;
}

/**
 * The real Worker under `wrangler dev` on 127.0.0.1, serving a snapshot of the project with fresh
 * D1 migrations in a temporary --persist-to directory: the same lifecycle the benchmarks use.
 * Node-side tests (CLI, client, browser) reach it over HTTP; `vars` are added as --var.
 */
export async function startLocalWorker(vars: Record<string, string> = {}): Promise<LocalWorker> {
  const adminKey = `pxadmin_${randomBytes(18).toString("base64url")}`;
  const server = devServer({ tmpPrefix: "praxis-node-test-" });
  // Ports are spread so several test files (and other helpers' runs) rarely probe the same ones.
  const firstPort = 9100 + Math.floor(Math.random() * 800);
  try {
    const { base } = await server.start({ firstPort, vars: { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn", ...vars } });
    return { url: base, adminKey, stop: () => server.cleanup() };
  } catch (err) {
    await server.cleanup();
    throw err;
  }
}
