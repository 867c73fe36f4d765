#!/usr/bin/env node
// The `praxis` command. The CLI is TypeScript (cli/src, over the typed client in client/src);
// Node runs the bundle cli/build.mjs makes from it, rebuilt here whenever a source is newer.
import { builtCli } from "./build.mjs";

process.setSourceMapsEnabled(true);
await import(await builtCli());
