import { and, asc, eq } from "drizzle-orm";
import type { Env } from "../../env";
import { datasets, datasetTasks } from "../../db/schema";
import { db } from "../../db/client";
import { unprocessable } from "../../core/errors";
import type { Split } from "../../core/practice/dataset-types";
import { noDataset } from "./dataset-ref";

/**
 * A dataset of the tenant and the tasks of one split, in upload order, as practice runs and
 * evaluations freeze them; an unknown dataset is the request's problem (422, `datasetId`).
 */
export async function datasetSplit(env: Env, tenantId: string, datasetId: string, split: Split) {
  const ds = await db(env)
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, datasetId), eq(datasets.tenantId, tenantId)))
    .get();
  if (!ds) throw unprocessable(noDataset(datasetId), [{ path: "datasetId", message: "No such dataset" }]);
  return { ds, tasks: await splitTasks(env, ds.id, split) };
}

/** The tasks of one split of a dataset, in upload order. */
export function splitTasks(env: Env, datasetId: string, split: Split) {
  return db(env)
    .select({ taskId: datasetTasks.taskId, task: datasetTasks.task, groundTruth: datasetTasks.groundTruth })
    .from(datasetTasks)
    .where(and(eq(datasetTasks.datasetId, datasetId), eq(datasetTasks.split, split)))
    .orderBy(asc(datasetTasks.seq))
    .all();
}
