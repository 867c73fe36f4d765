import { defineConfig } from "vitest/config";

// Tests that run in Node against the real Worker under `wrangler dev` (test/node/local-worker.ts):
// the CLI as a process, the TypeScript client over HTTP, and what cannot run inside workerd.
export default defineConfig({
  test: {
    include: ["test/node/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/node/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 150_000,
  },
});
