/**
 * Applies numbered schema steps to a Durable Object's SQLite storage. Each step runs in one
 * transaction together with the version bump, so a crash mid-step leaves the previous version.
 */
export function migrateSchema(storage: DurableObjectStorage, steps: readonly string[]): number {
  const sql = storage.sql;
  sql.exec("CREATE TABLE IF NOT EXISTS _schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM _schema WHERE id = 1").toArray()[0];
  let version = row?.version ?? 0;
  for (let i = version; i < steps.length; i++) {
    storage.transactionSync(() => {
      sql.exec(steps[i]!);
      sql.exec("INSERT INTO _schema (id, version) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET version = excluded.version", i + 1);
    });
    version = i + 1;
  }
  return version;
}
