import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runProcess, type ProcessRun } from "./run-process";

const CLI = path.resolve(import.meta.dirname, "../../cli/praxis.mjs");
const { url, adminKey } = inject("localWorker");
const home = mkdtempSync(path.join(os.tmpdir(), "praxis-cli-test-"));


/** The CLI as a process, as a user would run it; env holds no PRAXIS_* unless given. */
function praxis(args: string[], env: Record<string, string> = {}): Promise<ProcessRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PRAXIS_")));
  return runProcess(process.execPath, [CLI, ...args], { env: { ...base, XDG_CONFIG_HOME: home, NO_COLOR: "1", ...env } });
}

let key = "";
const asTenant = () => ({ PRAXIS_URL: url, PRAXIS_API_KEY: key });
const json = async (args: string[], env = asTenant()) => {
  const r = await praxis([...args, "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(async () => {
  const t = await json(["tenants", "create", "cli-test"], { PRAXIS_URL: url, PRAXIS_API_KEY: adminKey });
  expect(t.apiKey).toMatch(/^pxk_/);
  key = t.apiKey;
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("praxis CLI against the local Worker", () => {
  it("login saves URL and key in a 0600 config file that later commands use", async () => {
    const r = await praxis(["login", "--url", url, "--key", key]);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(home, "praxis", "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url, key });
    const ls = await praxis(["agents", "ls"]);
    expect(ls.code, ls.stderr).toBe(0);
  });

  it("creates, lists and removes agents", async () => {
    const a = await json(["agents", "create", "cli-bot", "--name", "CLI bot"]);
    expect(a).toMatchObject({ agentId: "cli-bot", displayName: "CLI bot" });
    expect((await json(["agents", "ls"])).map((x: { agentId: string }) => x.agentId)).toContain("cli-bot");
    const table = await praxis(["agents", "ls"], asTenant());
    expect(table.stdout).toMatch(/^agentId\s+displayName\s+createdAt$/m);
    expect(table.stdout).toMatch(/^cli-bot\s+CLI bot\s+\d{4}-/m);
    await json(["agents", "create", "cli-gone"]);
    expect(await json(["agents", "rm", "cli-gone"])).toMatchObject({ agentId: "cli-gone", deleted: true });
    expect((await json(["agents", "ls"])).map((x: { agentId: string }) => x.agentId)).not.toContain("cli-gone");
  });

  it("adds experiences, lists library versions, diffs, rolls back, exports and imports", async () => {
    await json(["agents", "create", "lib-bot"]);
    const first = await json(["experiences", "add", "lib-bot", "Wait for Retry-After before retrying a 429", "--tag", "http"]);
    await json(["experiences", "add", "lib-bot", "Validate the JSON schema before calling the tool"]);
    expect(await json(["experiences", "ls", "lib-bot"])).toHaveLength(2);
    const versions = await json(["library", "versions", "lib-bot"]);
    expect(versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const diff = await json(["library", "diff", "lib-bot", "1"]);
    expect(diff.diff).toEqual([expect.objectContaining({ id: first.id, op: "create" })]);

    const rolled = await json(["library", "rollback", "lib-bot", "1"]);
    expect(rolled).toMatchObject({ libraryVersion: 3, unchanged: false });
    const left = await json(["experiences", "ls", "lib-bot"]);
    expect(left.map((e: { id: string }) => e.id)).toEqual([first.id]);

    const exported = await praxis(["library", "export", "lib-bot"], asTenant());
    expect(exported.code).toBe(0);
    const file = path.join(home, "lib.json");
    writeFileSync(file, exported.stdout);
    await json(["agents", "create", "lib-copy"]);
    expect(await json(["library", "import", "lib-copy", file])).toMatchObject({ changed: 1, unchanged: false });
    expect((await json(["experiences", "ls", "lib-copy"]))[0].text).toBe("Wait for Retry-After before retrying a 429");
  });

  it("uploads a JSONL dataset and resumes it: tasks already stored are not stored twice", async () => {
    const tasks = Array.from({ length: 7 }, (_, i) => JSON.stringify({ id: `t${i}`, task: `What is ${i} + ${i}?`, groundTruth: String(2 * i) }));
    const file = path.join(home, "tasks.jsonl");
    writeFileSync(file, `${tasks.slice(0, 4).join("\n")}\n`);
    const first = await json(["datasets", "upload", "arith", file]);
    expect(first).toMatchObject({ created: true, inserted: 4, unchanged: 0 });
    writeFileSync(file, `${tasks.join("\n")}\n`);
    const resumed = await praxis(["datasets", "upload", "arith", file], asTenant());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`Resumed dataset arith (${first.datasetId}): 3 new tasks, 4 already stored`);
    const listed = await json(["datasets", "ls"]);
    expect(listed.filter((d: { name: string }) => d.name === "arith")).toHaveLength(1);
  });

  it("reports usage", async () => {
    const u = await json(["usage", "--group-by", "purpose"]);
    expect(u.groupBy).toBe("purpose");
    expect(u.totals).toMatchObject({ calls: expect.any(Number), tokensIn: expect.any(Number) });
  });

  it("prints a problem as one line and exits 1; with --json the problem is on stdout", async () => {
    const r = await praxis(["agents", "rm", "no-such-agent"], asTenant());
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^praxis: 404 not-found: .+ \(request [\w-]+\)\n$/);
    const j = await praxis(["experiences", "add", "no-such-agent", " ", "--json"], asTenant());
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout).error).toMatchObject({ status: 400, type: "https://praxis.dev/problems/validation-failed" });
    expect(j.stderr).toMatch(/^praxis: 400 validation-failed: .*\[text: .+\]/);
  });

  it("exits 2 on usage errors and 3 when the API cannot be reached", async () => {
    expect((await praxis(["library", "diff", "lib-bot", "two"], asTenant())).code).toBe(2);
    expect((await praxis(["agents", "frobnicate"], asTenant())).code).toBe(2);
    const noKey = await praxis(["agents", "ls"], { XDG_CONFIG_HOME: path.join(home, "empty") });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("No API URL");
    const down = await praxis(["agents", "ls", "--url", "http://127.0.0.1:9", "--key", key]);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/^praxis: Could not reach http:\/\/127\.0\.0\.1:9/);
    expect((await praxis(["--help"])).code).toBe(0);
  });
});

