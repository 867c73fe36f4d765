import { sql } from "drizzle-orm";
import { foreignKey, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { VerifierConfig } from "../core/verifiers/schema";
import { RUN_STATUSES } from "../core/practice/run-types";
import { EVALUATION_STATUSES } from "../core/evaluation/types";
import type { ScheduleFire } from "../core/practice/schedule-types";

const now = sql`(unixepoch('subsec') * 1000)`;

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull().default(now),
  webhookSecret: text("webhook_secret"),
  dailyTokenBudget: integer("daily_token_budget"),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    scope: text("scope", { enum: ["admin", "write", "read"] }).notNull(),
    agentIds: text("agent_ids", { mode: "json" }).$type<string[] | null>(),
    libraryIds: text("library_ids", { mode: "json" }).$type<string[] | null>(),
    createdAt: integer("created_at").notNull().default(now),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.hash), index("api_keys_tenant_idx").on(t.tenantId, t.createdAt)],
);

export const agents = sqliteTable(
  "agents",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    displayName: text("display_name"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
    lastActiveAt: integer("last_active_at"),
    /** 0 for an agent from before agents swept themselves, until the cron has asked it for its first sweep. */
    upkeepArmed: integer("upkeep_armed").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.agentId] })],
);

/** A tenant's shared library; its lessons live in the AgentMemory object `${tenantId}:library:${libraryId}`. */
export const libraries = sqliteTable(
  "libraries",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    libraryId: text("library_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.libraryId] }), index("libraries_tenant_created_idx").on(t.tenantId, t.createdAt)],
);

/** Which agents draw on a library; each subscriber's object keeps its own copy for its reads. */
export const librarySubscriptions = sqliteTable(
  "library_subscriptions",
  {
    tenantId: text("tenant_id").notNull(),
    libraryId: text("library_id").notNull(),
    agentId: text("agent_id").notNull(),
    weight: real("weight").notNull().default(1),
    /** null: the library's latest version. */
    pinVersion: integer("pin_version"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.libraryId, t.agentId] }),
    foreignKey({ columns: [t.tenantId, t.libraryId], foreignColumns: [libraries.tenantId, libraries.libraryId] }).onDelete("cascade"),
    foreignKey({ columns: [t.tenantId, t.agentId], foreignColumns: [agents.tenantId, agents.agentId] }).onDelete("cascade"),
    index("library_subscriptions_agent_idx").on(t.tenantId, t.agentId),
  ],
);

/** The versions of a library some subscription pinned: each has a frozen copy to delete with the library. */
export const libraryPins = sqliteTable(
  "library_pins",
  {
    tenantId: text("tenant_id").notNull(),
    libraryId: text("library_id").notNull(),
    version: integer("version").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.libraryId, t.version] }),
    foreignKey({ columns: [t.tenantId, t.libraryId], foreignColumns: [libraries.tenantId, libraries.libraryId] }).onDelete("cascade"),
  ],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tenantId: text("tenant_id"),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
    requestId: text("request_id"),
    at: integer("at").notNull().default(now),
  },
  (t) => [index("audit_tenant_idx").on(t.tenantId, t.at)],
);

/** One row per LLM call: the usage ledger behind cost reports and the daily token budget. */
export const usageLedger = sqliteTable(
  "usage_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tenantId: text("tenant_id").notNull(),
    agentId: text("agent_id"),
    purpose: text("purpose").notNull(),
    role: text("role").notNull(),
    model: text("model").notNull(),
    tokensIn: integer("tokens_in").notNull(),
    tokensOut: integer("tokens_out").notNull(),
    costUsd: real("cost_usd").notNull().default(0),
    at: integer("at").notNull(),
    day: text("day").notNull(),
    /**
     * `open` from just before the request until its answer; one a crash left open is marked
     * `abandoned` by the sweep once its timeout is long past (still counted, at the estimate).
     */
    state: text("state", { enum: ["open", "settled", "failed", "abandoned"] })
      .notNull()
      .default("settled"),
    /** The tokens are an estimate: the row is still open, or the provider reported no usage. */
    estimated: integer("estimated", { mode: "boolean" }).notNull().default(false),
    /** Sent as X-Client-Request-Id; null on rows written before calls were opened. */
    callId: text("call_id"),
    settledAt: integer("settled_at"),
  },
  (t) => [
    index("usage_ledger_tenant_at_idx").on(t.tenantId, t.at),
    uniqueIndex("usage_ledger_call_id_idx").on(t.callId),
    index("usage_ledger_open_idx").on(t.at).where(sql`${t.state} = 'open'`),
  ],
);

/** Practice datasets are tenant-wide: any agent of the tenant can practise on them. */
export const datasets = sqliteTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    holdoutFraction: real("holdout_fraction").notNull(),
    verifier: text("verifier", { mode: "json" }).$type<VerifierConfig | null>(),
    /** The last task `seq` handed out; uploads reserve a range from it so task order is stable. */
    taskSeq: integer("task_seq").notNull().default(0),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("datasets_tenant_idx").on(t.tenantId, t.createdAt, t.id)],
);

