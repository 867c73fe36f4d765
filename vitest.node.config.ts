import { defineConfig } from "vitest/config";
import { reporting } from "./test/report.ts";

// Tests that run in Node against the real Worker under `wrangler dev` (test/node/local-worker.ts):
// the CLI as a process, the TypeScript client over HTTP, and what cannot run inside workerd.
export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/node/global-setup.ts"],
    // Two files at a time: the files mostly wait on their Workers (the crash tests on a lapsed
    // lease), and one at a time made this suite the last to end in `npm test`.
    maxWorkers: 2,
    testTimeout: 60_000,
    ...reporting("node"),
    hookTimeout: 150_000,
  },
});
