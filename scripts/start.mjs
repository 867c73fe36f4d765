// `npm start`: on Node >= 22 (fetched when the host's is older), install if needed, create
// .dev.vars with an operator key and development rules, apply local D1 migrations, then serve the
// API with wrangler dev and print one "ready" line once it answers /healthz.
import { execFileSync, spawn } from "node:child_process";
import { ensureDevVars } from "./dev-vars.mjs";
import { ensureSupportedNode } from "./supported-node.mjs";

await ensureSupportedNode();
const startedAt = Number(process.env.PRAXIS_LAUNCHED_AT ?? Date.now());
execFileSync(process.execPath, ["scripts/ensure-deps.mjs"], { stdio: "inherit" });

const port = process.env.PORT ?? "8787";
const base = `http://localhost:${port}`;
const { adminKey, generated } = ensureDevVars();
if (generated) console.log("Generated an operator key in .dev.vars");

// A machine may have no network: no telemetry, no update check, and no download of the `request.cf`
// sample (workers.cloudflare.com/cf.json), whose failure wrangler would print as a stack trace.
const quiet = {
  ...process.env,
  CI: "1",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  NO_UPDATE_NOTIFIER: "1",
  npm_config_update_notifier: "false",
};
const wrangler = (args) => [process.execPath, ["node_modules/wrangler/bin/wrangler.js", ...args]];

try {
  const [cmd, args] = wrangler(["d1", "migrations", "apply", "DB", "--local"]);
  execFileSync(cmd, args, { env: quiet, stdio: "pipe" });
} catch (err) {
  process.stderr.write(err.stdout ?? "");
  process.stderr.write(err.stderr ?? "");
  console.error("Applying the local D1 migrations failed (output above).");
  process.exit(1);
}

const [cmd, args] = wrangler(["dev", "--port", port, "--test-scheduled", "--show-interactive-dev-session=false", ...process.argv.slice(2)]);
const dev = spawn(cmd, args, { stdio: ["inherit", "pipe", "pipe"], env: quiet });
// wrangler's own "Ready on …" line appears before the Worker has answered anything; ours replaces it.
const relay = (from, to) => {
  let buffered = "";
  from.on("data", (chunk) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines) if (!/\bReady on https?:\/\//.test(line)) to.write(`${line}\n`);
  });
};
relay(dev.stdout, process.stdout);
relay(dev.stderr, process.stderr);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));

async function waitUntilHealthy() {
  for (;;) {
    if (dev.exitCode !== null) return false;
    try {
      // The first request waits for the Worker to load; one probe at a time.
      const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(60_000) });
      if (res.ok) return true;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

if (await waitUntilHealthy()) {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  console.log(`
Praxis is ready on ${base} (${seconds} s) · API docs ${base}/docs · dashboard ${base}/dashboard
  Operator key (PRAXIS_ADMIN_KEY): ${adminKey}
  Create a tenant (prints its admin API key once):
    curl -s -X POST ${base}/v1/tenants -H "Authorization: Bearer ${adminKey}" \\
      -H "Content-Type: application/json" -d '{"name":"my-team"}'
`);
}
