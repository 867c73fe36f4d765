/**
 * Incremental snapshots: every change of what a snapshot holds as content names its item in
 * read_content_changes (the latest content version that changed it), and a change of what FTS5
 * indexes keeps the text it replaced in read_replaced_texts, so the object can tell a Worker holding
 * version n what changed up to m, and which terms' row counts moved, without reading the whole
 * library (retrieval/content-delta.ts). read_floor is the oldest version still described so; a
 * Worker holding an older one gets a snapshot. The old counting triggers are replaced by ones that
 * count and name in one body, so an item's change is never logged under the version before it.
 * read_scratch_fts tokenizes texts as the FTS tables do (same tokenizer), its rows written and
 * deleted within one delta.
 */
const bumpAndName = (row: "NEW" | "OLD", id = "id") => `
    UPDATE counters SET value = value + 1 WHERE name = 'read_model';
    DELETE FROM read_content_changes WHERE item_id = ${row}.${id};
    INSERT INTO read_content_changes (item_id, seq) VALUES (${row}.${id}, (SELECT value FROM counters WHERE name = 'read_model'));`;

const replaced = (fts: string, body: string, when = "1") => `
    INSERT INTO read_replaced_texts (seq, fts, body) SELECT (SELECT value FROM counters WHERE name = 'read_model'), '${fts}', ${body} WHERE ${when};`;

const LESSON_TEXT = "OLD.text || char(10) || coalesce(OLD.pattern, '') || char(10) || OLD.keywords";
const LESSON_FTS_CHANGED =
  "OLD.seq IS NOT NEW.seq OR OLD.text IS NOT NEW.text OR OLD.pattern IS NOT NEW.pattern OR OLD.keywords IS NOT NEW.keywords";

/** An update that changes what a snapshot holds of a lesson, or of a case. */
const LESSON_CONTENT_CHANGED = `OLD.seq IS NOT NEW.seq OR OLD.text IS NOT NEW.text OR OLD.pattern IS NOT NEW.pattern OR OLD.keywords IS NOT NEW.keywords
      OR OLD.tags IS NOT NEW.tags OR OLD.domain IS NOT NEW.domain OR OLD.status IS NOT NEW.status OR OLD.metadata IS NOT NEW.metadata
      OR OLD.when_text IS NOT NEW.when_text OR OLD.created_at IS NOT NEW.created_at`;
const CASE_CONTENT_CHANGED = `OLD.seq IS NOT NEW.seq OR OLD.task IS NOT NEW.task OR OLD.trace_summary IS NOT NEW.trace_summary OR OLD.answer IS NOT NEW.answer
      OR OLD.reward IS NOT NEW.reward OR OLD.label IS NOT NEW.label OR OLD.tags IS NOT NEW.tags OR OLD.status IS NOT NEW.status
      OR OLD.metadata IS NOT NEW.metadata OR OLD.created_at IS NOT NEW.created_at`;

export const READ_DELTAS_STEP = `
  CREATE TABLE read_content_changes (item_id TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
  CREATE INDEX read_content_changes_seq ON read_content_changes (seq);
  CREATE TABLE read_replaced_texts (seq INTEGER NOT NULL, fts TEXT NOT NULL, body TEXT NOT NULL);
  CREATE INDEX read_replaced_texts_seq ON read_replaced_texts (seq);
  INSERT OR IGNORE INTO counters (name, value) SELECT 'read_floor', value FROM counters WHERE name = 'read_model';
  CREATE VIRTUAL TABLE read_scratch_fts USING fts5(body, tokenize='porter unicode61');
  CREATE VIRTUAL TABLE read_scratch_instances USING fts5vocab(read_scratch_fts, 'instance');
  DROP TRIGGER read_model_experience_insert;
  DROP TRIGGER read_model_experience_delete;
  DROP TRIGGER read_model_experience_update;
  DROP TRIGGER read_model_case_insert;
  DROP TRIGGER read_model_case_delete;
  DROP TRIGGER read_model_case_update;
  DROP TRIGGER read_model_vector_insert;
  DROP TRIGGER read_model_vector_update;
  DROP TRIGGER read_model_vector_delete;
  DROP TRIGGER read_model_when_insert;
  DROP TRIGGER read_model_when_update;
  DROP TRIGGER read_model_when_delete;
  CREATE TRIGGER read_model_experience_insert AFTER INSERT ON experiences BEGIN${bumpAndName("NEW")}
  END;
  CREATE TRIGGER read_model_experience_delete AFTER DELETE ON experiences BEGIN${bumpAndName("OLD")}${replaced("experience", LESSON_TEXT)}${replaced("when", "OLD.when_text", "OLD.when_text IS NOT NULL")}
  END;
  CREATE TRIGGER read_model_experience_update AFTER UPDATE ON experiences
    WHEN ${LESSON_CONTENT_CHANGED} BEGIN${bumpAndName("NEW")}${replaced("experience", LESSON_TEXT, LESSON_FTS_CHANGED)}${replaced("when", "OLD.when_text", "OLD.when_text IS NOT NULL AND (OLD.seq IS NOT NEW.seq OR OLD.when_text IS NOT NEW.when_text)")}
  END;
  CREATE TRIGGER read_model_case_insert AFTER INSERT ON cases BEGIN${bumpAndName("NEW")}
  END;
  CREATE TRIGGER read_model_case_delete AFTER DELETE ON cases BEGIN${bumpAndName("OLD")}${replaced("case", "OLD.task")}
  END;
  CREATE TRIGGER read_model_case_update AFTER UPDATE ON cases
    WHEN ${CASE_CONTENT_CHANGED} BEGIN${bumpAndName("NEW")}${replaced("case", "OLD.task", "OLD.seq IS NOT NEW.seq OR OLD.task IS NOT NEW.task")}
  END;
  CREATE TRIGGER read_model_vector_insert AFTER INSERT ON vectors BEGIN${bumpAndName("NEW", "item_id")}
  END;
  CREATE TRIGGER read_model_vector_update AFTER UPDATE ON vectors BEGIN${bumpAndName("NEW", "item_id")}
  END;
  CREATE TRIGGER read_model_vector_delete AFTER DELETE ON vectors BEGIN${bumpAndName("OLD", "item_id")}
  END;
  CREATE TRIGGER read_model_when_insert AFTER INSERT ON when_vectors BEGIN${bumpAndName("NEW", "item_id")}
  END;
  CREATE TRIGGER read_model_when_update AFTER UPDATE ON when_vectors BEGIN${bumpAndName("NEW", "item_id")}
  END;
  CREATE TRIGGER read_model_when_delete AFTER DELETE ON when_vectors BEGIN${bumpAndName("OLD", "item_id")}
  END;
`;

