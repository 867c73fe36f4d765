// The local Worker under `wrangler dev` for the benchmarks, and what they share around it: free
// ports, a keep-alive HTTP client, the machine description and the RESULTS.md sections.
//
// wrangler dev serves a snapshot of the project copied at start (so concurrent edits cannot
// hot-reload it mid-run) with a fresh temporary --persist-to state directory. Its process group
// is killed on cleanup, on exit and on SIGINT/SIGTERM/SIGHUP. Every loop is bounded.
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { performance } from "node:perf_hooks";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** USER_HZ: /proc/<pid>/stat counts CPU time in these on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const log = (...a) => console.error("[bench]", ...a); // progress on stderr; the tables go to stdout

export function tail(file, lines = 30) {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** The first port from `start` on that 127.0.0.1 can listen on (50 tried). */
export async function freePort(start) {
  const tryPort = (p) =>
    new Promise((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(false));
      s.listen(p, "127.0.0.1", () => s.close(() => resolve(true)));
    });
  for (let p = start; p < start + 50; p++) if (await tryPort(p)) return p;
  throw new Error(`no free port in ${start}..${start + 49}`);
}

/** A port the OS has just handed out: unlike a scan from a fixed start, two processes starting at once get different ones. */
async function ephemeralPort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------- HTTP
const REQUEST_TIMEOUT_MS = 60_000;
export const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });

