// @ts-check
// Bundles the CLI (cli/src/main.ts and the client/src it imports) with esbuild into
// node_modules/.cache/praxis-cli/praxis.js, so plain Node runs it: a build cache that follows the
// install, outside the sources and the type-check; npm packages stay imports resolved from node_modules.
// `npm run pack` (scripts/pack.mjs) asks for a standalone bundle instead: npm packages inside it too,
// so the installed `praxis` needs nothing from the registry.
//   node cli/build.mjs          build when a source is newer than the bundle (what cli/praxis.mjs does)
//   node cli/build.mjs --force  build unconditionally
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadEsbuild } from "./esbuild.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(here, "..", "node_modules", ".cache", "praxis-cli", "praxis.js");
const SOURCES = [
  path.join(here, "src"),
  path.join(here, "..", "client", "src"),
  path.join(here, "..", "package.json"),
  fileURLToPath(import.meta.url),
];

/** @param {string} p @returns {number} the newest modification time under p */
function newest(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(p).map((name) => newest(path.join(p, name))));
}

/**
 * Writes the bundle to `outfile`. `standalone` puts the npm packages inside it as well, with a
 * shebang and the `require` their CommonJS code calls for Node's own modules.
 */
export async function build({ outfile = OUT, standalone = false } = {}) {
  const { build: esbuild } = await loadEsbuild();
  // Written beside the bundle and renamed over it: a CLI started meanwhile never reads half a file.
  const tmp = `${outfile}.${process.pid}.tmp`;
  mkdirSync(path.dirname(outfile), { recursive: true });
  await esbuild({
    entryPoints: [path.join(here, "src", "main.ts")],
    outfile: tmp,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    ...(standalone
      ? {
          banner: {
            js: '#!/usr/bin/env node\nimport { createRequire as __praxisRequire } from "node:module";\nconst require = __praxisRequire(import.meta.url);',
          },
        }
      : { packages: "external", sourcemap: "inline" }),
    logLevel: "warning",
  });
  renameSync(tmp, outfile);
}

/** The bundle's file URL, built first when missing or older than a source. */
export async function builtCli() {
  if (!existsSync(OUT) || statSync(OUT).mtimeMs < Math.max(...SOURCES.map(newest))) await build();
  return pathToFileURL(OUT).href;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--force")) await build();
  else await builtCli();
}