describe("praxis practice and eval against the local Worker (its LLM answers 42)", () => {
  let datasetId = "";
  beforeAll(async () => {
    await json(["agents", "create", "math-bot"]);
    const file = path.join(home, "forty-two.jsonl");
    const tasks = ["6 * 7", "40 + 2", "84 / 2", "50 - 8"].map((q, i) => JSON.stringify({ id: `q${i}`, task: `What is ${q}?`, groundTruth: "42", split: i < 2 ? "train" : "holdout" }));
    writeFileSync(file, tasks.join("\n"));
    datasetId = (await json(["datasets", "upload", "forty-two", file])).datasetId;
  });

  it("practice start --follow streams the run to its end, then prints the learning curve", async () => {
    const args = ["practice", "start", "math-bot", "--dataset", datasetId, "--epochs", "1", "--batch-size", "2", "--group-size", "2", "--verifier", "numeric", "--follow"];
    const r = await praxis(args, asTenant());
    expect(r.code, r.stderr).toBe(0);
    // Without a terminal the progress is one line per step on stderr; the result goes to stdout.
    expect(r.stderr).toMatch(/^epoch 0 step 0: reward 1\.000, library 0, 0 changes$/m);
    expect(r.stdout).toMatch(/^Run run_\w+ \(agent math-bot, dataset ds_\w+\): completed$/m);
    expect(r.stdout).toMatch(/^epoch\s+step\s+train reward\s+library\s+tokens$/m);
    expect(r.stdout).toMatch(/^0\s+0\s+1\.000\s+0\s+\d+$/m);

    const runId = /Run (run_\w+)/.exec(r.stdout)![1]!;
    const shown = await json(["practice", "show", "math-bot", runId]);
    expect(shown.run).toMatchObject({ runId, status: "completed" });
    expect(shown.curve.steps).toEqual([expect.objectContaining({ epoch: 0, step: 0, trainReward: 1 })]);
  });

  // The bars are drawn only on a terminal: util-linux `script` gives the CLI one.
  it.runIf(process.platform === "linux" && existsSync("/usr/bin/script"))("practice start --follow draws live progress bars on a terminal", async () => {
    const cli = [process.execPath, CLI, "practice", "start", "math-bot", "--dataset", datasetId, "--epochs", "1", "--batch-size", "2", "--group-size", "2", "--verifier", "numeric", "--follow"];
    const r = await runProcess("/usr/bin/script", ["-qec", cli.map((a) => `'${a}'`).join(" "), "/dev/null"], { env: { ...process.env, ...asTenant(), XDG_CONFIG_HOME: home } });
    expect(r.code, r.stdout).toBe(0);
    const screen = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    expect(screen).toMatch(/steps  \[[█░]+\] 1\/1 reward 1\.000, library 0/);
    expect(screen).toMatch(/stage  \[[█░]+\] 4\/4 epoch 0 step 0: rollouts/);
    expect(screen).toMatch(/Run run_\w+ \(agent math-bot, dataset ds_\w+\): completed/);
  });

  it("eval waits for the evaluation and prints its accuracy and interval", async () => {
    const r = await praxis(["eval", "math-bot", "--dataset", datasetId, "--verifier", "numeric"], asTenant());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Evaluation ev_\w+: completed — accuracy 1\.000 \(95% interval \[1\.000, 1\.000\]\)$/m);
  });
});
