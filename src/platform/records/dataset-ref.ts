import { and, eq, or } from "drizzle-orm";
import type { Env } from "../../env";
import { datasets } from "../../db/schema";
import { db } from "../../db/client";
import { notFound, unprocessable } from "../../core/errors";

/** Enough rows to tell an id from a name and to list a few datasets that share a name. */
const MATCHES_READ = 6;

export const noDataset = (ref: string) => `No dataset with id or name '${ref}'.`;

/**
 * The id of the tenant's dataset `ref` names, as every door takes it: the dataset with that id,
 * else the only one with that name; null when none. A name several datasets share is the
 * request's problem (422): which one was meant only its id says.
 */
export async function datasetIdOf(env: Env, tenantId: string, ref: string): Promise<string | null> {
  const rows = await db(env)
    .select({ id: datasets.id })
    .from(datasets)
    .where(and(eq(datasets.tenantId, tenantId), or(eq(datasets.id, ref), eq(datasets.name, ref))))
    .limit(MATCHES_READ)
    .all();
  if (rows.some((r) => r.id === ref)) return ref;
  if (rows.length > 1) {
    const ids = rows.map((r) => r.id).join(", ");
    throw unprocessable(
      `${rows.length === MATCHES_READ ? "Several" : rows.length} datasets are named '${ref}': give the id of one (${ids}).`,
      [{ path: "datasetId", message: "Several datasets have this name" }],
    );
  }
  return rows[0]?.id ?? null;
}

/** A request's `datasetId` (an id or a name) as the dataset's id; none is 422, naming the field. */
export async function withDatasetId<T extends { datasetId: string }>(env: Env, tenantId: string, body: T): Promise<T> {
  const id = await datasetIdOf(env, tenantId, body.datasetId);
  if (!id) throw unprocessable(noDataset(body.datasetId), [{ path: "datasetId", message: "No such dataset" }]);
  return id === body.datasetId ? body : { ...body, datasetId: id };
}

/** A dataset named in a path, as its id; none is not-found (404), as for any missing resource. */
export async function datasetIdIn(env: Env, tenantId: string, ref: string): Promise<string> {
  const id = await datasetIdOf(env, tenantId, ref);
  if (!id) throw notFound(noDataset(ref));
  return id;
}
