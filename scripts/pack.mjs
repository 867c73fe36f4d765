// @ts-check
// `npm run pack`: the TypeScript client and the `praxis` CLI as one installable npm package,
// written as a tarball into dist/packages/. The client is client/dist (ES modules with .d.ts,
// fetch only, so Node >= 20, browsers and Workers); the CLI is one esbuild bundle with its npm
// packages inside (cli/build.mjs); the client's two runtime dependencies travel in the tarball as
// bundled dependencies, so `npm install <tarball>` needs nothing from the registry, and the package
// declares only the Node it runs on (>= 20), so npm has no engine to warn about.
//   node scripts/pack.mjs [--out DIR]   prints the tarball's path
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build as buildCli } from "../cli/build.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const PACKAGE_NAME = "@praxis/client";
export const DEFAULT_OUT = path.join(ROOT, "dist", "packages");

/** @param {string} file */
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/**
 * Copies `name`, as npm installed it for the package in `from`, and every package it depends on
 * into `into`/node_modules (flat, as npm would hoist them).
 * @param {string} name @param {string} from @param {string} into @param {Set<string>} seen
 */
function copyPackage(name, from, into, seen) {
  if (seen.has(name)) return;
  seen.add(name);
  const nested = path.join(from, "node_modules", name);
  const dir = [nested, path.join(ROOT, "node_modules", name)].find((d) => {
    try {
      readJson(path.join(d, "package.json"));
      return true;
    } catch {
      return false;
    }
  });
  if (!dir) throw new Error(`${name} is not installed; run npm install in the Praxis checkout`);
  cpSync(dir, path.join(into, "node_modules", name), { recursive: true, dereference: true });
  for (const dep of Object.keys(readJson(path.join(dir, "package.json")).dependencies ?? {})) copyPackage(dep, dir, into, seen);
}

/** Builds the package in a scratch directory and packs it into `out`; returns the tarball's path. */
export async function pack({ out = DEFAULT_OUT } = {}) {
  const root = readJson(path.join(ROOT, "package.json"));
  const runtime = ["openapi-fetch", "eventsource-parser"];
  const stage = mkdtempSync(path.join(os.tmpdir(), "praxis-pack-"));
  try {
    cpSync(path.join(ROOT, "client", "dist"), path.join(stage, "dist"), { recursive: true });
    cpSync(path.join(ROOT, "client", "generated"), path.join(stage, "generated"), { recursive: true });
    await buildCli({ outfile: path.join(stage, "cli", "praxis.mjs"), standalone: true });
    const seen = new Set();
    for (const name of runtime) copyPackage(name, ROOT, stage, seen);
    writeFileSync(
      path.join(stage, "package.json"),
      `${JSON.stringify(
        {
          name: PACKAGE_NAME,
          version: root.version,
          description: "Typed client and command line for a Praxis Worker (experiential-learning memory for LLM agents)",
          type: "module",
          exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" }, "./package.json": "./package.json" },
          types: "./dist/index.d.ts",
          bin: { praxis: "cli/praxis.mjs" },
          files: ["dist", "generated", "cli"],
          engines: { node: ">=20" },
          sideEffects: false,
          dependencies: Object.fromEntries(runtime.map((name) => [name, root.dependencies[name]])),
          bundleDependencies: runtime,
        },
        null,
        2,
      )}\n`,
    );
    writeFileSync(
      path.join(stage, "README.md"),
      `# ${PACKAGE_NAME}\n\nThe typed client (\`import { Praxis } from "${PACKAGE_NAME}"\`) and the \`praxis\` command line of a\nPraxis Worker. Usage: the sections "TypeScript client" and "\`praxis\` CLI" of the Praxis README.\n`,
    );
    mkdirSync(out, { recursive: true });
    const [{ filename }] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
        cwd: stage,
        encoding: "utf8",
        env: { ...process.env, npm_config_update_notifier: "false", npm_config_loglevel: "error" },
      }),
    );
    return path.join(out, filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--out");
  console.log(await pack(at > 0 ? { out: path.resolve(process.argv[at + 1]) } : {}));
}
