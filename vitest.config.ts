import { readFile } from "node:fs/promises";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig, type Plugin } from "vitest/config";
import { reporting } from "./test/report.ts";
import { PURE_TESTS, SHARED_TESTS } from "./test/projects.ts";
import PraxisSequencer from "./test/sequencer.ts";

export const TEST_ADMIN_KEY = "test-operator-key-0123456789";

/** Files at a time. One value for every project: vitest runs projects that differ in separate groups. */
const WORKERS = 2;

/**
 * Wrangler's module rules (wrangler.toml [[rules]], plus its default CompiledWasm rule) for Node:
 * text files become strings, `*.bin` an ArrayBuffer and `*.wasm` a compiled WebAssembly.Module,
 * so pure modules that import prompts or the int8 scan load the same values as in workerd.
 * `textOnly` serves the workerd project, whose pool keeps binary modules for itself but, with
 * dependencies pre-bundled, no longer finds the text files inside node_modules (uPlot).
 */
function wranglerModuleRules({ textOnly = false } = {}): Plugin {
  const text = /(\.md|\.sql|uPlot\.iife\.min\.js|uPlot\.min\.css|dashboard-client\.js|dashboard\.css)$/;
  return {
    name: "praxis:wrangler-module-rules",
    enforce: "pre",
    async load(id) {
      const path = id.split("?")[0]!;
      if (text.test(path)) return `export default ${JSON.stringify(await readFile(path, "utf8"))};`;
      if (textOnly) return null;
      if (path.endsWith(".bin")) {
        const b64 = await readFile(path, "base64");
        return `const b = Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0));\nexport default b.buffer;`;
      }
      if (path.endsWith(".wasm")) {
        const b64 = await readFile(path, "base64");
        return `export default new WebAssembly.Module(Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0)));`;
      }
      return null;
    },
  };
}

/**
 * Every test file loads the whole Worker (cloudflare:test imports its main module) in a fresh
 * runtime; pre-bundled, each of these packages is one module to load instead of hundreds.
 */
const WORKER_DEPS = [
  "zod",
  "@hono/zod-openapi",
  "hono",
  "hono/factory",
  "hono/streaming",
  "hono/request-id",
  "hono/method-not-allowed",
  "hono/http-exception",
  "hono/utils/http-status",
  "hono/jsx",
  "hono/jsx/jsx-runtime",
  "drizzle-orm",
  "drizzle-orm/d1",
  "drizzle-orm/sqlite-core",
  "openai",
  "openai/helpers/zod",
  "openai/lib/transform",
  "openai/resources/chat/completions",
  "@modelcontextprotocol/server",
  "@modelcontextprotocol/server/validators/cf-worker",
];

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  const workerdOptions: Parameters<typeof cloudflareTest>[0] = {
    // test/wrangler.toml has no queue consumer: tests drive the consumer explicitly
    // (createMessageBatch, the handlers), so background delivery cannot race them. Beside it there
    // is no developer's .dev.vars: the tests' bindings are its own and the ones below.
    wrangler: { configPath: "./test/wrangler.toml" },
    miniflare: {
      bindings: {
        TEST_MIGRATIONS: migrations,
        PRAXIS_ADMIN_KEY: TEST_ADMIN_KEY,
        LOG_LEVEL: "error",
        // Agents that switch to the "openai" embedder reach test/doubles/slow-embeddings.ts.
        EMBEDDING_BASE_URL: "http://embeddings.test/v1",
        EMBEDDING_API_KEY: "sk-test-not-real",
        // Reads served at the edge ask the agent's object on every read (a bound of 0), so a test
        // reads what it just wrote; tests of the bound itself set one (test/edge/edge-reads.test.ts).
        READ_STALENESS_MS: "0",
        // Each read sends its use counters at once, so a test's next request finds them applied
        // (test/memory/retrieval-tokens.test.ts drives the timed batches itself).
        RETRIEVAL_COUNTS_FLUSH_MS: "0",
      },
    },
  };
  // One plugin per workerd project: each project starts runtimes of its own.
  const workerd = () => cloudflareTest(workerdOptions);
  const timeouts = { testTimeout: 30_000, hookTimeout: 30_000 };
  const workerdTest = {
    deps: {
      optimizer: {
        ssr: {
          enabled: true,
          include: WORKER_DEPS,
          exclude: ["uplot", "uplot/dist/uPlot.iife.min.js", "uplot/dist/uPlot.min.css"],
        },
      },
    },
    ...timeouts,
  };
  return {
    test: {
      ...reporting("unit+workers"),
      sequence: { sequencer: PraxisSequencer },
      projects: [
        // Workerd files one after another in a runtime per worker. Every project runs in one group,
        // two files at a time (test/sequencer.ts orders them): a worker that ends a shared file
        // takes the next one into the same runtime, so the shared files run in two runtimes.
        {
          plugins: [workerd(), wranglerModuleRules({ textOnly: true })],
          test: {
            name: "workers-shared",
            include: SHARED_TESTS,
            setupFiles: ["./test/setup.ts", "./test/setup-shared.ts"],
            isolate: false,
            maxWorkers: WORKERS,
            ...workerdTest,
          },
        },
        {
          // Pure logic in Node: no Worker runtime to start, the whole project runs in seconds.
          plugins: [wranglerModuleRules()],
          test: {
            name: "unit",
            include: PURE_TESTS,
            environment: "node",
            pool: "threads",
            maxWorkers: WORKERS,
            ...timeouts,
          },
        },
        {
          // Everything else in workerd, each file in its own runtime (fresh storage, modules and
          // globals), two at a time: the default for any new test file.
          plugins: [workerd(), wranglerModuleRules({ textOnly: true })],
          test: {
            name: "workers-isolated",
            include: ["test/**/*.test.ts"],
            exclude: [...configDefaults.exclude, "test/node/**", "test/browser/**", ...PURE_TESTS, ...SHARED_TESTS],
            setupFiles: ["./test/setup.ts"],
            maxWorkers: WORKERS,
            ...workerdTest,
          },
        },
      ],
    },
  };
});
