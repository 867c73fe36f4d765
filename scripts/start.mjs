// `npm start`: install if needed, create .dev.vars with an operator key and development rules,
// apply local D1 migrations, then serve the API with wrangler dev on http://localhost:8787.
import { execSync, spawn } from "node:child_process";
import { ensureDevVars } from "./dev-vars.mjs";

execSync("node scripts/ensure-deps.mjs", { stdio: "inherit" });

const port = process.env.PORT ?? "8787";
const { adminKey, generated } = ensureDevVars();
if (generated) console.log("Generated an operator key in .dev.vars");

execSync("npx wrangler d1 migrations apply DB --local", {
  stdio: "inherit",
  env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" },
});

console.log(`
Praxis is starting on http://localhost:${port}
  Operator key (PRAXIS_ADMIN_KEY): ${adminKey}
  API reference:                  http://localhost:${port}/docs

Create a tenant (prints its admin API key once):
  curl -s -X POST http://localhost:${port}/v1/tenants \\
    -H "Authorization: Bearer ${adminKey}" \\
    -H "Content-Type: application/json" \\
    -d '{"name":"my-team"}'
`);

// Telemetry would only try (and fail) to leave a machine that may have no network.
const dev = spawn("npx", ["wrangler", "dev", "--port", port, "--test-scheduled", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));
