// The project runs on Node >= 22 (wrangler and the workerd test pool require it). On an older
// `node`, `npm start` and `npm test` re-run themselves under a Node LTS taken from the npm
// registry's `node` package (through npx, cached after the first run), so a host with only an
// older Node and npm needs nothing else. Everything the re-run spawns (npm, npx, wrangler, vitest)
// finds that Node first on PATH.
import { spawn } from "node:child_process";

export const MIN_NODE_MAJOR = 22;
/** The Node LTS fetched for an older host. */
export const FALLBACK_NODE = "node@24";

/** Returns when this process already runs on a supported Node; otherwise re-runs it and exits with its status. */
export async function ensureSupportedNode() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= MIN_NODE_MAJOR) return;
  console.log(`Node ${process.versions.node} is older than Node ${MIN_NODE_MAJOR}; running under ${FALLBACK_NODE} from the npm registry.`);
  const npx = process.platform === "win32" ? "npx.cmd" : "npx";
  const child = spawn(npx, ["--yes", FALLBACK_NODE, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: {
      ...process.env,
      PRAXIS_LAUNCHED_AT: String(Date.now()),
      // Once fetched, the Node package comes from npm's cache without asking the registry, so a
      // machine that has gone offline still starts.
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
    },
  });
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
  const code = await new Promise((resolve) => child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  process.exit(code);
}

// As a command: `node scripts/supported-node.mjs <node arguments…>` runs Node with those arguments
// on a supported version (npm scripts that need a current Node, e.g. type stripping).
if (import.meta.url === `file://${process.argv[1]}`) {
  await ensureSupportedNode();
  const child = spawn(process.execPath, process.argv.slice(2), { stdio: "inherit" });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
