import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { router, commonErrors, jsonBody, jsonResponse, security, unprocessableFields } from "../http/openapi";
import { ProblemError } from "../doors/problem";
import { invalid } from "../core/errors";
import {
  DatasetCreateSchema,
  DatasetDetailSchema,
  DatasetSchema,
  DatasetTaskSchema,
  FromEpisodesSchema,
  NDJSON_TYPE_RE,
  SplitSchema,
  TASKS_PER_NDJSON_UPLOAD,
  TaskUploadSchema,
  UploadResultSchema,
  parseTaskLines,
  type DatasetTaskInput,
} from "../core/practice/dataset-types";
import {
  addDatasetTasks,
  createDataset,
  createDatasetFromEpisodes,
  deleteDataset,
  getDataset,
  listDatasets,
  listDatasetTasks,
} from "../use-cases/datasets";
import { depsOf, valueOf } from "../doors/use-case";
import { AgentParams, PageQuery } from "./schemas";

const Dataset = DatasetSchema.openapi("Dataset");
const DatasetDetail = DatasetDetailSchema.openapi("DatasetDetail");
const UploadResult = UploadResultSchema.openapi("TaskUploadResult");
// The bare schema: `.nullable()` of the registered component would make the component itself nullable.
const Created = DatasetDetail.extend({ upload: UploadResultSchema.nullable() }).openapi("CreatedDataset");
const DatasetParams = z.object({
  datasetId: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: "datasetId", in: "path" },
      example: "ds_0123456789abcdef0123",
      description: "The dataset's id, or its name (the dataset with that id, else the one with that name)",
    }),
});
const base = "/v1/datasets";

/** NDJSON uploads: every line is validated before anything is stored; problems name the line. */
async function ndjsonTasks(c: Context<AppEnv>): Promise<DatasetTaskInput[]> {
  // workerd warns when .text() reads a body whose type is not text/*, so decode the bytes.
  const parsed = parseTaskLines(new TextDecoder().decode(await c.req.arrayBuffer()));
  if (!parsed.ok && parsed.tooMany) {
    throw new ProblemError(413, "payload-too-large", `At most ${TASKS_PER_NDJSON_UPLOAD} tasks per NDJSON request; split the upload.`);
  }
  if (!parsed.ok) {
    const first = parsed.issues[0]!;
    throw new ProblemError(400, "validation-failed", `Line ${first.line}${first.path ? ` (${first.path})` : ""}: ${first.message}`, {
      line: first.line,
      errors: parsed.issues.map((i) => ({ path: i.path ? `line.${i.line}.${i.path}` : `line.${i.line}`, message: i.message })),
    });
  }
  if (!parsed.tasks.length) throw invalid("The NDJSON body holds no tasks; send one JSON task a line.");
  return parsed.tasks;
}

/** The tasks of an upload: JSON `{ tasks }` (validated before the handler) or NDJSON, parsed here. */
async function uploadedTasks(c: Context<AppEnv>, json: { tasks: DatasetTaskInput[] } | string | undefined): Promise<DatasetTaskInput[]> {
  const tasks = NDJSON_TYPE_RE.test(c.req.header("content-type") ?? "")
    ? await ndjsonTasks(c)
    : typeof json === "object"
      ? json.tasks
      : undefined;
  if (!tasks) throw invalid("Send `{ tasks: [...] }` as JSON or one task a line as application/x-ndjson.");
  return tasks;
}

