import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Env } from "../env";
import { datasets, datasetTasks } from "../db/schema";
import { db, type Db } from "../db/client";
import { chunks } from "../core/chunks";
import { cursorField, pageOf } from "../core/cursor";
import { olderThan } from "../db/keyset";
import { contentTaskId, splitOf } from "../core/practice/split";
import type {
  Dataset,
  DatasetCounts,
  DatasetCreate,
  DatasetDetail,
  DatasetTask,
  DatasetTaskInput,
  FromEpisodes,
  Split,
  UploadResult,
} from "../core/practice/dataset-types";
import { forbidden, notFound, outcome, unprocessable } from "../core/errors";
import { requireScope, type Scope } from "../core/principal";
import { runOptionUrls } from "../core/webhook-url";
import type { Caller, Deps } from "../platform/deps";
import { agentWithRow, resilientMemory } from "../platform/objects/agent-access";
import { recordAudit } from "../platform/records/audit";
import { assertCallableUrls } from "../platform/checks/callable-urls";
import { datasetIdIn, noDataset } from "../platform/records/dataset-ref";

/** D1 binds at most 100 parameters per statement; a task row binds 8. */
const ROWS_PER_INSERT = 12;
/** Task ids per `IN (…)` lookup, leaving room for the dataset id under D1's 100 parameters. */
const IDS_PER_QUERY = 90;
/** Rows and bytes sent in one D1 batch call, so one call never carries a whole large upload. */
const ROWS_PER_BATCH = 240;
const BYTES_PER_BATCH = 2_000_000;
const CONFLICTS_LISTED = 100;

type DatasetRow = typeof datasets.$inferSelect;
type TaskRow = typeof datasetTasks.$inferSelect;

