import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { PRACTICE_RUN_SCHEMA } from "../../durable-objects/practice-run/schema";

/** A run's storage at the schema version before issue 41, holding one evaluation of epoch 2. */
function before(config: unknown) {
  const db = new DatabaseSync(":memory:");
  const at = PRACTICE_RUN_SCHEMA.findIndex((step) => step.includes("CREATE TABLE run_evals"));
  for (const step of PRACTICE_RUN_SCHEMA.slice(0, at)) db.exec(step);
  db.prepare(
    `INSERT INTO run (id, run_id, tenant_id, agent_id, dataset_id, config, status, library, start_library, created_at, updated_at)
     VALUES (1, 'run_x', 't', 'a', 'd', ?, 'running', '[]', '[]', 1, 1)`,
  ).run(JSON.stringify(config));
  db.prepare(
    `INSERT INTO evals (epoch, evaluation_id, library, status, accuracy, interval_low, interval_high, tokens, cost_usd, created_at, ended_at)
     VALUES (2, 'ev_xe2', '[{"id":"e1","text":"t"}]', 'completed', 0.5, 0.25, 0.75, 120, 0.01, 5, 9)`,
  ).run();
  return { db, rest: PRACTICE_RUN_SCHEMA.slice(at) };
}

describe("the practice run's storage after issue 41", () => {
  it("keeps each evaluation, named by its id, as the first round of the split its run evaluated on", () => {
    for (const [config, split] of [
      [{ evaluate: { split: "train", samples: 1, every: "epoch" } }, "train"],
      [{ evaluate: null }, "holdout"],
    ] as const) {
      const { db, rest } = before(config);
      for (const step of rest) db.exec(step);
      expect(db.prepare("SELECT * FROM run_evals").all()).toEqual([
        expect.objectContaining({
          evaluation_id: "ev_xe2",
          epoch: 2,
          split,
          round: 0,
          status: "completed",
          accuracy: 0.5,
          interval_low: 0.25,
          task_rewards: null,
          tokens: 120,
          ended_at: 9,
        }),
      ]);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('evals', 'validation_tasks')").all()).toEqual([
        { name: "validation_tasks" },
      ]);
    }
  });
});
