// `npm test` (and `npm run test:quick` with --quick): on Node >= 22, the vitest projects (unit in
// Node, workers in workerd) with the static checks and the Node-side suite (a real `wrangler dev`)
// running beside them; their output is printed when they end. Last, the count of tests each
// suite ran, so a drop is seen.
//   --quick    type-check and the pure `unit` project only (the inner loop)
//   --browser       also the browser suite (headless Chromium against wrangler dev), beside the others
//   --browser-only  the browser suite alone (`npm run test:browser`)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureSupportedNode } from "./supported-node.mjs";

await ensureSupportedNode();
const quick = process.argv.includes("--quick");
const withBrowser = !quick && process.argv.includes("--browser");
const browserOnly = process.argv.includes("--browser-only");
const reportDir = (process.env.PRAXIS_TEST_REPORT_DIR ??= mkdtempSync(path.join(os.tmpdir(), "praxis-test-report-")));

const startedAt = Date.now();

/** Runs a command; with `capture`, its output is kept and returned instead of streamed. */
function run(cmd, args, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit", env: process.env });
    let output = "";
    if (capture) {
      child.stdout.on("data", (c) => (output += c));
      child.stderr.on("data", (c) => (output += c));
    }
    child.on("exit", (code, signal) =>
      resolve({ ok: code === 0, code: code ?? (signal ? 1 : 0), output, label: [path.basename(cmd), ...args].join(" ") }),
    );
  });
}

/** Runs commands one after another, output kept; stops at the first that fails. */
async function chain(list) {
  let output = "";
  for (const [cmd, args] of list) {
    const r = await run(cmd, args, { capture: true });
    output += r.output;
    if (!r.ok) return { ...r, output, label: `checks: ${r.label}` };
  }
  return { ok: true, code: 0, output, label: "checks (lint and format, types, generated client, dependency rules)" };
}

// Tools run on this process's Node (the supported one), whatever `node` comes first on PATH.
const node = process.execPath;
const tools = {
  vitest: "vitest/vitest.mjs",
  tsc: "typescript/bin/tsc",
  depcruise: "dependency-cruiser/bin/dependency-cruise.mjs",
  biome: "@biomejs/biome/bin/biome",
};
const tool = (name, ...args) => [node, [path.join("node_modules", tools[name]), ...args]];
if (!quick) {
  const deps = await run(node, ["scripts/ensure-deps.mjs"]);
  if (!deps.ok) process.exit(deps.code || 1);
}
if (browserOnly) {
  const r = await run(...tool("vitest", "run", "--config", "vitest.browser.config.ts"));
  process.exit(r.code);
}

// The static checks run beside the tests (the machine's cores are rarely all busy while workerd
// starts); their output is printed at the end. Type-checks keep a cache between runs.
const tscCache = (name) => ["--incremental", "--tsBuildInfoFile", path.join("node_modules", ".cache", `tsc-${name}.tsbuildinfo`)];
const checks = [tool("tsc", "--noEmit", ...tscCache("workers"))];
if (!quick) {
  checks.push(
    // `npm run lint`: Biome's linter and formatter (biome.json); `npm run format` fixes the formatting.
    tool("biome", "check", "--error-on-warnings"),
    tool("tsc", "--noEmit", "-p", "tsconfig.node.json", ...tscCache("node")),
    [node, ["scripts/gen-client.mjs", "--check"]],
    tool("depcruise", "src", "durable-objects", "types", "--config", ".dependency-cruiser.cjs"),
  );
}
const side = [chain(checks)];
if (!quick) side.push(run(...tool("vitest", "run", "--config", "vitest.node.config.ts"), { capture: true }));
if (withBrowser) side.push(run(...tool("vitest", "run", "--config", "vitest.browser.config.ts"), { capture: true }));
const main = await run(...tool("vitest", ...(quick ? ["run", "--project", "unit"] : ["run"])));
const done = await Promise.all(side);
for (const s of done) {
  console.log(`\n── ${s.label}: ${s.ok ? "passed" : `FAILED (exit ${s.code})`} ──`);
  process.stdout.write(s.output);
}

let total = 0;
for (const file of readdirSync(reportDir).sort()) {
  const r = JSON.parse(readFileSync(path.join(reportDir, file), "utf8"));
  total += r.numTotalTests;
  const other = r.numTotalTests - r.numPassedTests - r.numFailedTests;
  console.log(
    `Tests (${path.basename(file, ".json")}): ${r.numPassedTests} passed, ${r.numFailedTests} failed${other ? `, ${other} skipped/todo` : ""} in ${r.testResults.length} files`,
  );
}
console.log(`Tests run: ${total} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
process.exit([main, ...done].every((r) => r.ok) ? 0 : 1);
