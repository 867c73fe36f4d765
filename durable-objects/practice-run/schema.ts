import { LEDGER_SCHEMA_STEPS } from "../unit-ledger";

/** Schema steps of the PracticeRun DO's SQLite storage, applied in order by migrateSchema (append only). */
export const PRACTICE_RUN_SCHEMA: readonly string[] = [
  `CREATE TABLE run_state (id INTEGER PRIMARY KEY CHECK (id = 1), status TEXT NOT NULL, updated_at INTEGER NOT NULL);`,
  `DROP TABLE run_state;`,
  `CREATE TABLE run (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     run_id TEXT NOT NULL, tenant_id TEXT NOT NULL, agent_id TEXT NOT NULL, dataset_id TEXT NOT NULL,
     config TEXT NOT NULL, status TEXT NOT NULL,
     epoch INTEGER NOT NULL DEFAULT 0, step INTEGER NOT NULL DEFAULT 0, steps_per_epoch INTEGER NOT NULL DEFAULT 0,
     library TEXT NOT NULL, start_library TEXT NOT NULL,
     error TEXT, promotion TEXT, finishing TEXT, synced_status TEXT,
     calls INTEGER NOT NULL DEFAULT 0, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, started_at INTEGER, ended_at INTEGER
   );`,
  `CREATE TABLE tasks (idx INTEGER PRIMARY KEY, task_id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, ground_truth TEXT);`,
  `CREATE TABLE steps (
     epoch INTEGER NOT NULL, step INTEGER NOT NULL, tasks TEXT NOT NULL, snapshot TEXT NOT NULL,
     status TEXT NOT NULL, record TEXT, mean_reward REAL, library_size INTEGER,
     calls INTEGER NOT NULL DEFAULT 0, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
     started_at INTEGER NOT NULL, ended_at INTEGER,
     PRIMARY KEY (epoch, step)
   );`,
  `CREATE TABLE groups (
     epoch INTEGER NOT NULL, step INTEGER NOT NULL, task INTEGER NOT NULL,
     kept INTEGER NOT NULL, mean_reward REAL NOT NULL, rewards TEXT NOT NULL, reason TEXT NOT NULL,
     PRIMARY KEY (epoch, step, task)
   );`,
  `CREATE TABLE units (
     key TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE,
     epoch INTEGER NOT NULL, step INTEGER NOT NULL, task INTEGER, rollout INTEGER, stage TEXT NOT NULL,
     status TEXT NOT NULL, sends INTEGER NOT NULL DEFAULT 0, deadline INTEGER, lease_until INTEGER,
     result TEXT, reward REAL, verdict TEXT, error TEXT, done_at INTEGER
   );`,
  `CREATE INDEX units_status_idx ON units (status, seq);`,
  `CREATE INDEX units_step_idx ON units (epoch, step, stage, task);`,
  `CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);`,
  `ALTER TABLE run ADD COLUMN stopped_early TEXT;`,
  `ALTER TABLE run ADD COLUMN prior_q REAL NOT NULL DEFAULT 0.5;`,
  `CREATE TABLE evals (
     epoch INTEGER PRIMARY KEY, evaluation_id TEXT NOT NULL, library TEXT NOT NULL, status TEXT NOT NULL,
     accuracy REAL, interval_low REAL, interval_high REAL,
     tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, error TEXT,
     created_at INTEGER NOT NULL, ended_at INTEGER
   );`,
  ...LEDGER_SCHEMA_STEPS,
  `ALTER TABLE run ADD COLUMN promoting INTEGER NOT NULL DEFAULT 0;`,
  `CREATE TABLE holdout_tasks (idx INTEGER PRIMARY KEY, task_id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, ground_truth TEXT);`,
  `CREATE TABLE reservations (
     call_id TEXT PRIMARY KEY, unit_key TEXT NOT NULL, purpose TEXT NOT NULL, prompt_estimate INTEGER NOT NULL,
     tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, cost_usd REAL NOT NULL, settled INTEGER NOT NULL DEFAULT 0
   );`,
  `CREATE INDEX reservations_unit_idx ON reservations (unit_key);`,
  `ALTER TABLE run ADD COLUMN agent_incarnation TEXT;`,
  `CREATE TABLE call_sizes (purpose TEXT PRIMARY KEY, max_out INTEGER NOT NULL, max_in_ratio REAL NOT NULL);`,
  // The agent's subscribed libraries' active lessons as the run began: its rollouts and
  // held-out evaluations draw on them beside the run's own library, which alone the run changes.
  `ALTER TABLE run ADD COLUMN shared TEXT NOT NULL DEFAULT '[]';`,
  // A run evaluates libraries on more than one split (validation chooses, holdout judges)
  // and draws extra paired rounds, so an evaluation is named by its id, not by its epoch; each
  // keeps its per-task rewards, which the gate pairs. Existing rows are their run's judging split, round 0.
  `CREATE TABLE run_evals (
     evaluation_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, split TEXT NOT NULL, round INTEGER NOT NULL,
     library TEXT NOT NULL, status TEXT NOT NULL,
     accuracy REAL, interval_low REAL, interval_high REAL, task_rewards TEXT,
     tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, error TEXT,
     created_at INTEGER NOT NULL, ended_at INTEGER,
     UNIQUE (epoch, split, round)
   );`,
  `INSERT INTO run_evals (evaluation_id, epoch, split, round, library, status, accuracy, interval_low, interval_high,
                         tokens, cost_usd, error, created_at, ended_at)
   SELECT evaluation_id, epoch, COALESCE(json_extract((SELECT config FROM run WHERE id = 1), '$.evaluate.split'), 'holdout'), 0,
          library, status, accuracy, interval_low, interval_high, tokens, cost_usd, error, created_at, ended_at
   FROM evals;`,
  `DROP TABLE evals;`,
  `CREATE TABLE validation_tasks (idx INTEGER PRIMARY KEY, task_id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, ground_truth TEXT);`,
];