export const datasetTasks = sqliteTable(
  "dataset_tasks",
  {
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    taskId: text("task_id").notNull(),
    seq: integer("seq").notNull(),
    task: text("task").notNull(),
    groundTruth: text("ground_truth"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown> | null>(),
    split: text("split", { enum: ["train", "validation", "holdout"] }).notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.taskId] }),
    uniqueIndex("dataset_tasks_seq_uq").on(t.datasetId, t.seq),
    index("dataset_tasks_split_idx").on(t.datasetId, t.split, t.seq),
  ],
);

/**
 * The listing of practice runs; the run itself lives in its PracticeRun Durable Object. No foreign
 * key to the dataset: a run's record outlives the dataset it practised on.
 */
export const practiceRuns = sqliteTable(
  "practice_runs",
  {
    runId: text("run_id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    datasetId: text("dataset_id").notNull(),
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    summary: text("summary", { mode: "json" }).$type<Record<string, unknown> | null>(),
    error: text("error"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("practice_runs_agent_idx").on(t.tenantId, t.agentId, t.createdAt)],
);

/** The listing of evaluations; the evaluation itself (units, rewards) lives in its Evaluation Durable Object. */
export const evaluations = sqliteTable(
  "evaluations",
  {
    evaluationId: text("evaluation_id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    datasetId: text("dataset_id").notNull(),
    status: text("status", { enum: EVALUATION_STATUSES }).notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Accuracy, interval, task count and usage once the evaluation has ended. */
    summary: text("summary", { mode: "json" }).$type<Record<string, unknown> | null>(),
    error: text("error"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("evaluations_agent_idx").on(t.tenantId, t.agentId, t.createdAt)],
);

/** A comparison names its two evaluations; the paired result is computed from them when read. */
export const evaluationComparisons = sqliteTable(
  "evaluation_comparisons",
  {
    comparisonId: text("comparison_id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    datasetId: text("dataset_id").notNull(),
    evaluationA: text("evaluation_a").notNull(),
    evaluationB: text("evaluation_b").notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("evaluation_comparisons_agent_idx").on(t.tenantId, t.agentId, t.createdAt)],
);

/**
 * A practice schedule of an agent. `next_due` is the due time the next fire claims with a
 * conditional UPDATE; `pending_due` is a claimed fire whose outcome is not recorded yet, which a
 * later cron finishes should the claiming one have died.
 */
export const practiceSchedules = sqliteTable(
  "practice_schedules",
  {
    tenantId: text("tenant_id").notNull(),
    agentId: text("agent_id").notNull(),
    name: text("name").notNull(),
    every: text("every").notNull(),
    datasetId: text("dataset_id").notNull(),
    run: text("run", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    nextDue: integer("next_due").notNull(),
    pendingDue: integer("pending_due"),
    pendingAt: integer("pending_at"),
    lastRun: text("last_run", { mode: "json" }).$type<ScheduleFire | null>(),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.agentId, t.name] }),
    foreignKey({ columns: [t.tenantId, t.agentId], foreignColumns: [agents.tenantId, agents.agentId] }).onDelete("cascade"),
    index("practice_schedules_due_idx").on(t.enabled, t.nextDue),
    index("practice_schedules_pending_idx").on(t.pendingDue),
  ],
);

/** When remedial practice last triggered for an agent; claimed with one conditional upsert per cooldown. */
export const remedialClaims = sqliteTable(
  "remedial_claims",
  {
    tenantId: text("tenant_id").notNull(),
    agentId: text("agent_id").notNull(),
    lastAt: integer("last_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.agentId] }),
    foreignKey({ columns: [t.tenantId, t.agentId], foreignColumns: [agents.tenantId, agents.agentId] }).onDelete("cascade"),
  ],
);

/** A tenant's outbound event webhook (migrations/0009_events.sql). */
export const eventEndpoints = sqliteTable(
  "event_endpoints",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    eventTypes: text("event_types", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("event_endpoints_tenant_idx").on(t.tenantId, t.createdAt)],
);

export interface DeliveryAttempt {
  at: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  error?: string;
}

/** One event sent to one endpoint; `attemptLog` is the delivery log the API shows. */
export const eventDeliveries = sqliteTable(
  "event_deliveries",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    traceparent: text("traceparent"),
    status: text("status", { enum: ["pending", "sending", "retrying", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    attemptLog: text("attempt_log", { mode: "json" }).$type<DeliveryAttempt[]>().notNull().default(sql`'[]'`),
    leaseUntil: integer("lease_until"),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
    deliveredAt: integer("delivered_at"),
  },
  (t) => [
    uniqueIndex("event_deliveries_event_endpoint_uq").on(t.eventId, t.endpointId),
    index("event_deliveries_tenant_idx").on(t.tenantId, t.createdAt),
    index("event_deliveries_created_idx").on(t.createdAt),
  ],
);
