import { FIRST_SCHEMA_STEPS } from "./schema-first-steps";
import { READ_DELTAS_STEP, READ_FTS_LOG_STEP } from "./schema-read-deltas";

/** AgentMemory storage schema, one entry per version; never edit a released step, append a new one. */
export const AGENT_MEMORY_SCHEMA: readonly string[] = [
  ...FIRST_SCHEMA_STEPS,
  // Retrieval that learns from outcomes. A retrieval keeps the int8 code of its query
  // embedding so a later reward can teach the memories it served without embedding again. Usage
  // memory holds, per memory, the queries it served: learned phrases (indexed by usage_fts, a
  // lexical channel of its own) and the usage centroid. The re-ranker's state is kept per library
  // version, so a rollback finds the weights of the version it returns to.
  `
  ALTER TABLE retrievals ADD COLUMN query_code BLOB;
  CREATE TABLE usage_memory (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    phrases TEXT NOT NULL DEFAULT '[]',
    model TEXT,
    centroid BLOB,
    norm REAL NOT NULL DEFAULT 0,
    n REAL NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  );
  CREATE VIRTUAL TABLE usage_fts USING fts5(learned, tokenize='porter unicode61');
  CREATE TABLE retriever_state (
    library_version INTEGER PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // Write-time situations: a lesson's \`when\`, the situations it applies to in an agent's
  // words, is content (versions record it, rollback restores it). when_fts is its lexical column;
  // when_vectors holds its embedding, written after the fact for what when_pending lists (any
  // change of the text, or a delete), so no write path has to embed it.
  `
  ALTER TABLE experiences ADD COLUMN when_text TEXT;
  CREATE VIRTUAL TABLE IF NOT EXISTS when_fts USING fts5(when_text, content='experiences', content_rowid='seq', tokenize='porter unicode61');
  CREATE TABLE IF NOT EXISTS when_vectors (item_id TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, code BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS when_pending (item_id TEXT PRIMARY KEY);
  CREATE TABLE IF NOT EXISTS when_asked (item_id TEXT PRIMARY KEY, text TEXT NOT NULL);
  CREATE TRIGGER IF NOT EXISTS when_fts_insert AFTER INSERT ON experiences WHEN NEW.when_text IS NOT NULL BEGIN
    INSERT INTO when_fts (rowid, when_text) VALUES (NEW.seq, NEW.when_text);
    INSERT OR IGNORE INTO when_pending (item_id) VALUES (NEW.id);
  END;
  CREATE TRIGGER IF NOT EXISTS when_fts_delete AFTER DELETE ON experiences WHEN OLD.when_text IS NOT NULL BEGIN
    INSERT INTO when_fts (when_fts, rowid, when_text) VALUES ('delete', OLD.seq, OLD.when_text);
    INSERT OR IGNORE INTO when_pending (item_id) VALUES (OLD.id);
  END;
  CREATE TRIGGER IF NOT EXISTS when_fts_update AFTER UPDATE OF seq, when_text ON experiences
    WHEN OLD.when_text IS NOT NEW.when_text OR OLD.seq != NEW.seq BEGIN
    INSERT INTO when_fts (when_fts, rowid, when_text) SELECT 'delete', OLD.seq, OLD.when_text WHERE OLD.when_text IS NOT NULL;
    INSERT INTO when_fts (rowid, when_text) SELECT NEW.seq, NEW.when_text WHERE NEW.when_text IS NOT NULL;
    INSERT OR IGNORE INTO when_pending (item_id) SELECT NEW.id WHERE OLD.when_text IS NOT NEW.when_text;
  END;
  `,
  // A \`when\` is scored only while its lesson is active, so archived or quarantined lessons never
  // crowd the channel's top k: a status change marks it, and the next retrieval drops the vector from
  // the index (keeping the stored row, which a lesson made active again reuses without embedding).
  `
  CREATE TRIGGER IF NOT EXISTS when_status_update AFTER UPDATE OF status ON experiences
    WHEN OLD.status IS NOT NEW.status AND NEW.when_text IS NOT NULL BEGIN
    INSERT OR IGNORE INTO when_pending (item_id) VALUES (NEW.id);
  END;
  `,
  // What a lesson learned outlives its deletion, so a rollback or import that brings it back brings
  // back its Q and counters (its q_history rows are kept under its id). A lesson an admin removed
  // from quarantine leaves a tombstone (by id and by normalised text) that rollback and import honour.
  `
  CREATE TABLE IF NOT EXISTS retired_learning (
    item_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    q REAL NOT NULL,
    retrieved INTEGER NOT NULL,
    cited INTEGER NOT NULL,
    uncited INTEGER NOT NULL,
    successes INTEGER NOT NULL,
    failures INTEGER NOT NULL,
    last_used_at INTEGER,
    probation INTEGER NOT NULL,
    retired_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS removed_lessons (
    item_id TEXT PRIMARY KEY,
    text_key TEXT NOT NULL,
    reason TEXT NOT NULL,
    author TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS removed_lessons_text ON removed_lessons (text_key);
  `,
  // One outcome per retrieval, and reads that teach nothing: a retrieval keeps the key
  // that made it and whether that key could only read (an episode's end credits no read), and the
  // one reward it took (the request, to tell a replay from a second outcome, and the result a
  // replay returns). teach_counts caps what one key teaches one memory's usage per hour.
  `
  ALTER TABLE retrievals ADD COLUMN key_id TEXT;
  ALTER TABLE retrievals ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE retrievals ADD COLUMN reward_request TEXT;
  ALTER TABLE retrievals ADD COLUMN reward_result TEXT;
  CREATE TABLE teach_counts (
    key_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    hour INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (key_id, item_id, hour)
  ) WITHOUT ROWID;
  CREATE INDEX teach_counts_hour ON teach_counts (hour);
  `,
  // Which reward moved a Q: the episode or retrieval it credited, so a lesson's Q history
  // links each change to the episode behind it.
  `
  ALTER TABLE q_history ADD COLUMN episode_id TEXT;
  ALTER TABLE q_history ADD COLUMN retrieval_id TEXT;
  `,
  // Free-form metadata a client names on lessons and cases: a flat JSON object, filtered
  // on by retrieval, never served.
  `
  ALTER TABLE experiences ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE cases ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
  `,
  // An attempt that failed outside the task: kept in the episode, left out of its case and lesson.
  `
  ALTER TABLE attempts ADD COLUMN infrastructure INTEGER NOT NULL DEFAULT 0;
  `,
  // Retrievals without a write per read: a retrieval outside an episode answers a token
  // signed under one of the agent's secrets (the newest signs; older ones verify until the last token
  // they signed has expired), and is written only when rewarded, to keep its one outcome until the
  // token expires. Use counters of token retrievals arrive in batches from the Workers, each applied
  // once; a day's count of them keeps analytics' retrieval total.
  `
  CREATE TABLE retrieval_secrets (
    id TEXT PRIMARY KEY,
    key BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    keep_until INTEGER
  );
  CREATE TABLE rewarded_tokens (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    reward_request TEXT NOT NULL,
    reward_result TEXT NOT NULL
  );
  CREATE INDEX rewarded_tokens_expiry ON rewarded_tokens (expires_at);
  CREATE TABLE counter_batches (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
  CREATE INDEX counter_batches_at ON counter_batches (at);
  CREATE TABLE token_retrievals (day INTEGER PRIMARY KEY, n INTEGER NOT NULL);
  `,
  // Reads served at the edge: Workers rank from snapshots of the agent's read model
  // (agent-memory/read-model.ts), versioned here. read_model counts changes to what retrieval reads
  // as content (texts, statuses, the fields filters read, vectors, \`when\` vectors, the config);
  // read_learn counts changes to what rewards and uses teach (Q, probation, counts, last use, usage
  // memory, the re-ranker), and read_changes names what each changed, so a Worker refreshes those
  // as a delta (a delete then an insert: an upsert's own conflict rule would override a trigger's OR REPLACE).
  // The fts5vocab tables expose FTS5's own statistics, which a snapshot's BM25 is computed from.
  `
  INSERT OR IGNORE INTO counters (name, value) VALUES ('read_model', 0), ('read_learn', 0);
  CREATE TABLE read_changes (item_id TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (item_id, kind)) WITHOUT ROWID;
  CREATE INDEX read_changes_seq ON read_changes (seq);
  CREATE TRIGGER read_model_experience_insert AFTER INSERT ON experiences BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_experience_delete AFTER DELETE ON experiences BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_experience_update AFTER UPDATE ON experiences
    WHEN OLD.seq IS NOT NEW.seq OR OLD.text IS NOT NEW.text OR OLD.pattern IS NOT NEW.pattern OR OLD.keywords IS NOT NEW.keywords
      OR OLD.tags IS NOT NEW.tags OR OLD.domain IS NOT NEW.domain OR OLD.status IS NOT NEW.status OR OLD.metadata IS NOT NEW.metadata
      OR OLD.when_text IS NOT NEW.when_text OR OLD.created_at IS NOT NEW.created_at BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_case_insert AFTER INSERT ON cases BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_case_delete AFTER DELETE ON cases BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_case_update AFTER UPDATE ON cases
    WHEN OLD.seq IS NOT NEW.seq OR OLD.task IS NOT NEW.task OR OLD.trace_summary IS NOT NEW.trace_summary OR OLD.answer IS NOT NEW.answer
      OR OLD.reward IS NOT NEW.reward OR OLD.label IS NOT NEW.label OR OLD.tags IS NOT NEW.tags OR OLD.status IS NOT NEW.status
      OR OLD.metadata IS NOT NEW.metadata OR OLD.created_at IS NOT NEW.created_at BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_vector_insert AFTER INSERT ON vectors BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_vector_update AFTER UPDATE ON vectors BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_vector_delete AFTER DELETE ON vectors BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_when_insert AFTER INSERT ON when_vectors BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_when_update AFTER UPDATE ON when_vectors BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_when_delete AFTER DELETE ON when_vectors BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_config_insert AFTER INSERT ON meta WHEN NEW.key = 'config' BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_config_update AFTER UPDATE ON meta WHEN NEW.key = 'config' BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_learn_experience AFTER UPDATE ON experiences
    WHEN OLD.q IS NOT NEW.q OR OLD.probation IS NOT NEW.probation OR OLD.retrieved IS NOT NEW.retrieved OR OLD.last_used_at IS NOT NEW.last_used_at BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = NEW.id AND kind = 'experience';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (NEW.id, 'experience', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_case AFTER UPDATE ON cases
    WHEN OLD.q IS NOT NEW.q OR OLD.retrieved IS NOT NEW.retrieved OR OLD.last_used_at IS NOT NEW.last_used_at BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = NEW.id AND kind = 'case';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (NEW.id, 'case', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_usage_insert AFTER INSERT ON usage_memory BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = NEW.item_id AND kind = 'usage';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (NEW.item_id, 'usage', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_usage_update AFTER UPDATE ON usage_memory BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = NEW.item_id AND kind = 'usage';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (NEW.item_id, 'usage', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_usage_delete AFTER DELETE ON usage_memory BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = OLD.item_id AND kind = 'usage';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (OLD.item_id, 'usage', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_reranker_insert AFTER INSERT ON retriever_state BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
  END;
  CREATE TRIGGER read_learn_reranker_update AFTER UPDATE ON retriever_state BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
  END;
  CREATE TRIGGER read_learn_reranker_delete AFTER DELETE ON retriever_state BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
  END;
  CREATE VIRTUAL TABLE experiences_fts_terms USING fts5vocab(experiences_fts, 'row');
  CREATE VIRTUAL TABLE experiences_fts_instances USING fts5vocab(experiences_fts, 'instance');
  CREATE VIRTUAL TABLE cases_fts_terms USING fts5vocab(cases_fts, 'row');
  CREATE VIRTUAL TABLE cases_fts_instances USING fts5vocab(cases_fts, 'instance');
  CREATE VIRTUAL TABLE when_fts_terms USING fts5vocab(when_fts, 'row');
  CREATE VIRTUAL TABLE when_fts_instances USING fts5vocab(when_fts, 'instance');
  `,
  // Shared libraries: the libraries this agent subscribes to (its own copy, so a read
  // never asks D1), and what this agent learned of each shared lesson it was shown: its own Q and
  // counters, which no other subscriber's rewards move.
  `
  CREATE TABLE subscriptions (
    library_id TEXT PRIMARY KEY,
    weight REAL NOT NULL,
    pin_version INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE shared_lessons (
    library_id TEXT NOT NULL,
    lesson_id TEXT NOT NULL,
    q REAL NOT NULL,
    retrieved INTEGER NOT NULL DEFAULT 0,
    cited INTEGER NOT NULL DEFAULT 0,
    uncited INTEGER NOT NULL DEFAULT 0,
    successes INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    last_used_at INTEGER,
    PRIMARY KEY (library_id, lesson_id)
  ) WITHOUT ROWID;
  `,
  // Subscribers read at the edge: a subscription is content of the agent's read model
  // (a Worker then reads the library's own snapshot beside the agent's), and the agent's Q and last
  // use of a shared lesson are what its rewards and uses teach, refreshed as a delta like its own.
  `
  CREATE TRIGGER read_model_subscription_insert AFTER INSERT ON subscriptions BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_subscription_update AFTER UPDATE ON subscriptions BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_model_subscription_delete AFTER DELETE ON subscriptions BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
  END;
  CREATE TRIGGER read_learn_shared_insert AFTER INSERT ON shared_lessons BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = NEW.library_id || '/' || NEW.lesson_id AND kind = 'shared';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (NEW.library_id || '/' || NEW.lesson_id, 'shared', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_shared_update AFTER UPDATE ON shared_lessons
    WHEN OLD.q IS NOT NEW.q OR OLD.last_used_at IS NOT NEW.last_used_at BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = NEW.library_id || '/' || NEW.lesson_id AND kind = 'shared';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (NEW.library_id || '/' || NEW.lesson_id, 'shared', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  CREATE TRIGGER read_learn_shared_delete AFTER DELETE ON shared_lessons BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'read_learn';
    DELETE FROM read_changes WHERE item_id = OLD.library_id || '/' || OLD.lesson_id AND kind = 'shared';
    INSERT INTO read_changes (item_id, kind, seq) VALUES (OLD.library_id || '/' || OLD.lesson_id, 'shared', (SELECT value FROM counters WHERE name = 'read_learn'));
  END;
  `,
  // Lessons on probation prove themselves in prompts, src/core/probation.ts: `probation`
  // 2 is a lesson still on probation but held out of prompts (its exploration ended without a
  // verdict, or it is being retired). A lesson keeps the outcomes of the matching prompts that showed
  // it and of those that did not, and the verdict they gave; a recorded retrieval keeps which lessons
  // on probation it showed and which matched without being shown. New text is a new lesson to test.
  `
  ALTER TABLE experiences ADD COLUMN trial_shown INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE experiences ADD COLUMN trial_shown_ok INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE experiences ADD COLUMN trial_control INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE experiences ADD COLUMN trial_control_ok INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE experiences ADD COLUMN trial_verdict TEXT;
  ALTER TABLE experiences ADD COLUMN trial_reason TEXT;
  ALTER TABLE experiences ADD COLUMN trial_at INTEGER;
  ALTER TABLE retrievals ADD COLUMN trial TEXT;
  CREATE TRIGGER experiences_trial_restart AFTER UPDATE OF text ON experiences WHEN OLD.text IS NOT NEW.text BEGIN
    UPDATE experiences SET trial_shown = 0, trial_shown_ok = 0, trial_control = 0, trial_control_ok = 0,
      trial_verdict = NULL, trial_reason = NULL, trial_at = NULL WHERE id = NEW.id;
  END;
  `,
  READ_DELTAS_STEP,
  // Every reward settles the lessons probation is retiring: found through this index, not
  // by visiting every active lesson, which made a reward's cost grow with the library.
  `
  CREATE INDEX experiences_trial_verdict ON experiences (trial_verdict, seq) WHERE trial_verdict IS NOT NULL;
  `,
  // A cold start leaves the codes of archived and held items out of the index: their ids
  // come from indexes of those items alone, not from a visit to each row the status index points at.
  `
  CREATE INDEX experiences_inactive ON experiences (status, id) WHERE status <> 'active';
  CREATE INDEX cases_inactive ON cases (status, id) WHERE status <> 'active';
  `,
  READ_FTS_LOG_STEP,
];
