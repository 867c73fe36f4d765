import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const localBin = path.join(root, "node_modules/.bin/wrangler");
const wrangler = (args: string[]): [string, string[]] => (existsSync(localBin) ? [localBin, args] : ["npx", ["wrangler", ...args]]);
const quietEnv = {
  ...process.env,
  CI: "1",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  NO_COLOR: "1",
};

export interface LocalWorker {
  url: string;
  adminKey: string;
  stop(): Promise<void>;
}

/** A port 127.0.0.1 can listen on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `wrangler dev` of this project on a free port, with a fresh temporary state directory whose D1
 * has every migration applied and a new operator key. `vars` are extra Worker variables (an LLM
 * endpoint, say). `stop()` ends wrangler's whole process group and removes the state.
 */
export async function startLocalWorker(opts: { vars?: Record<string, string> } = {}): Promise<LocalWorker> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "praxis-local-"));
  const state = path.join(tmp, "state");
  const logFile = path.join(tmp, "wrangler-dev.log");
  const [mcmd, margs] = wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", state]);
  execFileSync(mcmd, margs, { cwd: root, env: quietEnv, stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 });

  const adminKey = `pxadmin_${randomBytes(24).toString("base64url")}`;
  const vars = { PRAXIS_ENV: "development", LOG_LEVEL: "warn", ...opts.vars, PRAXIS_ADMIN_KEY: adminKey };
  const port = await freePort();
  const [cmd, args] = wrangler([
    "dev",
    "--port", String(port),
    "--ip", "127.0.0.1",
    "--persist-to", state,
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    "--show-interactive-dev-session=false",
    "--log-level", "warn",
  ]);
  const out = createWriteStream(logFile);
  const dev: ChildProcess = spawn(cmd, args, { cwd: root, env: quietEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  dev.stdout!.pipe(out);
  dev.stderr!.pipe(out);
  let exited = false;
  dev.once("exit", () => (exited = true));

  const kill = (signal: NodeJS.Signals) => {
    if (exited) return;
    try {
      process.kill(-dev.pid!, signal);
    } catch {
      /* already gone */
    }
  };
  const stop = async () => {
    if (!exited) {
      const done = new Promise((r) => dev.once("exit", r));
      kill("SIGTERM");
      await Promise.race([done, sleep(5000)]);
      kill("SIGKILL");
    }
    out.end();
    rmSync(tmp, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) return { url, adminKey, stop };
    } catch {
      /* not listening yet */
    }
    await sleep(250);
  }
  const log = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n") : "";
  await stop();
  throw new Error(`wrangler dev did not become healthy on ${url}:\n${log}`);
}
