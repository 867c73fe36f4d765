// Installs dependencies from the lockfile when node_modules is missing or older than the lockfile,
// so `npm start` and `npm test` work on a fresh clone with only Node and npm.
import { execFileSync, execSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";

const marker = "node_modules/.package-lock.json";
const stale = !existsSync(marker) || statSync("package-lock.json").mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  console.log("Installing dependencies (npm ci)…");
  const quiet = ["ci", "--no-audit", "--no-fund", "--loglevel=error"];
  // npm on this process's Node (the supported one, scripts/supported-node.mjs), so no dependency
  // reports an engine it does not meet.
  const npmCli = process.env.npm_execpath;
  if (npmCli && /npm-cli\.js$/.test(npmCli)) execFileSync(process.execPath, [npmCli, ...quiet], { stdio: "inherit" });
  else execSync(`npm ${quiet.join(" ")}`, { stdio: "inherit" });
}

// The `semantic` embedder's word table is derived from an installed package, so it follows the install.
execSync(`"${process.execPath}" scripts/word-vectors.mjs`, { stdio: "inherit" });
