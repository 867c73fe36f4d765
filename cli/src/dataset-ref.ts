import { unwrap, type Praxis, type Schemas } from "../../client/src/index.js";
import { allPages } from "./args.js";
import { UsageError } from "./errors.js";

export function listDatasets(praxis: Praxis): Promise<Schemas["Dataset"][]> {
  return allPages((cursor) => unwrap(praxis.api.GET("/v1/datasets", { params: { query: { limit: 200, cursor } } })));
}

/**
 * A dataset id, or the name of one (ids win), for every command that takes a dataset; an unknown
 * reference is passed on, so the API answers it (404, or 422 naming the field) as it would an id.
 */
export async function resolveDataset(praxis: Praxis, ref: string): Promise<string> {
  const all = await listDatasets(praxis);
  const byId = all.find((d) => d.datasetId === ref);
  if (byId) return byId.datasetId;
  const byName = all.filter((d) => d.name === ref);
  if (byName.length > 1)
    throw new UsageError(`${byName.length} datasets are named '${ref}': give its id (${byName.map((d) => d.datasetId).join(", ")}).`);
  return byName[0]?.datasetId ?? ref;
}
