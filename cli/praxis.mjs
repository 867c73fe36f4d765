#!/usr/bin/env node
// @ts-check
// `praxis`: the command line for a Praxis Worker, over the TypeScript client in client/dist (one
// HTTP layer: retries, Idempotency-Keys and problem errors come from there). Plain ESM JavaScript
// so that Node 20 runs it as it is; types are checked through JSDoc (tsconfig.node.json).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command, CommanderError, Option } from "commander";
import cliProgress from "cli-progress";
import { Praxis, PraxisConnectionError, PraxisError, unwrap } from "../client/dist/index.js";

/** Exit codes scripts can rely on (also in `praxis --help`). */
const EXIT = { ok: 0, api: 1, usage: 2, network: 3, unsuccessful: 4 };
const EXIT_HELP = `
Exit codes:
  0  success
  1  the API answered an error (a problem: status, type and detail on stderr)
  2  usage error (bad arguments, no URL or key configured)
  3  the API could not be reached
  4  a practice run or evaluation ended without success (failed, cancelled, budget-exhausted)

URL and key come from --url/--key, else PRAXIS_URL/PRAXIS_API_KEY, else \`praxis login\`.`;

/** Per-request size of a dataset upload: the API takes up to 5000 NDJSON lines and 16 MiB. */
const UPLOAD_LINES = 500;
const UPLOAD_BYTES = 4 * 1024 * 1024;
const EVAL_POLL_MS = 2000;

class UsageError extends Error {}
class UnsuccessfulError extends Error {}

// ---------------------------------------------------------------- configuration

function configPath() {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "praxis", "config.json");
}

/** @returns {{ url?: string; key?: string }} */
function readConfig() {
  try {
    return JSON.parse(readFileSync(configPath(), "utf8"));
  } catch {
    return {};
  }
}

/** @param {{ url: string; key: string }} config */
function writeConfig(config) {
  const file = configPath();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of an existing file: the key must not stay readable by others.
  chmodSync(file, 0o600);
  return file;
}

/** @typedef {{ url?: string; key?: string; json?: boolean }} Globals */

/** @param {Command} cmd */
function globals(cmd) {
  return /** @type {Globals} */ (cmd.optsWithGlobals());
}

/** @param {Command} cmd */
function connection(cmd) {
  const g = globals(cmd);
  const saved = readConfig();
  const url = g.url ?? process.env.PRAXIS_URL ?? saved.url;
  const key = g.key ?? process.env.PRAXIS_API_KEY ?? saved.key;
  if (!url) throw new UsageError("No API URL: pass --url, set PRAXIS_URL or run `praxis login`.");
  if (!key) throw new UsageError("No API key: pass --key, set PRAXIS_API_KEY or run `praxis login`.");
  return { url, key };
}

/** @param {Command} cmd */
function client(cmd) {
  const { url, key } = connection(cmd);
  return new Praxis({ baseUrl: url, apiKey: key });
}

// ---------------------------------------------------------------- output

/** @param {unknown} value */
const cell = (value) => (value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));

/**
 * A plain aligned table on stdout.
 * @param {Record<string, unknown>[]} rows
 * @param {string[]} columns
 */
function table(rows, columns) {
  if (!rows.length) return void console.log("(none)");
  const text = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((t) => (t[i] ?? "").length))));
  const line = (/** @type {string[]} */ cells) => cells.map((t, i) => (t.length > 60 ? `${t.slice(0, 59)}…` : t).padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  console.log(line(columns));
  for (const t of text) console.log(line(t));
}

/**
 * Prints `data` as JSON with --json, else through `human`.
 * @template T
 * @param {Command} cmd
 * @param {T} data
 * @param {(data: T) => void} human
 */
function output(cmd, data, human) {
  if (globals(cmd).json) console.log(JSON.stringify(data, null, 2));
  else human(data);
}

/** @param {number | null | undefined} ms */
const when = (ms) => (ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "");
/** @param {number | null | undefined} x */
const fixed = (x, digits = 3) => (typeof x === "number" ? x.toFixed(digits) : "–");

/**
 * Every page of a cursor-paginated list.
 * @template T
 * @param {(cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>} page
 */
