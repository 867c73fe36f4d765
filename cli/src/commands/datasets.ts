import type { Command } from "commander";
import cliProgress from "cli-progress";
import { PraxisError, unwrap, type Praxis, type Schemas } from "../../../client/src/index.js";
import { allPages, integer, number, readInput } from "../args.js";
import { client, globals } from "../config.js";
import { UsageError } from "../errors.js";
import { output, table, when } from "../output.js";

type Task = NonNullable<Schemas["DatasetCreate"]["tasks"]>[number];
type UploadTotals = Schemas["TaskUploadResult"];

/** What one request may carry: POST /v1/datasets takes 500 tasks, …/tasks 5000 NDJSON lines and 16 MiB. */
const CREATE_TASKS = 500;
const REQUEST_LINES = 5000;
const REQUEST_BYTES = 15 * 1024 * 1024;
/** Details fetched at once for `datasets ls`. */
const DETAIL_CONCURRENCY = 8;

function listDatasets(praxis: Praxis): Promise<Schemas["Dataset"][]> {
  return allPages((cursor) => unwrap(praxis.api.GET("/v1/datasets", { params: { query: { limit: 200, cursor } } })));
}

/** The API takes a dataset's id or its name wherever it takes a dataset, so a reference is passed on as given. */
function detail(praxis: Praxis, datasetId: string): Promise<Schemas["DatasetDetail"]> {
  return unwrap(praxis.api.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } }));
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The split as it is: tasks may name their split, so the share held out can be far from the
 * fraction that only decides the tasks that name none.
 */
function splitText(d: Schemas["DatasetDetail"]): string {
  const { train, holdout, total } = d.counts;
  const share = total ? ` (${Math.round((holdout / total) * 100)}% held out)` : "";
  return `${train} train, ${holdout} holdout${share}; a task that names no split is held out with probability ${d.holdoutFraction}`;
}

const detailRow = (d: Schemas["DatasetDetail"]) => ({
  datasetId: d.datasetId,
  name: d.name,
  train: d.counts.train,
  holdout: d.counts.holdout,
  total: d.counts.total,
  holdoutFraction: d.holdoutFraction,
  createdAt: when(d.createdAt),
});