/** One request; resolves { status, body (parsed JSON when possible), ms } with client wall time. */
export function request(method, url, token, body, timeoutMs = REQUEST_TIMEOUT_MS) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    if (payload) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(payload.length);
    }
    const t0 = performance.now();
    const req = http.request(url, { method, headers, agent: httpAgent }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const ms = performance.now() - t0;
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          /* keep text */
        }
        resolve({ status: res.statusCode, body: parsed, ms });
      });
      res.on("error", reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url}`)));
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

export async function must(method, url, token, body, okStatuses = [200, 201]) {
  const r = await request(method, url, token, body);
  if (!okStatuses.includes(r.status)) {
    throw new Error(`${method} ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 600)}`);
  }
  return r;
}

// ---------------------------------------------------------------- wrangler dev
const wranglerBin = existsSync(path.join(root, "node_modules/.bin/wrangler")) ? path.join(root, "node_modules/.bin/wrangler") : null;
const wranglerCmd = (args) => (wranglerBin ? [wranglerBin, args] : ["npx", ["wrangler", ...args]]);
const quietEnv = {
  ...process.env,
  CI: "1",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false", // no fetch of the Request.cf object from workers.cloudflare.com
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

/**
 * wrangler dev watches its sources and restarts the Worker (and every Durable Object) whenever a
 * file changes. Serving a snapshot of the project taken at start keeps concurrent edits elsewhere
 * from restarting it mid-run and pins the code being measured: the working tree as it is, or with
 * `fromHead` the last commit (so someone's half-finished edits are not what gets measured).
 */
const SNAPSHOT_SKIP = new Set(["node_modules", ".git", ".wrangler", ".dev.vars", "test", "bench", "dist"]);
function snapshotProject(dest, fromHead, main, from = root) {
  mkdirSync(dest, { recursive: true });
  if (fromHead) {
    const entries = execFileSync("git", ["-C", from, "ls-tree", "--name-only", "HEAD"], { encoding: "utf8" })
      .split("\n")
      .filter((e) => e && !SNAPSHOT_SKIP.has(e) && !e.endsWith(".log"));
    if (main) entries.push(main);
    const tar = execFileSync("git", ["-C", from, "archive", "--format=tar", "HEAD", ...entries], { maxBuffer: 256 * 1024 * 1024 });
    execFileSync("tar", ["-x", "-C", dest], { input: tar });
  } else {
    for (const entry of readdirSync(from)) {
      if (SNAPSHOT_SKIP.has(entry) || entry.endsWith(".log")) continue;
      cpSync(path.join(from, entry), path.join(dest, entry), { recursive: true });
    }
    if (main) cpSync(path.join(from, main), path.join(dest, main));
  }
  symlinkSync(path.join(from, "node_modules"), path.join(dest, "node_modules"), "dir");
}

/**
 * A local D1 state with the project's migrations applied, made once per set of migrations (and
 * wrangler version and configuration) and copied for each server: `wrangler d1 migrations apply`
 * costs seconds of CPU, and the Node suite starts several servers at once. Whoever builds it
 * first renames it into place; a builder that loses the race uses the winner's.
 */
function migratedState(app) {
  const hash = createHash("sha256");
  hash.update(JSON.parse(readFileSync(path.join(root, "node_modules/wrangler/package.json"), "utf8")).version);
  hash.update(readFileSync(path.join(app, "wrangler.toml")));
  const migrations = path.join(app, "migrations");
  const files = readdirSync(migrations, { withFileTypes: true }).filter((e) => e.isFile());
  for (const file of files.map((e) => e.name).sort()) hash.update(file).update(readFileSync(path.join(migrations, file)));
  const template = path.join(root, "node_modules/.cache/praxis-d1-state", hash.digest("hex").slice(0, 16));
  if (existsSync(template)) return template;
  mkdirSync(path.dirname(template), { recursive: true });
  const building = mkdtempSync(`${template}.building-`);
  const [cmd, args] = wranglerCmd(["d1", "migrations", "apply", "DB", "--local", "--persist-to", building]);
  execFileSync(cmd, args, { cwd: app, env: quietEnv, stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 });
  try {
    renameSync(building, template);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * One wrangler dev for a benchmark. `stopping` turns true on a signal (loops stop, nothing new
 * starts); `cleanup()` is idempotent and every caller awaits the same teardown, so an exit
 * cannot cut it short. `onCleanup(fn)` adds teardown of the bench's own (servers, sockets).
 * `project` is the directory served (a snapshot of it): this repository unless a test gives another.
 */
export function devServer({ keep = false, tmpPrefix = "praxis-bench-", project = root, state: startState = null } = {}) {
  let dev = null; // the wrangler child (its own process group)
  let tmpDir = null;
  let cleanupPromise = null;
  let stopping = false;
  const hooks = [() => httpAgent.destroy()];

  function killDev(signal = "SIGTERM") {
    if (!dev || dev.exitCode !== null || dev.signalCode !== null) return;
    dev.killedByUs = true;
    try {
      process.kill(-dev.pid, signal); // the whole group: npx/wrangler/workerd
    } catch {
      /* already gone */
    }
  }

  async function doCleanup() {
    if (dev && dev.exitCode === null && dev.signalCode === null) {
      const exited = new Promise((r) => dev.once("exit", r));
      killDev("SIGTERM");
      const t = setTimeout(() => killDev("SIGKILL"), 5000);
      await Promise.race([exited, sleep(8000)]);
      clearTimeout(t);
      killDev("SIGKILL");
    }
    for (const hook of hooks) {
      try {
        await hook();
      } catch {
        /* best effort */
      }
    }
    if (tmpDir && !keep) rmSync(tmpDir, { recursive: true, force: true });
    else if (tmpDir) log(`kept ${tmpDir}`);
  }
  const cleanup = () => (cleanupPromise ??= doCleanup());

  process.on("exit", () => killDev("SIGKILL")); // last resort, synchronous
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      log(`${sig}: stopping`);
      cleanup().finally(() => process.exit(130));
    });
  }

  let launched = null; // what start() was called with, for restart()

  /**
   * Migrates a fresh D1, starts wrangler dev with `vars` and waits (≤ 90 s) for /healthz. `main`
   * (a path in the project) serves another entry module than wrangler.toml's, e.g. the edge bench's.
   */
  async function start({ firstPort, vars, fromHead = false, logLevel = "warn", main }) {
    tmpDir = mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
    const app = path.join(tmpDir, "app");
    const state = path.join(tmpDir, "state");
    log(`snapshot${fromHead ? " of HEAD" : ""} and state in ${tmpDir}`);
    snapshotProject(app, fromHead, main, project);
    // A kept run's state (`state`) starts where that run ended, its agents loaded.
    cpSync(startState ?? migratedState(app), state, { recursive: true });
    launched = { firstPort, vars, logLevel, main };
    return launch();
  }

  /**
   * Stops wrangler dev (SIGTERM, or `signal`: SIGKILL for a crash) and starts it again on the same
   * snapshot and state: every Durable Object is evicted, so the next request to one is its cold start.
   */
  async function restart({ signal = "SIGTERM" } = {}) {
    if (!launched) throw new Error("restart() before start()");
    if (dev && dev.exitCode === null && dev.signalCode === null) {
      const exited = new Promise((r) => dev.once("exit", r));
      killDev(signal);
      await Promise.race([exited, sleep(8000)]);
      killDev("SIGKILL");
    }
    return launch();
  }

  /** restart() with other variables (same snapshot and state). */
  async function restartWith(vars) {
    if (!launched) throw new Error("restartWith() before start()");
    launched = { ...launched, vars };
    return restart();
  }

  async function launch() {
    const { firstPort, vars, logLevel, main } = launched;
    const app = path.join(tmpDir, "app");
    const state = path.join(tmpDir, "state");
    const port = await freePort(firstPort);
    const inspectorPort = await ephemeralPort();
    // Given an env file, wrangler dev reads neither the project's .dev.vars nor its .env files (a
    // developer's own LLM, embedder or keys): the Worker's variables are wrangler.toml's and `vars`.
    const ownEnv = path.join(tmpDir, "own.env");
    writeFileSync(ownEnv, "# The variables of this run are its --var flags.\n");
    const [cmd, args] = wranglerCmd([
      "dev",
      ...(main ? [main] : []),
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      // Wrangler's devtools port defaults to 9229 for every instance; parallel suites would collide on it.
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      state,
      "--env-file",
      ownEnv,
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      "--show-interactive-dev-session=false",
      "--log-level",
      logLevel,
    ]);
    const logFile = path.join(tmpDir, "wrangler-dev.log");
    const out = createWriteStream(logFile, { flags: "a" });
    dev = spawn(cmd, args, { cwd: app, env: quietEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    dev.stdout.pipe(out);
    dev.stderr.pipe(out);
    let exited = null;
    dev.once("exit", (code, sig) => (exited = { code, sig }));

    const base = `http://127.0.0.1:${port}`;
    const started = performance.now();
    for (let i = 0; i < 240; i++) {
      if (exited) throw new Error(`wrangler dev exited early (${JSON.stringify(exited)}); see ${logFile}:\n${tail(logFile)}`);
      try {
        const r = await request("GET", `${base}/healthz`, undefined, undefined, 2000);
        if (r.status === 200) {
          log(`worker ready on ${base} after ${((performance.now() - started) / 1000).toFixed(1)} s`);
          // A Worker that dies under a running suite shows up as refused connections; say why here.
          const child = dev;
          child.once("exit", (code, sig) => {
            if (!child.killedByUs)
              log(`wrangler dev on ${base} exited by itself (${code ?? sig}); the end of ${logFile}:\n${tail(logFile, 60)}`);
          });
          return { base, port, logFile, inspectorPort };
        }
      } catch {
        /* not up yet */
      }
      await sleep(250);
      if (performance.now() - started > 90_000) break;
    }
    throw new Error(`wrangler dev did not become healthy within 90 s; see ${logFile}:\n${tail(logFile)}`);
  }

  /**
   * CPU seconds (user + system) used so far by wrangler dev's process group (wrangler, workerd),
   * from /proc; null where there is no /proc. The difference over a run is its server-side CPU.
   */
  function cpuSeconds() {
    if (!dev || !existsSync("/proc")) return null;
    let ticks = 0;
    for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
      try {
        // Fields after the parenthesised command name: state ppid pgrp … utime(14) stime(15).
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(f[2]) === dev.pid) ticks += Number(f[11]) + Number(f[12]);
      } catch {
        /* the process ended meanwhile */
      }
    }
    return ticks / CLOCK_TICKS_PER_SECOND;
  }

  return {
    start,
    restart,
    restartWith,
    cleanup,
    cpuSeconds,
    onCleanup: (fn) => hooks.push(fn),
    get stopping() {
      return stopping;
    },
  };
}

