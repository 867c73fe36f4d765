/** The first steps of the AgentMemory storage schema (storage/schema.ts appends the rest); released steps never change. */
export const FIRST_SCHEMA_STEPS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  `
  CREATE TABLE experiences (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    text TEXT NOT NULL,
    pattern TEXT,
    keywords TEXT NOT NULL DEFAULT '[]',
    tags TEXT NOT NULL DEFAULT '[]',
    domain TEXT,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    pinned INTEGER NOT NULL DEFAULT 0,
    importance REAL NOT NULL DEFAULT 0.5,
    q REAL NOT NULL,
    retrieved INTEGER NOT NULL DEFAULT 0,
    cited INTEGER NOT NULL DEFAULT 0,
    uncited INTEGER NOT NULL DEFAULT 0,
    successes INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    provenance TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_used_at INTEGER
  );
  CREATE INDEX experiences_status_seq ON experiences (status, seq);
  CREATE TABLE cases (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    task TEXT NOT NULL,
    trace_summary TEXT,
    answer TEXT,
    reward REAL NOT NULL,
    label TEXT NOT NULL,
    tools TEXT NOT NULL DEFAULT '[]',
    tags TEXT NOT NULL DEFAULT '[]',
    episode_id TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    q REAL NOT NULL,
    retrieved INTEGER NOT NULL DEFAULT 0,
    cited INTEGER NOT NULL DEFAULT 0,
    uncited INTEGER NOT NULL DEFAULT 0,
    successes INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_used_at INTEGER
  );
  CREATE INDEX cases_status_seq ON cases (status, seq);
  CREATE UNIQUE INDEX cases_episode ON cases (episode_id) WHERE episode_id IS NOT NULL;
  CREATE TABLE q_history (
    item_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    q REAL NOT NULL,
    delta REAL NOT NULL,
    reward REAL NOT NULL,
    seq INTEGER PRIMARY KEY AUTOINCREMENT
  );
  CREATE INDEX q_history_item ON q_history (item_id, seq);
  CREATE TABLE vectors (
    item_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    vec BLOB NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (item_id, model)
  );
  CREATE INDEX vectors_model ON vectors (model, updated_at);
  CREATE TABLE library_versions (
    version INTEGER PRIMARY KEY,
    reason TEXT NOT NULL,
    author TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    changes INTEGER NOT NULL
  );
  CREATE TABLE library_changes (
    version INTEGER NOT NULL,
    experience_id TEXT NOT NULL,
    op TEXT NOT NULL,
    before TEXT,
    after TEXT,
    PRIMARY KEY (experience_id, version)
  );
  CREATE INDEX library_changes_version ON library_changes (version);
  CREATE TABLE retrievals (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    query TEXT NOT NULL,
    phase TEXT,
    lambda REAL NOT NULL,
    episode_id TEXT,
    items TEXT NOT NULL
  );
  CREATE INDEX retrievals_episode ON retrievals (episode_id) WHERE episode_id IS NOT NULL;
  CREATE INDEX retrievals_at ON retrievals (at);
  CREATE TABLE idempotency (
    key TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    response TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
  `,
  `
  CREATE TABLE episodes (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    task TEXT NOT NULL,
    metadata TEXT,
    session_id TEXT UNIQUE,
    status TEXT NOT NULL,
    outcome TEXT,
    score REAL,
    answer TEXT,
    cited TEXT,
    result TEXT,
    created_at INTEGER NOT NULL,
    ended_at INTEGER
  );
  CREATE INDEX episodes_open ON episodes (status, created_at);
  CREATE TABLE attempts (
    episode_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    description TEXT NOT NULL,
    ok INTEGER NOT NULL,
    error TEXT,
    tool_calls TEXT NOT NULL DEFAULT '[]',
    at INTEGER NOT NULL,
    PRIMARY KEY (episode_id, n)
  );
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    episode_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX jobs_recent ON jobs (created_at);
  `,
  `
  CREATE TABLE vector_outbox (
    item_id TEXT PRIMARY KEY,
    op TEXT NOT NULL,
    gen INTEGER NOT NULL
  );
  `,
  // A live lesson enters on probation atomically with its insert, whichever path inserts it (live
  // extraction, a rollback restoring it, an import from another agent): it has not earned trust here.
  `
  ALTER TABLE experiences ADD COLUMN probation INTEGER NOT NULL DEFAULT 0;
  CREATE TRIGGER experiences_live_probation AFTER INSERT ON experiences FOR EACH ROW WHEN NEW.source = 'live'
  BEGIN
    UPDATE experiences SET probation = 1 WHERE id = NEW.id;
  END;
  `,
  // The lexical channel of retrieval: BM25 over what a lesson says (text, pattern, keywords) and what
  // a case asked. External content keeps one copy of the text; the triggers keep the index in step
  // with every write to the tables (create, edit, archive, rollback, import, live lessons,
  // promotion), whichever code path makes it, and 'rebuild' indexes what exists already. Status is
  // not indexed: retrieval joins the table and keeps active rows, so an archive cannot drift.
  `
  CREATE VIRTUAL TABLE experiences_fts USING fts5(text, pattern, keywords, content='experiences', content_rowid='seq', tokenize='porter unicode61');
  CREATE TRIGGER experiences_fts_insert AFTER INSERT ON experiences BEGIN
    INSERT INTO experiences_fts (rowid, text, pattern, keywords) VALUES (NEW.seq, NEW.text, NEW.pattern, NEW.keywords);
  END;
  CREATE TRIGGER experiences_fts_delete AFTER DELETE ON experiences BEGIN
    INSERT INTO experiences_fts (experiences_fts, rowid, text, pattern, keywords) VALUES ('delete', OLD.seq, OLD.text, OLD.pattern, OLD.keywords);
  END;
  CREATE TRIGGER experiences_fts_update AFTER UPDATE OF seq, text, pattern, keywords ON experiences BEGIN
    INSERT INTO experiences_fts (experiences_fts, rowid, text, pattern, keywords) VALUES ('delete', OLD.seq, OLD.text, OLD.pattern, OLD.keywords);
    INSERT INTO experiences_fts (rowid, text, pattern, keywords) VALUES (NEW.seq, NEW.text, NEW.pattern, NEW.keywords);
  END;
  INSERT INTO experiences_fts (experiences_fts) VALUES ('rebuild');
  CREATE VIRTUAL TABLE cases_fts USING fts5(task, content='cases', content_rowid='seq', tokenize='porter unicode61');
  CREATE TRIGGER cases_fts_insert AFTER INSERT ON cases BEGIN
    INSERT INTO cases_fts (rowid, task) VALUES (NEW.seq, NEW.task);
  END;
  CREATE TRIGGER cases_fts_delete AFTER DELETE ON cases BEGIN
    INSERT INTO cases_fts (cases_fts, rowid, task) VALUES ('delete', OLD.seq, OLD.task);
  END;
  CREATE TRIGGER cases_fts_update AFTER UPDATE OF seq, task ON cases BEGIN
    INSERT INTO cases_fts (cases_fts, rowid, task) VALUES ('delete', OLD.seq, OLD.task);
    INSERT INTO cases_fts (rowid, task) VALUES (NEW.seq, NEW.task);
  END;
  INSERT INTO cases_fts (cases_fts) VALUES ('rebuild');
  `,
  // The local index loads each vector's int8 code (dims bytes, then its float32 scale) instead
  // of its float vector: a quarter of the bytes to hold, and, in a table of their own, a quarter
  // of the pages to read at a cold start. Vectors stored before this step get their code at the
  // agent's next load (VectorStore.encodeCodes).
  `
  CREATE TABLE vector_codes (
    item_id TEXT NOT NULL,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    code BLOB NOT NULL,
    PRIMARY KEY (item_id, model)
  ) WITHOUT ROWID;
  `,
  // One row per memory made a cold start of a 50k-memory agent read 50k rows: the codes move into
  // pages of a few hundred (VectorPages), with a slot table saying where each item's code is. The
  // old per-item codes are dropped; the pending flag makes the next load page every stored vector
  // (VectorStore.packPending), in one transaction, from the float vectors they were quantised from.
  `
  CREATE TABLE vector_pages (
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER NOT NULL,
    n INTEGER NOT NULL,
    ids TEXT NOT NULL,
    codes BLOB NOT NULL,
    PRIMARY KEY (model, kind, page)
  );
  CREATE TABLE vector_slots (
    item_id TEXT NOT NULL,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    PRIMARY KEY (item_id, model)
  ) WITHOUT ROWID;
  DROP TABLE vector_codes;
  INSERT INTO meta (key, value) VALUES ('vector_pages_pending', '1');
  `,
  // One screening step for every write (src/core/poison.ts, then the LLM safety review): what it
  // holds back is kept here with why, whatever its kind, until a review or an admin releases it.
  // A live job's completion is its own column, not a tag inside a version reason anyone can write;
  // versions written before this step carried the tag in a reason authored by the live learner.
  `
  CREATE TABLE quarantine (
    item_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    wanted TEXT NOT NULL,
    door TEXT NOT NULL,
    author TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  INSERT INTO quarantine (item_id, kind, reason, wanted, door, author, at)
    SELECT id, 'experience', 'quarantined before admission records were kept', 'active', 'live', 'system:live', updated_at FROM experiences WHERE status = 'quarantined';
  INSERT INTO quarantine (item_id, kind, reason, wanted, door, author, at)
    SELECT id, 'case', 'quarantined before admission records were kept', 'active', 'episode', 'system', updated_at FROM cases WHERE status = 'quarantined';
  ALTER TABLE library_versions ADD COLUMN job_id TEXT;
  UPDATE library_versions SET job_id = substr(reason, instr(reason, '(job ') + 5, length(reason) - instr(reason, '(job ') - 5)
    WHERE author = 'system:live' AND instr(reason, '(job ') > 0 AND reason LIKE '%)';
  CREATE INDEX library_versions_job ON library_versions (job_id) WHERE job_id IS NOT NULL;
  `,
];
