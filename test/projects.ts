/**
 * Which vitest project runs which test file (vitest.config.ts). A file listed nowhere runs in
 * `workers`, each file in its own workerd runtime, so a new test always runs somewhere.
 *
 * There is no shared-runtime workerd project: measured on this suite (vitest-pool-workers 0.23,
 * `isolate: false`, `maxWorkers: 1`, `reset()` and migrations after each file), light HTTP files
 * ran 10-20x slower than in their own runtime (test/http/auth 19 s against 1 s) and a retention
 * test timed out, so the runtime per file is cheaper than what files leave behind for each other.
 */

/** Pure logic with no `cloudflare:*` import, directly or through helpers: run in Node. */
export const PURE_TESTS = [
  "test/config.test.ts",
  "test/core/**/*.test.ts",
  "test/adapters/**/*.test.ts",
  "test/learning/safety-review.test.ts",
  "test/http/error-kinds.test.ts",
  "test/llm/semaphore.test.ts",
  "test/llm/settings.test.ts",
  "test/practice/judge.test.ts",
  "test/practice/webhook-verifier.test.ts",
];
