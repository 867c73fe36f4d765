// @ts-check
// esbuild, which the project has through wrangler (its bundler): the top-level install when npm
// hoisted one, else the copy wrangler itself resolves.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** @returns {Promise<typeof import("esbuild")>} */
export async function loadEsbuild() {
  try {
    return await import("esbuild");
  } catch {
    try {
      const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
      return await import(pathToFileURL(fromWrangler.resolve("esbuild")).href);
    } catch {
      throw new Error(
        "esbuild is missing: it comes with the project's dev dependencies (wrangler). Run `npm install` in the Praxis checkout.",
      );
    }
  }
}
