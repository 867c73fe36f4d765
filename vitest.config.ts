import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { configDefaults, defineConfig } from "vitest/config";
import { reporting } from "./test/report.ts";

export const TEST_ADMIN_KEY = "test-operator-key-0123456789";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        // The `test` environment has no queue consumer: tests drive the consumer explicitly
        // (createMessageBatch, the handlers), so background delivery cannot race them.
        wrangler: { configPath: "./wrangler.toml", environment: "test" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            PRAXIS_ADMIN_KEY: TEST_ADMIN_KEY,
            LOG_LEVEL: "error",
            // Agents that switch to the "openai" embedder reach test/doubles/slow-embeddings.ts.
            EMBEDDING_BASE_URL: "http://embeddings.test/v1",
            EMBEDDING_API_KEY: "sk-test-not-real",
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      include: ["test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, "test/node/**"],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...reporting("workerd"),
    },
  };
});
