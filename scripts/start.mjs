// `npm start`: install if needed, create .dev.vars with an operator key, apply local D1
// migrations, then serve the API with wrangler dev on http://localhost:8787.
import { execSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

execSync("node scripts/ensure-deps.mjs", { stdio: "inherit" });

const port = process.env.PORT ?? "8787";
let vars = existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "";
let adminKey = /^PRAXIS_ADMIN_KEY\s*=\s*"?([^"\n]+)"?/m.exec(vars)?.[1];
if (!adminKey) {
  adminKey = `pxadmin_${randomBytes(24).toString("base64url")}`;
  vars += `${vars && !vars.endsWith("\n") ? "\n" : ""}PRAXIS_ADMIN_KEY="${adminKey}"\n`;
  writeFileSync(".dev.vars", vars, { mode: 0o600 });
  console.log("Generated an operator key in .dev.vars");
}

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