/**
 * Which terms' row counts a change moved, without asking FTS5: each change of what an FTS table
 * indexes for an item logs, under the item, the text it held before (NULL: none, for a new item or
 * a `when` first set). The earliest entry after version n is the item's text at n, so the change
 * from n moved each term's count by its rows now less its rows then, for the changed items alone;
 * a Worker holding n's counts adds that. (FTS5 counts a term's rows by reading its whole posting
 * list, which for the common words of a 100,000-memory library took milliseconds a term.) Deltas
 * from before this step are not described so: the read floor moves to the current version, and a
 * Worker holding an older one takes a snapshot.
 */
const logged = (fts: string, id: string, body: string, when = "1") => `
    INSERT INTO read_fts_log (seq, fts, item_id, body) SELECT (SELECT value FROM counters WHERE name = 'read_model'), '${fts}', ${id}, ${body} WHERE ${when};`;

export const READ_FTS_LOG_STEP = `
  CREATE TABLE read_fts_log (seq INTEGER NOT NULL, fts TEXT NOT NULL, item_id TEXT NOT NULL, body TEXT);
  CREATE INDEX read_fts_log_seq ON read_fts_log (seq);
  DROP TABLE read_replaced_texts;
  UPDATE counters SET value = (SELECT value FROM counters WHERE name = 'read_model') WHERE name = 'read_floor';
  DELETE FROM read_content_changes;
  DROP TRIGGER read_model_experience_insert;
  DROP TRIGGER read_model_experience_delete;
  DROP TRIGGER read_model_experience_update;
  DROP TRIGGER read_model_case_insert;
  DROP TRIGGER read_model_case_delete;
  DROP TRIGGER read_model_case_update;
  CREATE TRIGGER read_model_experience_insert AFTER INSERT ON experiences BEGIN${bumpAndName("NEW")}${logged("experience", "NEW.id", "NULL")}${logged("when", "NEW.id", "NULL", "NEW.when_text IS NOT NULL")}
  END;
  CREATE TRIGGER read_model_experience_delete AFTER DELETE ON experiences BEGIN${bumpAndName("OLD")}${logged("experience", "OLD.id", LESSON_TEXT)}${logged("when", "OLD.id", "OLD.when_text", "OLD.when_text IS NOT NULL")}
  END;
  CREATE TRIGGER read_model_experience_update AFTER UPDATE ON experiences
    WHEN ${LESSON_CONTENT_CHANGED} BEGIN${bumpAndName("NEW")}${logged("experience", "NEW.id", LESSON_TEXT, LESSON_FTS_CHANGED)}${logged("when", "NEW.id", "OLD.when_text", "OLD.when_text IS NOT NEW.when_text OR (OLD.seq IS NOT NEW.seq AND OLD.when_text IS NOT NULL)")}
  END;
  CREATE TRIGGER read_model_case_insert AFTER INSERT ON cases BEGIN${bumpAndName("NEW")}${logged("case", "NEW.id", "NULL")}
  END;
  CREATE TRIGGER read_model_case_delete AFTER DELETE ON cases BEGIN${bumpAndName("OLD")}${logged("case", "OLD.id", "OLD.task")}
  END;
  CREATE TRIGGER read_model_case_update AFTER UPDATE ON cases
    WHEN ${CASE_CONTENT_CHANGED} BEGIN${bumpAndName("NEW")}${logged("case", "NEW.id", "OLD.task", "OLD.seq IS NOT NEW.seq OR OLD.task IS NOT NEW.task")}
  END;
`;