/** The file's tasks, each line parsed; a line that is not a JSON object is a usage error before anything is sent. */
function parseTasks(file: string): { lines: string[]; tasks: Task[] } {
  const lines: string[] = [];
  const tasks: Task[] = [];
  readInput(file)
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw new UsageError(`${file} line ${i + 1} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!value || typeof value !== "object" || Array.isArray(value))
        throw new UsageError(`${file} line ${i + 1} is not a JSON object (one task a line).`);
      lines.push(line);
      // The task's fields are checked by the API, which names the line and field at fault.
      tasks.push(value as Task);
    });
  if (!lines.length) throw new UsageError(`${file} holds no tasks.`);
  return { lines, tasks };
}

/** Consecutive [start, end) ranges of lines, each within one request's limits. */
function chunks(lines: string[], maxLines: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < lines.length; ) {
    let end = i;
    let bytes = 0;
    while (end < lines.length && end - i < maxLines && (end === i || bytes + (lines[end] ?? "").length + 1 <= REQUEST_BYTES))
      bytes += (lines[end++] ?? "").length + 1;
    out.push([i, end]);
    i = end;
  }
  return out;
}

function add(totals: UploadTotals, r: UploadTotals): void {
  totals.inserted += r.inserted;
  totals.unchanged += r.unchanged;
  totals.conflictCount += r.conflictCount;
  totals.conflicts.push(...r.conflicts.slice(0, 100 - totals.conflicts.length));
}

export function registerDatasets(program: Command): void {
  const datasets = program.command("datasets").description("Practice datasets (tenant-wide)");
  datasets
    .command("ls")
    .description("List datasets with their split sizes")
    .action(async (_opts, cmd: Command) => {
      const praxis = client(cmd);
      const details = await mapLimited(await listDatasets(praxis), DETAIL_CONCURRENCY, (d) => detail(praxis, d.datasetId));
      output(cmd, details, (rows) =>
        table(rows.map(detailRow), ["datasetId", "name", "train", "holdout", "total", "holdoutFraction", "createdAt"]),
      );
    });

  datasets
    .command("show <dataset>")
    .description("A dataset (id or name): verifier, split sizes and, with --tasks, its first tasks")
    .option("--tasks <n>", "also list the first n tasks", "0")
    .action(async (ref: string, opts: { tasks: string }, cmd: Command) => {
      const praxis = client(cmd);
      const limit = integer(opts.tasks, "--tasks", { min: 0 });
      const d = await detail(praxis, ref);
      const { datasetId } = d;
      const tasks = limit
        ? (
            await unwrap(
              praxis.api.GET("/v1/datasets/{datasetId}/tasks", { params: { path: { datasetId }, query: { limit: Math.min(limit, 200) } } }),
            )
          ).items
        : [];
      output(cmd, limit ? { ...d, tasks } : d, () => {
        console.log(`Dataset ${d.name} (${d.datasetId})${d.description ? `: ${d.description}` : ""}`);
        console.log(
          `  tasks: ${d.counts.total} (train ${d.counts.train}, holdout ${d.counts.holdout}), ${d.counts.withGroundTruth} with ground truth`,
        );
        console.log(`  split: ${splitText(d)}`);
        console.log(`  verifier: ${d.verifier ? JSON.stringify(d.verifier) : "none (given per run)"}`);
        console.log(`  created ${when(d.createdAt)}, updated ${when(d.updatedAt)}`);
        if (limit) {
          console.log("");
          table(tasks, ["id", "split", "task", "groundTruth"]);
        }
      });
    });

  datasets
    .command("rm <dataset>")
    .description("Delete a dataset (id or name) and its tasks")
    .action(async (ref: string, _opts, cmd: Command) => {
      const praxis = client(cmd);
      const r = await unwrap(praxis.api.DELETE("/v1/datasets/{datasetId}", { params: { path: { datasetId: ref } } }));
      output(cmd, r, () => console.log(`Deleted dataset ${r.datasetId}`));
    });

  datasets
    .command("upload <name> <file>")
    .description(
      "Upload tasks (JSONL, one task a line; '-' reads stdin) into the dataset NAME, creating it if needed. " +
        "A failed upload stores nothing: a new dataset is created with its tasks or not at all; into an existing one, " +
        "a file of up to 5000 lines goes in one request. Re-running resumes: tasks already stored (same id) are skipped",
    )
    .option("--holdout <fraction>", "holdout fraction of a new dataset", "0.2")
    .action(async (name: string, file: string, opts: { holdout: string }, cmd: Command) => {
      const praxis = client(cmd);
      const holdoutFraction = number(opts.holdout, "--holdout", { min: 0, max: 1 });
      const { lines, tasks } = parseTasks(file);
      const existing = (await listDatasets(praxis)).find((d) => d.name === name);
      const totals: UploadTotals = { inserted: 0, unchanged: 0, conflictCount: 0, conflicts: [] };
      let datasetId = existing?.datasetId;
      let sent = 0;
      const bar = globals(cmd).json
        ? null
        : new cliProgress.SingleBar(
            { format: "upload [{bar}] {value}/{total} tasks | {inserted} new, {unchanged} already there", hideCursor: true },
            cliProgress.Presets.shades_classic,
          );
      bar?.start(lines.length, 0, { inserted: 0, unchanged: 0 });
      try {
        if (!datasetId) {
          // The dataset and its first tasks in one request: if they are refused, no dataset exists.
          sent = Math.min(CREATE_TASKS, tasks.length);
          const created = await unwrap(praxis.api.POST("/v1/datasets", { body: { name, holdoutFraction, tasks: tasks.slice(0, sent) } }));
          datasetId = created.datasetId;
          if (created.upload) add(totals, created.upload);
          bar?.update(sent, totals);
        }
        const id = datasetId;
        for (const [start, end] of chunks(lines.slice(sent), existing ? REQUEST_LINES : CREATE_TASKS).map(
          ([s, e]) => [s + sent, e + sent] as const,
        )) {
          try {
            const r = await unwrap(
              praxis.api.POST("/v1/datasets/{datasetId}/tasks", {
                params: { path: { datasetId: id } },
                // NDJSON goes as it is: the body is the file's own lines.
                body: lines.slice(start, end).join("\n") as never,
                bodySerializer: (b: unknown) => b as string,
                headers: { "content-type": "application/x-ndjson" },
              }),
            );
            add(totals, r);
          } catch (err) {
            if (err instanceof PraxisError && lines.length > end - start)
              console.error(`praxis: the refused request held lines ${start + 1}-${end} of the tasks in ${file}`);
            throw err;
          }
          bar?.update(end, totals);
        }
      } catch (err) {
        bar?.stop();
        if (!existing && datasetId) await undoCreate(praxis, datasetId, name);
        throw err;
      }
      bar?.stop();
      const result = { datasetId, created: !existing, lines: lines.length, ...totals };
      output(cmd, result, (t) =>
        console.log(
          `${t.created ? "Created" : "Resumed"} dataset ${name} (${datasetId}): ${t.inserted} new tasks, ${t.unchanged} already stored` +
            (t.conflictCount
              ? `, ${t.conflictCount} ids kept with other content (${t.conflicts.slice(0, 5).join(", ")}${t.conflictCount > 5 ? ", …" : ""})`
              : ""),
        ),
      );
    });
}

/** Removes the dataset this upload created before a later request failed, so the failure leaves nothing. */
async function undoCreate(praxis: Praxis, datasetId: string, name: string): Promise<void> {
  const { response } = await praxis.api
    .DELETE("/v1/datasets/{datasetId}", { params: { path: { datasetId } } })
    .catch(() => ({ response: null }));
  if (response?.ok || response?.status === 404)
    console.error(`praxis: upload failed; removed the dataset ${name} (${datasetId}) it had created`);
  else
    console.error(
      `praxis: upload failed and the dataset ${name} (${datasetId}) it created could not be removed: run \`praxis datasets rm ${datasetId}\``,
    );
}
