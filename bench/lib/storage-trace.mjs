// The Durable Objects' storage work while a piece of a bench runs: pread64/pwrite64 calls of the
// processes holding a Durable Object's SQLite file under a wrangler dev state directory, counted by
// strace from outside, in total and by file (one file per object).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sleep } from "./dev-server.mjs";

/** The processes with a Durable Object's SQLite file open under `stateDir`, each with those files by descriptor. */
export function doFiles(stateDir) {
  const found = new Map();
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    let fds;
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target.startsWith(path.join(stateDir, "v3", "do"))) {
        if (!found.has(pid)) found.set(pid, new Map());
        found.get(pid).set(Number(fd), target);
      }
    }
  }
  return found;
}

/**
 * pread64/pwrite64 calls on the Durable Objects' SQLite files while `work` runs: `accesses` in all,
 * `files`, how many distinct files (objects, with their journals) they touched, and `byFile`, the
 * accesses to each, most first. It starts after
 * `settleMs`, longer than the use counters' flush window, so what earlier requests left to send is
 * sent before, not counted here. Files opened while `work` runs are named from a second look after.
 */
export async function storageTrace(stateDir, work, { settleMs = 2500 } = {}) {
  await sleep(settleMs);
  const files = doFiles(stateDir);
  if (!files.size) throw new Error(`no process holds a Durable Object's SQLite file under ${stateDir}`);
  const out = path.join(os.tmpdir(), `praxis-strace-${randomBytes(4).toString("hex")}.txt`);
  const tracer = spawn("strace", ["-f", "-qq", "-e", "trace=pread64,pwrite64", "-o", out, ...[...files.keys()].flatMap((p) => ["-p", p])], {
    stdio: "ignore",
  });
  await sleep(500);
  const result = await work();
  tracer.kill("SIGINT");
  await new Promise((r) => tracer.once("exit", r));
  const byFd = new Map();
  for (const seen of [doFiles(stateDir), files])
    for (const m of seen.values()) for (const [fd, file] of m) if (!byFd.has(fd)) byFd.set(fd, file);
  let accesses = 0;
  const touched = new Map();
  for (const line of readFileSync(out, "utf8").split("\n")) {
    const m = /^\s*\d+\s+p(?:read|write)64\((\d+),/.exec(line);
    const file = m ? byFd.get(Number(m[1])) : undefined;
    if (!file) continue;
    accesses++;
    const object = path.basename(file).replace(/-(wal|shm|journal)$/, "");
    touched.set(object, (touched.get(object) ?? 0) + 1);
  }
  execFileSync("rm", ["-f", out]);
  const byFile = [...touched.values()].sort((a, b) => b - a);
  return { accesses, files: touched.size, byFile, result };
}