async function allPages(page) {
  /** @type {T[]} */
  const items = [];
  let cursor;
  do {
    const r = await page(cursor);
    items.push(...r.items);
    cursor = r.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** @param {string} text @param {string} name */
function integer(text, name) {
  if (!/^\d+$/.test(text)) throw new UsageError(`${name} must be a whole number, not '${text}'.`);
  return Number(text);
}

/** @param {string} text @param {string} name */
function number(text, name) {
  const n = Number(text);
  if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) throw new UsageError(`${name} must be a number, not '${text}'.`);
  return n;
}

/** @param {string} file */
function readInput(file) {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

// ---------------------------------------------------------------- commands

const program = new Command("praxis")
  .description("Command line for a Praxis Worker: agents, experiences, the library, datasets, practice runs, evaluations, usage.")
  .option("--url <url>", "API base URL (env PRAXIS_URL)")
  .option("--key <key>", "API key (env PRAXIS_API_KEY)")
  .option("--json", "print the API's JSON instead of tables (for scripts)")
  .addHelpText("after", EXIT_HELP)
  .showHelpAfterError("(run with --help for usage)");

program
  .command("login")
  .description("Check a URL and key against the API and save them (~/.config/praxis/config.json, mode 0600)")
  .action(async (_opts, cmd) => {
    const { url, key } = connection(cmd);
    await unwrap(new Praxis({ baseUrl: url, apiKey: key }).api.GET("/v1/agents", { params: { query: { limit: 1 } } }));
    const file = writeConfig({ url, key });
    output(cmd, { url, config: file }, () => console.log(`Saved ${url} and the key to ${file}`));
  });

const tenants = program.command("tenants").description("Tenants (operator key)");
tenants
  .command("create <name>")
  .description("Create a tenant; prints its admin API key once")
  .action(async (name, _opts, cmd) => {
    const t = await unwrap(client(cmd).api.POST("/v1/tenants", { body: { name } }));
    output(cmd, t, () => console.log(`Tenant ${t.tenantId} (${t.name})\nAdmin API key (shown once): ${t.apiKey}`));
  });

const agents = program.command("agents").description("Agents of the tenant");
agents
  .command("ls")
  .description("List agents")
  .action(async (_opts, cmd) => {
    const api = client(cmd).api;
    const items = await allPages((cursor) => unwrap(api.GET("/v1/agents", { params: { query: { limit: 200, cursor } } })));
    output(cmd, items, (rows) => table(rows.map((a) => ({ ...a, createdAt: when(a.createdAt) })), ["agentId", "displayName", "createdAt"]));
  });
agents
  .command("create <agentId>")
  .description("Create an agent (or rename it)")
  .option("--name <displayName>", "display name")
  .action(async (agentId, opts, cmd) => {
    const a = await client(cmd).agent(agentId).ensure(opts.name);
    output(cmd, a, () => console.log(`Agent ${a.agentId}${a.displayName ? ` (${a.displayName})` : ""}`));
  });
agents
  .command("rm <agentId>")
  .description("Delete an agent and erase its memory")
  .action(async (agentId, _opts, cmd) => {
    const r = await unwrap(client(cmd).api.DELETE("/v1/agents/{agentId}", { params: { path: { agentId } } }));
    output(cmd, r, () => console.log(`Deleted agent ${agentId}`));
  });

const experiences = program.command("experiences").description("An agent's experiences (lessons)");
experiences
  .command("ls <agentId>")
  .description("List experiences")
  .addOption(new Option("--status <status>", "which ones").choices(["active", "archived", "quarantined", "all"]).default("active"))
  .option("--tag <tag>", "only with this tag")
  .option("--contains <text>", "only containing this text")
  .action(async (agentId, opts, cmd) => {
    const api = client(cmd).api;
    const query = { status: opts.status, tag: opts.tag, contains: opts.contains, limit: 200 };
    const items = await allPages((cursor) => unwrap(api.GET("/v1/agents/{agentId}/experiences", { params: { path: { agentId }, query: { ...query, cursor } } })));
    output(cmd, items, (rows) => table(rows.map((e) => ({ ...e, q: fixed(e.q) })), ["label", "id", "q", "source", "status", "text"]));
  });
experiences
  .command("add <agentId> <text>")
  .description("Add an experience (a new library version)")
  .option("--tag <tag...>", "tags")
  .action(async (agentId, text, opts, cmd) => {
    const r = await client(cmd).agent(agentId).addExperience({ text, tags: opts.tag });
    output(cmd, r, () => console.log(`Added ${r.id} in library version ${r.libraryVersion}`));
  });
experiences
  .command("rm <agentId> <id>")
  .description("Delete an experience (a new library version; roll back to restore it)")
  .action(async (agentId, id, _opts, cmd) => {
    const r = await unwrap(client(cmd).api.DELETE("/v1/agents/{agentId}/experiences/{id}", { params: { path: { agentId, id } } }));
    output(cmd, r, () => console.log(`Deleted ${r.deleted} in library version ${r.libraryVersion}`));
  });

const library = program.command("library").description("An agent's library versions");
library
  .command("versions <agentId>")
  .description("Library versions, newest first")
  .action(async (agentId, _opts, cmd) => {
    const api = client(cmd).api;
    const items = await allPages((cursor) =>
      unwrap(api.GET("/v1/agents/{agentId}/library/versions", { params: { path: { agentId }, query: { limit: 200, cursor: cursor ? Number(cursor) : undefined } } })),
    );
    output(cmd, items, (rows) => table(rows.map((v) => ({ ...v, createdAt: when(v.createdAt) })), ["version", "changes", "author", "createdAt", "reason"]));
  });
library
  .command("diff <agentId> <n>")
  .description("What version n changed")
  .action(async (agentId, n, _opts, cmd) => {
    const d = await unwrap(client(cmd).api.GET("/v1/agents/{agentId}/library/versions/{n}/diff", { params: { path: { agentId, n: integer(n, "n") } } }));
    output(cmd, d, () => {
      console.log(`Version ${d.version} by ${d.author}: ${d.reason}`);
      for (const c of d.diff) {
        if (c.before && c.after && c.before.text !== c.after.text) console.log(`${c.op.padEnd(7)} ${c.id}\n  - ${c.before.text}\n  + ${c.after.text}`);
        else console.log(`${c.op.padEnd(7)} ${c.id}  ${(c.after ?? c.before)?.text ?? ""}`);
      }
    });
  });
library
  .command("rollback <agentId> <n>")
  .description("Restore the library of version n (recorded as a new version)")
  .action(async (agentId, n, _opts, cmd) => {
    const r = await unwrap(client(cmd).api.POST("/v1/agents/{agentId}/library/rollback", { params: { path: { agentId } }, body: { version: integer(n, "n") } }));
    output(cmd, r, () => console.log(r.unchanged ? `Already at version ${n}'s library` : `Rolled back to version ${n}'s library as version ${r.libraryVersion}`));
  });
library
  .command("export <agentId>")
  .description("Print the library as JSON (praxis library export bot > lib.json)")
  .action(async (agentId, _opts, cmd) => {
    const r = await unwrap(client(cmd).api.GET("/v1/agents/{agentId}/library/export", { params: { path: { agentId } } }));
    console.log(JSON.stringify(r, null, 2));
  });
library
  .command("import <agentId> <file>")
  .description("Import an export ('-' reads stdin)")
  .addOption(new Option("--mode <mode>", "merge adds unseen experiences; replace makes the library equal to the file").choices(["merge", "replace"]).default("merge"))
  .action(async (agentId, file, opts, cmd) => {
    let exported;
    try {
      exported = JSON.parse(readInput(file));
    } catch (err) {
      throw err instanceof UsageError ? err : new UsageError(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const r = await unwrap(client(cmd).api.POST("/v1/agents/{agentId}/library/import", { params: { path: { agentId } }, body: { mode: opts.mode, library: exported } }));
    output(cmd, r, () => console.log(r.unchanged ? "Nothing to import" : `Imported as library version ${r.libraryVersion}: ${r.changed} changed, ${r.deleted} deleted`));
  });

const datasets = program.command("datasets").description("Practice datasets (tenant-wide)");
datasets
  .command("ls")
  .description("List datasets")
  .action(async (_opts, cmd) => {
    const api = client(cmd).api;
    const items = await allPages((cursor) => unwrap(api.GET("/v1/datasets", { params: { query: { limit: 200, cursor } } })));
    output(cmd, items, (rows) => table(rows.map((d) => ({ ...d, createdAt: when(d.createdAt) })), ["datasetId", "name", "holdoutFraction", "createdAt"]));
  });
datasets
  .command("upload <name> <file>")
  .description("Upload tasks (JSONL, one task a line) into the dataset NAME, creating it if needed. Re-running resumes: tasks already stored (same id) are skipped by the API")
  .option("--holdout <fraction>", "holdout fraction of a new dataset", "0.2")
  .action(async (name, file, opts, cmd) => {
    const praxis = client(cmd);
    const lines = readInput(file).split("\n").filter((l) => l.trim());
    if (!lines.length) throw new UsageError(`${file} holds no tasks.`);
    const existing = (await allPages((cursor) => unwrap(praxis.api.GET("/v1/datasets", { params: { query: { limit: 200, cursor } } })))).find((d) => d.name === name);
    const datasetId =
      existing?.datasetId ?? (await unwrap(praxis.api.POST("/v1/datasets", { body: { name, holdoutFraction: number(opts.holdout, "--holdout") } }))).datasetId;
    const bar = globals(cmd).json ? null : new cliProgress.SingleBar({ format: "upload [{bar}] {value}/{total} tasks | {inserted} new, {unchanged} already there", hideCursor: true }, cliProgress.Presets.shades_classic);
    const totals = { datasetId, created: !existing, lines: lines.length, inserted: 0, unchanged: 0, conflictCount: 0, conflicts: /** @type {string[]} */ ([]) };
    bar?.start(lines.length, 0, { inserted: 0, unchanged: 0 });
    try {
      for (let i = 0; i < lines.length; ) {
        let end = i;
        let bytes = 0;
        while (end < lines.length && end - i < UPLOAD_LINES && bytes < UPLOAD_BYTES) bytes += (lines[end++] ?? "").length + 1;
        const r = await unwrap(
          praxis.api.POST("/v1/datasets/{datasetId}/tasks", {
            params: { path: { datasetId } },
            // NDJSON goes as it is: the body is the file's own lines.
            body: /** @type {never} */ (lines.slice(i, end).join("\n")),
            bodySerializer: (b) => /** @type {string} */ (b),
            headers: { "content-type": "application/x-ndjson" },
          }),
        );
        totals.inserted += r.inserted;
        totals.unchanged += r.unchanged;
        totals.conflictCount += r.conflictCount;
        totals.conflicts.push(...r.conflicts.slice(0, 100 - totals.conflicts.length));
        i = end;
        bar?.update(i, { inserted: totals.inserted, unchanged: totals.unchanged });
      }
    } finally {
      bar?.stop();
    }
    output(cmd, totals, (t) =>
      console.log(
        `${t.created ? "Created" : "Resumed"} dataset ${name} (${datasetId}): ${t.inserted} new tasks, ${t.unchanged} already stored` +
          (t.conflictCount ? `, ${t.conflictCount} ids kept with other content (${t.conflicts.slice(0, 5).join(", ")}${t.conflictCount > 5 ? ", …" : ""})` : ""),
      ),
    );
  });

const practice = program.command("practice").description("Practice runs (Training-Free GRPO)");
practice
  .command("start <agentId>")
  .description("Start a practice run on a dataset")
  .requiredOption("--dataset <datasetId>", "the dataset to practise on")
  .option("--epochs <n>", "passes over the train split")
  .option("--batch-size <n>", "tasks per step")
  .option("--group-size <n>", "rollouts per task (2-16)")
  .option("--verifier <kind>", "exact, contains, regex, numeric, math, json, majority (default: the dataset's)")
  .option("--model <model>", "policy model (default: LLM_MODEL_POLICY)")
  .option("--system <prompt>", "the agent's own system prompt")
  .option("--concurrency <n>", "units in flight")
  .option("--max-tokens <n>", "token budget of the run")
  .option("--seed <n>", "seed for shuffling and sampling")
  .option("--no-promote", "keep the learned library in the run")
  .option("--follow", "show live progress until the run ends, then its learning curve")
  .action(async (agentId, opts, cmd) => {
    const praxis = client(cmd);
    const int = (/** @type {string | undefined} */ v, /** @type {string} */ name) => (v === undefined ? undefined : integer(v, name));
    const body = {
      datasetId: opts.dataset,
      epochs: int(opts.epochs, "--epochs"),
      batchSize: int(opts.batchSize, "--batch-size"),
      groupSize: int(opts.groupSize, "--group-size"),
      concurrency: int(opts.concurrency, "--concurrency"),
      seed: int(opts.seed, "--seed"),
      promote: opts.promote ? undefined : /** @type {const} */ ("never"),
      budget: opts.maxTokens ? { maxTokens: integer(opts.maxTokens, "--max-tokens") } : undefined,
      verifier: opts.verifier ? /** @type {never} */ ({ kind: opts.verifier }) : undefined,
      policy: { kind: /** @type {const} */ ("llm"), model: opts.model, system: opts.system },
    };
    const started = await unwrap(praxis.api.POST("/v1/agents/{agentId}/practice-runs", { params: { path: { agentId } }, body }));
    if (!opts.follow) return output(cmd, started, (s) => console.log(`Run ${s.runId} ${s.status}; follow it with: praxis practice show ${agentId} ${s.runId}`));
    if (!globals(cmd).json) console.error(`Run ${started.runId} ${started.status}`);
    const view = await follow(cmd, praxis, agentId, started.runId);
    const curve = await learningCurve(praxis, agentId, started.runId);
    output(cmd, { run: view, curve }, () => {
      printRun(view);
      printCurve(curve);
    });
    if (view.status !== "completed") throw new UnsuccessfulError(`Run ${view.runId} ended ${view.status}${view.error ? `: ${view.error}` : ""}`);
  });
practice
  .command("show <agentId> <runId>")
  .description("A run: status, progress, reward per step, usage, and its learning curve")
  .action(async (agentId, runId, _opts, cmd) => {
    const praxis = client(cmd);
    const view = await unwrap(praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: { path: { agentId, runId } } }));
    const curve = await learningCurve(praxis, agentId, runId);
    output(cmd, { run: view, curve }, () => {
      printRun(view);
      printCurve(curve);
    });
  });

/** @typedef {Awaited<ReturnType<typeof runView>>} RunView */
/** @param {Praxis} praxis @param {string} agentId @param {string} runId */
function runView(praxis, agentId, runId) {
  return unwrap(praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}", { params: { path: { agentId, runId } } }));
}

/**
 * Live progress from the run's event stream: one bar for the steps of the run and one for the
 * current stage (rollouts done of the step's rollouts). Without a terminal, one line per step.
 * @param {Command} cmd @param {Praxis} praxis @param {string} agentId @param {string} runId
 */
async function follow(cmd, praxis, agentId, runId) {
  const quiet = globals(cmd).json;
  const tty = process.stderr.isTTY && !quiet;
  let view = await runView(praxis, agentId, runId);
  const totalSteps = () => Math.max(1, (view.config.epochs ?? 1) * Math.max(1, view.progress.stepsPerEpoch));
  const bars = tty ? new cliProgress.MultiBar({ format: "{name} [{bar}] {value}/{total} {info}", hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic) : null;
  const steps = bars?.create(totalSteps(), 0, { name: "steps ", info: "" });
  const stage = bars?.create(1, 0, { name: "stage ", info: "waiting" });
  let done = 0;
  try {
    for await (const e of praxis.agent(agentId).practiceEvents(runId)) {
      const d = e.data;
      if (e.type === "status" && d.status === "running") {
        view = await runView(praxis, agentId, runId);
        steps?.setTotal(totalSteps());
      } else if (e.type === "stage") {
        stage?.update(0, { info: `epoch ${d.epoch} step ${d.step}: ${d.stage}` });
        if (d.stage === "rollout" && typeof d.tasks === "number") stage?.setTotal(d.tasks * (view.config.groupSize ?? 1));
      } else if (e.type === "rollout" && typeof d.done === "number") {
        if (typeof d.total === "number") stage?.setTotal(d.total);
        stage?.update(d.done, { info: `epoch ${d.epoch} step ${d.step}: rollouts` });
      } else if (e.type === "step") {
        done++;
        const info = `reward ${fixed(/** @type {number | null} */ (d.meanReward))}, library ${d.librarySize}`;
        steps?.update(done, { info });
        if (!tty && !quiet) console.error(`epoch ${d.epoch} step ${d.step}: ${info}, ${d.changes} changes`);
      } else if (e.type === "budget" && !tty && !quiet) console.error(`budget reached: ${d.reason}`);
    }
  } finally {
    bars?.stop();
  }
  return runView(praxis, agentId, runId);
}

/**
 * The run's learning curve: train reward, library size and tokens per step, holdout accuracy per
 * epoch (the /curve route); from the step list when the Worker predates that route.
 * @param {Praxis} praxis @param {string} agentId @param {string} runId
 * @returns {Promise<{ steps: { epoch: number; step: number; trainReward: number | null; librarySize: number | null; tokens: number | null }[]; epochs: { epoch: number; holdoutAccuracy: number | null; interval: unknown }[] }>}
 */
async function learningCurve(praxis, agentId, runId) {
  const params = { params: { path: { agentId, runId } } };
  // Cast: the route joined the API after this client's snapshot; regenerating makes it typed.
  const curve = await praxis.api.GET(/** @type {"/v1/agents/{agentId}/practice-runs/{runId}/steps"} */ (`/v1/agents/{agentId}/practice-runs/{runId}/curve`), params);
  if (curve.response.ok) return /** @type {never} */ (curve.data);
  if (curve.response.status !== 404) throw new PraxisError(curve.response.status, curve.error, curve.response.headers.get("x-request-id"));
  const { items } = await unwrap(praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/steps", params));
  return {
    steps: items.map((s) => ({
      epoch: Number(s.epoch),
      step: Number(s.step),
      trainReward: typeof s.meanReward === "number" ? s.meanReward : null,
      librarySize: typeof s.librarySize === "number" ? s.librarySize : null,
      tokens: s.usage && typeof s.usage === "object" ? Number(/** @type {any} */ (s.usage).tokensIn) + Number(/** @type {any} */ (s.usage).tokensOut) : null,
    })),
    epochs: [],
  };
}

/** @param {RunView} v */
function printRun(v) {
  console.log(`Run ${v.runId} (agent ${v.agentId}, dataset ${v.datasetId}): ${v.status}${v.error ? ` — ${v.error}` : ""}`);
  console.log(`  progress: epoch ${v.progress.epoch + 1}/${v.config.epochs}, step ${v.progress.step + 1}/${v.progress.stepsPerEpoch}${v.progress.stage ? `, ${v.progress.stage}` : ""}`);
  console.log(`  library: ${v.librarySize} experiences; usage: ${v.usage.calls} LLM calls, ${v.usage.tokensIn + v.usage.tokensOut} tokens, $${v.usage.costUsd.toFixed(4)}`);
  if (v.promotion) console.log(`  promotion: ${v.promotion.promoted ? `version ${v.promotion.version}` : "not promoted"} (${v.promotion.reason})`);
}

/** @param {Awaited<ReturnType<typeof learningCurve>>} curve */
function printCurve(curve) {
  if (curve.steps.length) {
    console.log("");
    table(
      curve.steps.map((s) => ({ epoch: s.epoch, step: s.step, "train reward": fixed(s.trainReward), library: s.librarySize, tokens: s.tokens })),
      ["epoch", "step", "train reward", "library", "tokens"],
    );
  }
  if (curve.epochs.length) {
    console.log("");
    table(
      curve.epochs.map((e) => ({ epoch: e.epoch, "holdout accuracy": fixed(e.holdoutAccuracy), interval: intervalText(e.interval) })),
      ["epoch", "holdout accuracy", "interval"],
    );
  }
}

/** @param {unknown} i */
function intervalText(i) {
  if (Array.isArray(i)) return `[${fixed(i[0])}, ${fixed(i[1])}]`;
  if (i && typeof i === "object" && "low" in i && "high" in i) return `[${fixed(/** @type {any} */ (i).low)}, ${fixed(/** @type {any} */ (i).high)}]`;
  return cell(i);
}

program
  .command("eval <agentId>")
  .description("Evaluate the agent's library on a dataset split; waits and prints accuracy with its 95% interval")
  .requiredOption("--dataset <datasetId>", "the dataset")
  .addOption(new Option("--split <split>", "which tasks").choices(["train", "holdout"]).default("holdout"))
  .option("--samples <n>", "policy calls per task (1-8)")
  .option("--version <n>", "library version to evaluate (0: no lessons); default the active library")
  .option("--run <runId>", "a practice run's library instead")
  .option("--model <model>", "policy model")
  .option("--verifier <kind>", "verifier kind (default: the dataset's)")
  .option("--seed <n>", "seed")
  .option("--no-wait", "print the evaluation id and return")
  .action(async (agentId, opts, cmd) => {
    const praxis = client(cmd);
    const libraryChoice = opts.run ? { runId: opts.run } : opts.version !== undefined ? { version: integer(opts.version, "--version") } : undefined;
    const body = {
      datasetId: opts.dataset,
      split: opts.split,
      samples: opts.samples === undefined ? undefined : integer(opts.samples, "--samples"),
      seed: opts.seed === undefined ? undefined : integer(opts.seed, "--seed"),
      library: libraryChoice,
      policy: { kind: /** @type {const} */ ("llm"), model: opts.model },
      verifier: opts.verifier ? /** @type {never} */ ({ kind: opts.verifier }) : undefined,
    };
    const params = { path: { agentId } };
    const { evaluationId } = await unwrap(praxis.api.POST("/v1/agents/{agentId}/evaluations", { params, body }));
    if (!opts.wait) return output(cmd, { evaluationId }, () => console.log(evaluationId));
    const get = () => unwrap(praxis.api.GET("/v1/agents/{agentId}/evaluations/{evaluationId}", { params: { path: { agentId, evaluationId } } }));
    let ev = await get();
    while (ev.status === "queued" || ev.status === "running") {
      await new Promise((r) => setTimeout(r, EVAL_POLL_MS));
      ev = await get();
    }
    output(cmd, ev, (e) =>
      console.log(`Evaluation ${e.evaluationId}: ${e.status}${e.status === "completed" ? ` — accuracy ${fixed(e.accuracy)} (95% interval ${intervalText(e.interval)})` : ""}`),
    );
    if (ev.status !== "completed") throw new UnsuccessfulError(`Evaluation ${ev.evaluationId} ${ev.status}`);
  });

program
  .command("usage")
  .description("LLM usage and estimated cost")
  .addOption(new Option("--group-by <by>", "grouping").choices(["day", "model", "purpose", "agent", "role"]).default("day"))
  .option("--from <ms>", "from (epoch ms)")
  .option("--to <ms>", "to (epoch ms)")
  .action(async (opts, cmd) => {
    const query = { groupBy: opts.groupBy, from: opts.from && integer(opts.from, "--from"), to: opts.to && integer(opts.to, "--to") };
    const u = await unwrap(client(cmd).api.GET("/v1/usage", { params: { query } }));
    output(cmd, u, () => {
      console.log(`${when(u.from)} – ${when(u.to)}: ${u.totals.calls} calls, ${u.totals.tokensIn} tokens in, ${u.totals.tokensOut} out, $${u.totals.costUsd.toFixed(4)}`);
      table(/** @type {Record<string, unknown>[]} */ (u.groups), ["key", "calls", "tokensIn", "tokensOut", "costUsd"]);
    });
  });

// ---------------------------------------------------------------- errors and exit codes

/** @param {unknown} err */
function fail(err) {
  const json = process.argv.includes("--json");
  if (err instanceof PraxisError) {
    if (json) console.log(JSON.stringify({ error: err.problem, status: err.status }, null, 2));
    console.error(`praxis: ${err.toString()}`);
    return EXIT.api;
  }
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (err instanceof UsageError) {
    console.error(`praxis: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof PraxisConnectionError) {
    console.error(`praxis: ${err.message}`);
    return EXIT.network;
  }
  if (err instanceof UnsuccessfulError) {
    console.error(`praxis: ${err.message}`);
    return EXIT.unsuccessful;
  }
  console.error(`praxis: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return EXIT.api;
}

program.exitOverride();
for (const cmd of program.commands) cmd.exitOverride();
try {
  await program.parseAsync(process.argv);
  process.exitCode = EXIT.ok;
} catch (err) {
  process.exitCode = fail(err);
}
