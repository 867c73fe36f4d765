import { defineConfig } from "vitest/config";
import { reporting } from "./test/report.ts";

/**
 * Browser tests (`npm run test:browser`): Node drives headless Chromium (Debian's
 * chromium-headless-shell, through playwright-core) against `wrangler dev` of this project.
 */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.spec.ts"],
    environment: "node",
    fileParallelism: false,
    testTimeout: 120_000,
    ...reporting("browser"),
    hookTimeout: 180_000,
  },
});
