import { LEDGER_SCHEMA_STEPS } from "../unit-ledger";

/** The Evaluation Durable Object's SQLite schema, one step per version (see ../schema-version.ts). */
export const EVALUATION_SCHEMA: readonly string[] = [
  `CREATE TABLE evaluation (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     evaluation_id TEXT NOT NULL, tenant_id TEXT NOT NULL, agent_id TEXT NOT NULL, dataset_id TEXT NOT NULL,
     config TEXT NOT NULL, library TEXT NOT NULL, status TEXT NOT NULL, error TEXT, synced_status TEXT,
     calls INTEGER NOT NULL DEFAULT 0, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0,
     cost_usd REAL NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, started_at INTEGER, ended_at INTEGER
   );`,
  `CREATE TABLE tasks (idx INTEGER PRIMARY KEY, task_id TEXT NOT NULL UNIQUE, task TEXT NOT NULL, ground_truth TEXT);`,
  `CREATE TABLE units (
     key TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE,
     task INTEGER NOT NULL, sample INTEGER NOT NULL, stage TEXT NOT NULL,
     status TEXT NOT NULL, sends INTEGER NOT NULL DEFAULT 0, deadline INTEGER, lease_until INTEGER,
     result TEXT, reward REAL, verdict TEXT, error TEXT, done_at INTEGER
   );`,
  `CREATE INDEX units_status_idx ON units (status, seq);`,
  `CREATE INDEX units_task_idx ON units (stage, task, sample);`,
  ...LEDGER_SCHEMA_STEPS,
];
