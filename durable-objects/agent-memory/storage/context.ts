import type { AgentConfig } from "../../../src/core/agent-config";
import { chunks as splitChunks } from "../../../src/core/chunks";
import type { VectorStore } from "../vectors/store";

/** What every storage module of the AgentMemory DO needs; time and ids are injected for tests. */
export interface MemoryContext {
  storage: DurableObjectStorage;
  sql: SqlStorage;
  now(): number;
  newId(prefix: string): string;
  config(): AgentConfig;
  vectors: VectorStore;
  /** True when an LLM is configured: new text then waits (`pending`) for the safety review. */
  reviewAvailable(): boolean;
  /** The deployment's `ADMISSION_MODE`: `review` holds a client key's new text for an admin. */
  admissionMode(): "filter" | "review";
  /** Asks for the pending entries to be reviewed; best effort, the sweep asks again. */
  requestReview(): Promise<void>;
  /** Asks for an agent-wide background job; best effort, the sweep asks again while there is work. */
  requestJob(type: "lesson.when"): Promise<void>;
  /**
   * Hands events about the agent's lessons to the tenant's event webhooks (a queue message; the
   * object never reaches the endpoints itself). Best effort, after the write has committed.
   */
  emitEvents(events: readonly AgentEvent[]): Promise<void>;
}

/** An event the agent's object saw happen; its tenant, agent and time are added when it is sent. */
export interface AgentEvent {
  id: string;
  type: "lesson.created" | "lesson.held" | "lesson.quarantined";
  data: Record<string, unknown>;
}

export function nextSeq(sql: SqlStorage, name: string): number {
  const row = sql
    .exec<{ value: number }>(
      "INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
      name,
    )
    .one();
  return row.value;
}

export const parseJson = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);

/** Durable Object SQLite binds at most 100 parameters per statement; id lists are chunked below that. */
export const SQL_MAX_IDS = 90;

export const chunks = <T>(items: readonly T[], size = SQL_MAX_IDS): T[][] => splitChunks(items, size);

export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");
