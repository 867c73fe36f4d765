/**
 * Which vitest project runs which test file (vitest.config.ts). A file listed nowhere runs in
 * `workers-isolated`, in a workerd runtime of its own, so a new test always runs somewhere safe.
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

/**
 * Short workerd files that run one after another in a shared runtime, SHARED_BATCH files to a
 * runtime (projects `workers-1`, `workers-2`, …): the runtime and the Worker's modules load once
 * per batch instead of once per file, and each file leaves the next empty storage
 * (test/setup-shared.ts). A file belongs here only if it passes in repeated runs of these
 * projects with the files shuffled, in about its time in a runtime of its own. Long files, and
 * files that run rewards or learned retrieval (they slowed several-fold after other files in a
 * runtime), the LLM's semaphores, or test isolate-wide caches in src (edge reads, key lookups,
 * write slots), stay isolated. Practice, live-extraction, evaluation and MCP files run here since
 * issue 30's last round: all of them passed after the other files of a batch, in their isolated time.
 */
export const SHARED_TESTS = [
  "test/do/agent-memory-lifecycle.test.ts",
  "test/do/contract.test.ts",
  "test/http/agents.test.ts",
  "test/http/api-nits.test.ts",
  "test/http/auth.test.ts",
  "test/http/bad-input.test.ts",
  "test/http/body-limit.test.ts",
  "test/http/callable-urls.test.ts",
  "test/http/config-invalid.test.ts",
  "test/http/config.test.ts",
  "test/http/dashboard.test.ts",
  "test/http/errors.test.ts",
  "test/http/hooks-bounded.test.ts",
  "test/http/input-guards.test.ts",
  "test/http/openapi-snapshot.test.ts",
  "test/http/openapi.test.ts",
  "test/http/operator.test.ts",
  "test/http/phase-lambda.test.ts",
  "test/http/restricted-admin.test.ts",
  "test/http/trace.test.ts",
  "test/http/usage.test.ts",
  "test/jobs/cron.test.ts",
  "test/jobs/queue.test.ts",
  "test/mcp/end-outcome.test.ts",
  "test/mcp/libraries.test.ts",
  "test/mcp/metadata-filters.test.ts",
  "test/mcp/reads-inert.test.ts",
  "test/memory/concurrent-writes.test.ts",
  "test/memory/embedder-config.test.ts",
  "test/memory/embedder-switch.test.ts",
  "test/memory/episode-trail.test.ts",
  "test/memory/experiences.test.ts",
  "test/memory/forgetting.test.ts",
  "test/memory/fts5-porter.test.ts",
  "test/memory/idempotency.test.ts",
  "test/memory/prompt.test.ts",
  "test/memory/read-only.test.ts",
  "test/memory/retention.test.ts",
  "test/memory/upkeep.test.ts",
  "test/memory/vector-store.test.ts",
  "test/memory/vectorize-backfill.test.ts",
  "test/memory/vectorize-index.test.ts",
  "test/memory/versions.test.ts",
  "test/memory/when-situations.test.ts",
  "test/evaluation/cap.test.ts",
  "test/evaluation/webhook.test.ts",
  "test/events/events.test.ts",
  "test/events/sources.test.ts",
  "test/http/webhook.test.ts",
  "test/jobs/retry.test.ts",
  "test/learning/when-writer.test.ts",
  "test/memory/metadata-filters.test.ts",
  "test/memory/phrase-review.test.ts",
  "test/memory/review-gaps.test.ts",
  "test/edge/agent-deletion.test.ts",
  "test/edge/faults.test.ts",
  "test/edge/round-trips.test.ts",
  "test/live/concurrent-end.test.ts",
  "test/live/episodes.test.ts",
  "test/live/extraction.test.ts",
  "test/live/probation.test.ts",
  "test/live/trust.test.ts",
  "test/memory/cold-start.test.ts",
  "test/practice/cancel.test.ts",
  "test/practice/creating.test.ts",
  "test/practice/datasets.test.ts",
  "test/practice/incarnation.test.ts",
  "test/practice/ledger.test.ts",
  "test/practice/policies.test.ts",
  "test/practice/promotion-retry.test.ts",
  "test/practice/rollout-secret.test.ts",
  "test/practice/run.test.ts",
  "test/practice/schedules.test.ts",
  "test/practice/shared-library.test.ts",
  "test/evaluation/evaluation.test.ts",
  "test/http/isolation.test.ts",
  "test/mcp/mcp.test.ts",
  "test/practice/control.test.ts",
  "test/practice/gate.test.ts",
  "test/practice/hindsight.test.ts",
  "test/practice/remedial.test.ts",
  "test/practice/resilience.test.ts",
];

/**
 * Files per batch. A runtime slows down as files pass through it, though each file's storage is
 * wiped (measured with vitest-pool-workers 0.23: from the 15th file on, files took 2-10x their
 * time in a fresh runtime). Both workers take a batch's files (test/sequencer.ts), so a batch of
 * 12 runs in two runtimes of about six files, or in one of twelve when the other worker is busy.
 */
export const SHARED_BATCH = 12;