export const datasetRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: base,
      tags: ["datasets"],
      operationId: "createDataset",
      summary: "Create a dataset",
      description:
        "Creates a practice dataset (tenant-wide), optionally with up to 500 tasks. Tasks without a split go to train or holdout by a hash of their id.",
      security,
      request: jsonBody(DatasetCreateSchema.openapi("DatasetCreate")),
      responses: { 201: jsonResponse(Created, "Created"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await createDataset(depsOf(c), c.get("principal"), c.req.valid("json"))), 201),
    unprocessableFields("verifier"),
  )
  .openapi(
    createRoute({
      method: "post",
      path: `${base}/{datasetId}/tasks`,
      tags: ["datasets"],
      operationId: "addDatasetTasks",
      summary: "Add tasks: JSON `{ tasks }` (≤ 500) or application/x-ndjson, one task a line (≤ 5000 lines, ≤ 16 MiB)",
      description:
        "A task id is unique per dataset: re-uploading it changes nothing, and an id already stored with other content keeps the stored task and is reported in `conflicts`. Tasks without an id get a hash of their task and ground truth as id. Bad input (any line) stores nothing.",
      security,
      request: {
        params: DatasetParams,
        body: {
          content: {
            "application/json": { schema: TaskUploadSchema.openapi("TaskUpload") },
            "application/x-ndjson": { schema: z.string().openapi({ description: "One task (as in `tasks`) a line" }) },
          },
          // Not `required`: the JSON validator then runs only for JSON bodies, and NDJSON is parsed here.
          required: false,
        },
      },
      responses: { 200: jsonResponse(UploadResult, "Stored"), ...commonErrors },
    }),
    async (c) => {
      const tasks = () => uploadedTasks(c, c.req.valid("json"));
      return c.json(
        valueOf(await addDatasetTasks(depsOf(c), c.get("principal"), { datasetId: c.req.valid("param").datasetId, tasks })),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: base,
      tags: ["datasets"],
      operationId: "listDatasets",
      summary: "List datasets",
      description: "The tenant's datasets, newest first, with cursor pagination.",
      security,
      request: { query: PageQuery },
      responses: { 200: jsonResponse(z.object({ items: z.array(Dataset), nextCursor: z.string().nullable() }), "A page"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await listDatasets(depsOf(c), c.get("principal"), c.req.valid("query"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{datasetId}`,
      tags: ["datasets"],
      operationId: "getDataset",
      summary: "Get a dataset",
      description: "A dataset with its task counts per split.",
      security,
      request: { params: DatasetParams },
      responses: { 200: jsonResponse(DatasetDetail, "The dataset"), ...commonErrors },
    }),
    async (c) => c.json(valueOf(await getDataset(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: `${base}/{datasetId}/tasks`,
      tags: ["datasets"],
      operationId: "listDatasetTasks",
      summary: "List a dataset's tasks",
      description: "A dataset's tasks in upload order, optionally of one split, with cursor pagination.",
      security,
      request: { params: DatasetParams, query: PageQuery.extend({ split: SplitSchema.optional() }) },
      responses: {
        200: jsonResponse(
          z.object({ items: z.array(DatasetTaskSchema.openapi("DatasetTask")), nextCursor: z.string().nullable() }),
          "A page",
        ),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(valueOf(await listDatasetTasks(depsOf(c), c.get("principal"), { ...c.req.valid("param"), ...c.req.valid("query") })), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: `${base}/{datasetId}`,
      tags: ["datasets"],
      operationId: "deleteDataset",
      summary: "Delete a dataset",
      description: "Deletes a dataset and its tasks. Runs and evaluations that used it keep their results.",
      security,
      request: { params: DatasetParams },
      responses: {
        200: jsonResponse(z.object({ datasetId: z.string(), deleted: z.literal(true) }).openapi("DeletedDataset"), "Deleted"),
        ...commonErrors,
      },
    }),
    async (c) => c.json(valueOf(await deleteDataset(depsOf(c), c.get("principal"), c.req.valid("param"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/agents/{agentId}/datasets/from-episodes",
      tags: ["datasets"],
      operationId: "createDatasetFromEpisodes",
      summary: "Create a dataset from episodes",
      description: "Create a dataset from the agent's ended episodes; a successful episode's answer becomes the ground truth.",
      security,
      request: { params: AgentParams, ...jsonBody(FromEpisodesSchema.openapi("DatasetFromEpisodes")) },
      responses: {
        201: jsonResponse(
          Created.extend({
            withheld: z
              .array(z.object({ episodeId: z.string(), reason: z.string() }))
              .describe("Matching episodes left out because the screening step holds their text (see the agent's quarantine)"),
          }),
          "Created",
        ),
        ...commonErrors,
      },
    }),
    async (c) =>
      c.json(
        valueOf(await createDatasetFromEpisodes(depsOf(c), c.get("principal"), { ...c.req.valid("json"), ...c.req.valid("param") })),
        201,
      ),
  );
