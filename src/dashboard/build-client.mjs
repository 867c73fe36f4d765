// @ts-check
// Builds the dashboard's browser script: the TypeScript modules in src/dashboard/client (router,
// api, charts, one module per page, over the typed client in client/src) bundled by esbuild into
// src/dashboard/static/dashboard-client.js, which the Worker serves as a text asset. The bundle is
// committed (wrangler dev, deploy and the Workers test pool need no build step); a test runs
// `--check`, which fails when the committed bundle differs from what the sources build to.
//   node src/dashboard/build-client.mjs          rebuild the bundle
//   node src/dashboard/build-client.mjs --check  compare only (exit 1 on drift)
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadEsbuild } from "../../cli/esbuild.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(here, "static", "dashboard-client.js");
const HEADER =
  "// Built by src/dashboard/build-client.mjs from src/dashboard/client/*.ts; do not edit (run `node src/dashboard/build-client.mjs`).";

const { build } = await loadEsbuild();
const result = await build({
  entryPoints: [path.join(here, "client", "main.ts")],
  bundle: true,
  write: false,
  format: "iife",
  platform: "browser",
  target: "es2022",
  charset: "utf8",
  legalComments: "none",
  banner: { js: HEADER },
  logLevel: "warning",
});
const text = result.outputFiles[0]?.text ?? "";

if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(OUT, "utf8");
  } catch {
    // missing: reported as drift below
  }
  if (committed !== text) {
    console.error(
      `build-client --check: ${path.relative(process.cwd(), OUT)} differs from what src/dashboard/client builds to. Run \`node src/dashboard/build-client.mjs\` and commit the result.`,
    );
    process.exit(1);
  }
  console.error("build-client --check: the dashboard bundle matches its sources");
} else {
  writeFileSync(OUT, text);
  console.error(`build-client: wrote ${path.relative(process.cwd(), OUT)} (${text.length} bytes)`);
}
