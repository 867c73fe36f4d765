/** AgentMemory storage schema, one entry per version; never edit a released step, append a new one. */
export const AGENT_MEMORY_SCHEMA: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];