/** What wrangler dev logged that a benchmark should report: reloads and error lines. */
export function devLogFindings(logFile) {
  let text = "";
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    /* no log */
  }
  const reloads = (text.match(/Reloading local server/g) ?? []).length;
  const errors = text
    .split("\n")
    .filter((l) => /ERROR|Uncaught|restarted/i.test(l))
    .map((l) =>
      l
        .replace(/\x1b\[[0-9;]*m/g, "")
        .replace(/\\n\s+at .*/g, "")
        .trim()
        .slice(0, 240),
    );
  return { reloads, errors };
}

// ---------------------------------------------------------------- report
export function machine() {
  let cpu = "unknown";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown";
  } catch {
    cpu = os.cpus()[0]?.model ?? "unknown";
  }
  const ver = (...candidates) => {
    for (const p of candidates) {
      try {
        return JSON.parse(readFileSync(path.join(root, "node_modules", p, "package.json"), "utf8")).version;
      } catch {
        /* try the next */
      }
    }
    return "unknown";
  };
  return {
    cpu,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    wrangler: ver("wrangler"),
    workerd: ver("wrangler/node_modules/workerd", "workerd"), // the one wrangler dev runs
  };
}

export const RESULTS_FILE = path.join(root, "bench", "RESULTS.md");

/** The `## heading` section of a markdown text (up to the next `## ` heading), or null. */
export function sectionOf(text, heading) {
  const start = text.split("\n").findIndex((l) => l.trimEnd() === heading);
  if (start < 0) return null;
  const lines = text.split("\n");
  let end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  if (end < 0) end = lines.length;
  return lines.slice(start, end).join("\n").trimEnd();
}

/** Writes RESULTS.md as `text` followed by the given sections kept from the file as it was. */
export function writeResults(text, keepHeadings = []) {
  const before = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, "utf8") : "";
  const kept = keepHeadings.map((h) => sectionOf(before, h)).filter((s) => s !== null);
  writeFileSync(RESULTS_FILE, [text.trimEnd(), ...kept].join("\n\n") + "\n");
}

/** The section `npm run bench:practice` owns; `npm run bench` rewrites the rest and keeps it. */
export const PRACTICE_HEADING = "## Practice (`npm run bench:practice`)";

/** The section `npm run bench:quality` owns. */
export const QUALITY_HEADING = "## Retrieval quality (`npm run bench:quality`)";

/** Replaces the `heading` section of RESULTS.md in place (or appends it), leaving the others intact. */
export function replaceResultsSection(heading, body) {
  const before = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, "utf8") : "";
  const old = sectionOf(before, heading);
  const section = `${heading}\n\n${body.trim()}`;
  const after = old !== null ? before.replace(old, () => section) : `${before.trimEnd()}${before.trim() ? "\n\n" : ""}${section}`;
  writeFileSync(RESULTS_FILE, after.trimEnd() + "\n");
}