const present = (d: DatasetRow): Dataset => ({
  datasetId: d.id,
  name: d.name,
  description: d.description ?? null,
  holdoutFraction: d.holdoutFraction,
  verifier: d.verifier ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const presentTask = (t: TaskRow): DatasetTask => ({
  id: t.taskId,
  task: t.task,
  groundTruth: t.groundTruth ?? null,
  metadata: t.metadata ?? null,
  split: t.split,
  createdAt: t.createdAt,
});

const missing = (datasetId: string) => notFound(noDataset(datasetId));
const ownDataset = (tenantId: string, datasetId: string) => and(eq(datasets.id, datasetId), eq(datasets.tenantId, tenantId));

function batches<T>(items: readonly T[], size: (item: T) => number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (current.length && (current.length >= ROWS_PER_BATCH || bytes + n > BYTES_PER_BATCH)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += n;
  }
  if (current.length) out.push(current);
  return out;
}

async function runBatch<T>(d: Db, queries: T[]) {
  return (await d.batch(queries as unknown as Parameters<Db["batch"]>[0])) as readonly unknown[];
}

/**
 * Datasets are shared by every agent of the tenant, so keys restricted to some agents may read
 * them but not change them: one agent's key must not alter what another agent practises on.
 */
function datasetKey(caller: Caller, scope: Scope) {
  const key = requireScope(caller, scope);
  if (scope !== "read" && key.agentIds) {
    throw forbidden(
      "Keys restricted to some agents can read datasets but not change them; datasets are shared by every agent of the tenant.",
    );
  }
  return key;
}

/** Creates a dataset of the tenant, optionally with its first tasks. */
export const createDataset = (deps: Deps, caller: Caller, input: DatasetCreate) =>
  outcome(async () => {
    const key = datasetKey(caller, "write");
    assertCallableUrls(deps.env, runOptionUrls({ verifier: input.verifier }));
    const { dataset, upload } = await storeDataset(deps.env, key.tenantId, input);
    const detail = { name: dataset.name, tasks: dataset.counts.total };
    await recordAudit(deps, caller, { tenantId: key.tenantId, action: "dataset.create", target: dataset.datasetId, detail });
    return { ...dataset, upload };
  });

async function storeDataset(
  env: Env,
  tenantId: string,
  input: DatasetCreate,
): Promise<{ dataset: DatasetDetail; upload: UploadResult | null }> {
  const d = db(env);
  const row = await d
    .insert(datasets)
    .values({
      id: `ds_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`,
      tenantId,
      name: input.name,
      description: input.description ?? null,
      holdoutFraction: input.holdoutFraction,
      verifier: input.verifier ?? null,
    })
    .returning()
    .get();
  const upload = input.tasks?.length ? await addTasks(env, tenantId, row.id, input.tasks) : null;
  return { dataset: await datasetDetail(env, tenantId, row.id), upload };
}

const sameContent = (stored: Pick<TaskRow, "task" | "groundTruth" | "metadata" | "split">, t: DatasetTaskInput) =>
  stored.task === t.task &&
  (stored.groundTruth ?? null) === (t.groundTruth ?? null) &&
  JSON.stringify(stored.metadata ?? null) === JSON.stringify(t.metadata ?? null) &&
  (t.split === undefined || t.split === stored.split);

/** Task rows numbered from `base + 1`; a task without an id is named by its content. */
async function taskRows(datasetId: string, input: readonly DatasetTaskInput[], base: number, holdoutFraction: number, now: number) {
  return Promise.all(
    input.map(async (t, i) => {
      const taskId = t.id ?? (await contentTaskId(t.task, t.groundTruth ?? null));
      return {
        datasetId,
        taskId,
        seq: base + i + 1,
        task: t.task,
        groundTruth: t.groundTruth ?? null,
        metadata: t.metadata ?? null,
        split: t.split ?? splitOf(taskId, holdoutFraction),
        createdAt: now,
      };
    }),
  );
}

/**
 * Creates the dataset `datasetId` of the tenant, or replaces its settings and all its tasks: one
 * D1 batch (a transaction), so a run created meanwhile reads either the old tasks or the new ones,
 * never a mix, and concurrent replacements each leave a whole set. For datasets the service
 * itself keeps up to date (remedial practice), with at most a few thousand tasks.
 */
export async function replaceDataset(
  env: Env,
  tenantId: string,
  datasetId: string,
  input: DatasetCreate & { tasks: DatasetTaskInput[] },
): Promise<DatasetDetail> {
  const d = db(env);
  const now = Date.now();
  const tasks = await taskRows(datasetId, input.tasks, 0, input.holdoutFraction, now);
  const settings = {
    name: input.name,
    description: input.description ?? null,
    holdoutFraction: input.holdoutFraction,
    verifier: input.verifier ?? null,
    taskSeq: tasks.length,
    updatedAt: now,
  };
  await runBatch(d, [
    d
      .insert(datasets)
      .values({ id: datasetId, tenantId, ...settings })
      .onConflictDoUpdate({ target: datasets.id, set: settings, setWhere: eq(datasets.tenantId, tenantId) }),
    d.delete(datasetTasks).where(eq(datasetTasks.datasetId, datasetId)),
    ...chunks(tasks, ROWS_PER_INSERT).map((rows) => d.insert(datasetTasks).values(rows)),
  ]);
  return datasetDetail(env, tenantId, datasetId);
}

/**
 * Adds tasks to a dataset of the tenant. The tasks are read (an upload parsed) only once the caller
 * may write, so a key that may not is refused whatever its body holds.
 */
export const addDatasetTasks = (
  deps: Deps,
  caller: Caller,
  input: { datasetId: string; tasks: () => Promise<readonly DatasetTaskInput[]> },
) =>
  outcome(async () => {
    const key = datasetKey(caller, "write");
    const datasetId = await datasetIdIn(deps.env, key.tenantId, input.datasetId);
    return addTasks(deps.env, key.tenantId, datasetId, await input.tasks());
  });

/**
 * Stores tasks with INSERT … ON CONFLICT DO NOTHING: an id already in the dataset keeps its stored
 * content, so uploads are idempotent. Tasks take their `seq` from a range reserved on the dataset
 * row first, which keeps task order stable under concurrent uploads. Every task is validated
 * before this is called; a D1 failure part-way leaves a prefix stored, and the retry completes it.
 */
async function addTasks(env: Env, tenantId: string, datasetId: string, input: readonly DatasetTaskInput[]): Promise<UploadResult> {
  const d = db(env);
  const reserved = await d
    .update(datasets)
    .set({ taskSeq: sql`${datasets.taskSeq} + ${input.length}` })
    .where(ownDataset(tenantId, datasetId))
    .returning({ taskSeq: datasets.taskSeq, holdoutFraction: datasets.holdoutFraction })
    .get();
  if (!reserved) throw missing(datasetId);
  const now = Date.now();
  const tasks = await taskRows(datasetId, input, reserved.taskSeq - input.length, reserved.holdoutFraction, now);

  const insertedIds = new Set<string>();
  const size = (t: (typeof tasks)[number]) => t.task.length + (t.groundTruth?.length ?? 0) + 200;
  for (const group of batches(tasks, size)) {
    const results = await runBatch(
      d,
      chunks(group, ROWS_PER_INSERT).map((rows) =>
        d.insert(datasetTasks).values(rows).onConflictDoNothing().returning({ taskId: datasetTasks.taskId }),
      ),
    );
    for (const rows of results as { taskId: string }[][]) for (const r of rows) insertedIds.add(r.taskId);
  }

  // Everything not inserted now was stored before (or earlier in this upload): compare contents.
  const notInserted: { input: DatasetTaskInput; taskId: string }[] = [];
  let inserted = 0;
  tasks.forEach((t, i) => {
    if (insertedIds.delete(t.taskId)) inserted++;
    else notInserted.push({ input: input[i]!, taskId: t.taskId });
  });
  const conflicts: string[] = [];
  for (const group of batches(notInserted, (t) => t.input.task.length + (t.input.groundTruth?.length ?? 0) + 200)) {
    const ids = [...new Set(group.map((t) => t.taskId))];
    const results = await runBatch(
      d,
      chunks(ids, IDS_PER_QUERY).map((part) =>
        d
          .select({
            taskId: datasetTasks.taskId,
            task: datasetTasks.task,
            groundTruth: datasetTasks.groundTruth,
            metadata: datasetTasks.metadata,
            split: datasetTasks.split,
          })
          .from(datasetTasks)
          .where(and(eq(datasetTasks.datasetId, datasetId), inArray(datasetTasks.taskId, part))),
      ),
    );
    const stored = new Map(
      (results as Pick<TaskRow, "taskId" | "task" | "groundTruth" | "metadata" | "split">[][]).flat().map((r) => [r.taskId, r]),
    );
    for (const t of group) {
      const s = stored.get(t.taskId);
      if (!s || !sameContent(s, t.input)) conflicts.push(t.taskId);
    }
  }
  if (inserted) await d.update(datasets).set({ updatedAt: now }).where(eq(datasets.id, datasetId)).run();
  return {
    inserted,
    unchanged: notInserted.length - conflicts.length,
    conflictCount: conflicts.length,
    conflicts: conflicts.slice(0, CONFLICTS_LISTED),
  };
}

async function counts(d: Db, datasetId: string): Promise<DatasetCounts> {
  const rows = await d
    .select({ split: datasetTasks.split, n: sql<number>`count(*)`, withGroundTruth: sql<number>`count(${datasetTasks.groundTruth})` })
    .from(datasetTasks)
    .where(eq(datasetTasks.datasetId, datasetId))
    .groupBy(datasetTasks.split)
    .all();
  const of = (split: string) => rows.find((r) => r.split === split)?.n ?? 0;
  return {
    train: of("train"),
    validation: of("validation"),
    holdout: of("holdout"),
    total: rows.reduce((s, r) => s + r.n, 0),
    withGroundTruth: rows.reduce((s, r) => s + r.withGroundTruth, 0),
  };
}

/** One dataset of the tenant with its task counts; another tenant's dataset is not-found like a missing one. */
export const getDataset = (deps: Deps, caller: Caller, input: { datasetId: string }) =>
  outcome(async () => {
    const { tenantId } = datasetKey(caller, "read");
    return datasetDetail(deps.env, tenantId, await datasetIdIn(deps.env, tenantId, input.datasetId));
  });

async function datasetDetail(env: Env, tenantId: string, datasetId: string): Promise<DatasetDetail> {
  const d = db(env);
  const row = await d.select().from(datasets).where(ownDataset(tenantId, datasetId)).get();
  if (!row) throw missing(datasetId);
  return { ...present(row), counts: await counts(d, datasetId) };
}

/** The tenant's datasets, newest first. */
export const listDatasets = (deps: Deps, caller: Caller, opts: { limit: number; cursor?: string }) =>
  outcome(async () => {
    const tenantId = datasetKey(caller, "read").tenantId;
    const after = cursorField(opts.cursor, { t: "number", i: "string" });
    const rows = await db(deps.env)
      .select()
      .from(datasets)
      .where(
        and(
          eq(datasets.tenantId, tenantId),
          olderThan(datasets.createdAt, datasets.id, after ? { createdAt: after.t, id: after.i } : undefined),
        ),
      )
      .orderBy(desc(datasets.createdAt), desc(datasets.id))
      .limit(opts.limit + 1)
      .all();
    const page = pageOf(rows, opts.limit, (last) => ({ t: last.createdAt, i: last.id }));
    return { items: page.items.map(present), nextCursor: page.nextCursor };
  });

/** Tasks in upload order, optionally of one split. */
export const listDatasetTasks = (deps: Deps, caller: Caller, opts: { datasetId: string; split?: Split; cursor?: string; limit: number }) =>
  outcome(async (): Promise<{ items: DatasetTask[]; nextCursor: string | null }> => {
    const tenantId = datasetKey(caller, "read").tenantId;
    const datasetId = await datasetIdIn(deps.env, tenantId, opts.datasetId);
    const after = cursorField(opts.cursor, { s: "number" });
    const d = db(deps.env);
    const owner = await d.select({ id: datasets.id }).from(datasets).where(ownDataset(tenantId, datasetId)).get();
    if (!owner) throw missing(datasetId);
    const rows = await d
      .select()
      .from(datasetTasks)
      .where(
        and(
          eq(datasetTasks.datasetId, datasetId),
          opts.split ? eq(datasetTasks.split, opts.split) : undefined,
          after ? gt(datasetTasks.seq, after.s) : undefined,
        ),
      )
      .orderBy(asc(datasetTasks.seq))
      .limit(opts.limit + 1)
      .all();
    const page = pageOf(rows, opts.limit, (last) => ({ s: last.seq }));
    return { items: page.items.map(presentTask), nextCursor: page.nextCursor };
  });

/** Deletes a dataset; its tasks go with it (foreign key cascade). */
export const deleteDataset = (deps: Deps, caller: Caller, input: { datasetId: string }) =>
  outcome(async () => {
    const key = datasetKey(caller, "write");
    const datasetId = await datasetIdIn(deps.env, key.tenantId, input.datasetId);
    const gone = await db(deps.env).delete(datasets).where(ownDataset(key.tenantId, datasetId)).returning({ id: datasets.id }).get();
    if (!gone) throw missing(datasetId);
    await recordAudit(deps, caller, { tenantId: key.tenantId, action: "dataset.delete", target: datasetId });
    return { datasetId, deleted: true as const };
  });

/**
 * A dataset of an agent's ended episodes, one task each (the episode id is the task id). Only a
 * successful episode's answer is a ground truth; the others need a verifier that works without one.
 * Episodes whose text screening holds back (a held case, or the filter) are withheld and listed.
 */
export const createDatasetFromEpisodes = (deps: Deps, caller: Caller, input: FromEpisodes & { agentId: string }) =>
  outcome(async () => {
    const { agentId, since, outcomes, limit, ...dataset } = input;
    const { tenantId } = (await agentWithRow(deps, caller, agentId, "write")).key;
    datasetKey(caller, "write");
    assertCallableUrls(deps.env, runOptionUrls({ verifier: dataset.verifier }));
    const { episodes, withheld } = await resilientMemory(deps.env, tenantId, agentId).episodesForDatasetScreened({
      limit,
      ...(since !== undefined ? { since } : {}),
      ...(outcomes ? { outcomes } : {}),
    });
    if (!episodes.length) {
      throw unprocessable(
        withheld.length
          ? `All ${withheld.length} matching episodes are withheld by the screening step (see the agent's quarantine); nothing to build a dataset from.`
          : "No ended episodes of this agent match; nothing to build a dataset from.",
      );
    }
    const tasks: DatasetTaskInput[] = episodes.map((e) => ({
      id: e.id,
      task: e.task,
      groundTruth: e.outcome === "success" && e.answer ? e.answer : null,
      metadata: { agentId, episodeId: e.id, outcome: e.outcome, endedAt: e.endedAt },
    }));
    const created = await storeDataset(deps.env, tenantId, { ...dataset, tasks });
    await recordAudit(deps, caller, {
      tenantId,
      action: "dataset.create",
      target: created.dataset.datasetId,
      detail: { name: created.dataset.name, tasks: created.dataset.counts.total, fromAgent: agentId },
    });
    return { ...created.dataset, upload: created.upload, withheld };
  });
