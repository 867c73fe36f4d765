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
const tenantName = `cli-test-${Date.now().toString(36)}`;
const asOperator = { PRAXIS_URL: url, PRAXIS_API_KEY: adminKey };
const asTenant = () => ({ PRAXIS_URL: url, PRAXIS_API_KEY: key });
const json = async (args: string[], env = asTenant()) => {
  const r = await praxis([...args, "--json"], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(async () => {
  const t = await json(["tenants", "create", tenantName], asOperator);
  expect(t.apiKey).toMatch(/^pxk_/);
  key = t.apiKey;
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("praxis CLI against the local Worker", () => {
  it("refuses a tenant name already taken, naming the tenant, unless --allow-duplicate-name", async () => {
    const again = await praxis(["tenants", "create", tenantName], asOperator);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409/);
    expect(again.stderr).toContain(`A tenant named '${tenantName}' exists`);
    const second = await json(["tenants", "create", tenantName, "--allow-duplicate-name"], asOperator);
    expect(second.name).toBe(tenantName);
    expect(second.apiKey).not.toBe(key);
  });

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
    const tasks = Array.from({ length: 7 }, (_, i) =>
      JSON.stringify({ id: `t${i}`, task: `What is ${i} + ${i}?`, groundTruth: String(2 * i) }),
    );
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

  it("refuses a numeric option out of its range by saying what it takes (exit 2), before any request", async () => {
    // The URL answers nothing: a request would exit 3, not 2.
    const offline = { PRAXIS_URL: "http://127.0.0.1:9", PRAXIS_API_KEY: key };
    const cases: [string[], string][] = [
      [["practice", "start", "a", "--dataset", "d", "--batch-size", "-3"], "--batch-size must be a positive whole number, not '-3'."],
      [["practice", "start", "a", "--dataset", "d", "--epochs", "0"], "--epochs must be a positive whole number, not '0'."],
      [["practice", "start", "a", "--dataset", "d", "--group-size", "1"], "--group-size must be a whole number from 2 to 16, not '1'."],
      [["practice", "start", "a", "--dataset", "d", "--seed", "1.5"], "--seed must be a whole number from 0 to 2147483647, not '1.5'."],
      [["retrieve", "a", "q", "--lambda", "2"], "--lambda must be a number from 0 to 1, not '2'."],
      [["retrieve", "a", "q", "--k", "x"], "--k must be a whole number from 1 to 100, not 'x'."],
      [["datasets", "show", "d", "--tasks", "-1"], "--tasks must be a whole number, 0 or more, not '-1'."],
      [["library", "diff", "a", "two"], "<n> must be a whole number, 0 or more, not 'two'."],
    ];
    for (const [args, message] of cases) {
      const r = await praxis(args, offline);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });

  it("refuses missing and blank ids with exit 2 and the command's usage, before any request", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["practice", "show", "agent", ""],
        /^praxis: <runId> must not be empty\.\nUsage: praxis practice show \[options\] <agentId> <runId>$/m,
      ],
      [["practice", "show", "agent"], /missing required argument 'runId'/],
      [["episode", "show", " ", "ep_1"], /<agentId> must not be empty/],
      [
        ["practice", "start", "agent", "--dataset", ""],
        /--dataset must not be empty\.\nUsage: praxis practice start \[options\] <agentId>/,
      ],
      [["episode", "end", "agent", "ep_1", "--outcome", "success", "--cite", "G0", ""], /--cite must not be empty/],
      [["datasets", "show", ""], /<dataset> must not be empty/],
    ];
    // An unreachable API: a request would exit 3, so exit 2 shows none was sent.
    const offline = { PRAXIS_URL: "http://127.0.0.1:9", PRAXIS_API_KEY: key };
    for (const [args, message] of cases) {
      const r = await praxis(args, offline);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe("praxis core loop: retrieve, prompt, episodes, rewards", () => {
  let lessonId = "";
  let otherId = "";
  const qOf = async (id: string) => (await json(["experiences", "ls", "loop-bot"])).find((e: { id: string }) => e.id === id).q;
  beforeAll(async () => {
    await json(["agents", "create", "loop-bot"]);
    lessonId = (await json(["experiences", "add", "loop-bot", "Check the invoice currency before converting amounts"])).id;
    otherId = (await json(["experiences", "add", "loop-bot", "Prefer ISO dates in weekly reports"])).id;
  });

  it("runs an episode end to end: start, prompt, attempt, end; the cited lesson's Q rises, the uncited one's stays", async () => {
    const started = await praxis(
      ["episode", "start", "loop-bot", "Convert the invoice amounts to EUR", "--meta", "ticket=42", "source=cli"],
      asTenant(),
    );
    expect(started.code, started.stderr).toBe(0);
    const episodeId = started.stdout.trim();
    expect(episodeId).toMatch(/^\S+$/);

    const prompt = await praxis(["prompt", "loop-bot", "--episode", episodeId], asTenant());
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(prompt.stdout).toMatch(/^\[G0\]\. Check the invoice currency before converting amounts$/m);
    expect(prompt.stdout).toMatch(/^\[G1\]\. Prefer ISO dates in weekly reports$/m);
    expect(prompt.stderr).toMatch(/^retrieval \S+: 2 lessons, 0 cases, ~\d+ tokens/m);

    const attempt = await json([
      "episode",
      "attempt",
      "loop-bot",
      episodeId,
      "Converted with a fixed rate",
      "--error",
      "TypeError: rate is undefined",
      "--tool",
      "fx",
    ]);
    expect(attempt).toMatchObject({ n: 1, ok: false, toolCalls: ["fx"] });
    const ok = await praxis(["episode", "attempt", "loop-bot", episodeId, "Looked the rate up first"], asTenant());
    expect(ok.stdout.trim()).toBe("Attempt 2 ok");

    const ended = await json([
      "episode",
      "end",
      "loop-bot",
      episodeId,
      "--outcome",
      "success",
      "--answer",
      "Converted after checking the currency [G0]",
      "--cite",
      "G0",
    ]);
    expect(ended).toMatchObject({
      id: episodeId,
      status: "ended",
      outcome: "success",
      answer: "Converted after checking the currency [G0]",
    });
    const rewarded = ended.result.rewarded.find((m: { id: string }) => m.id === lessonId);
    expect(rewarded.q).toBeGreaterThan(0.5);
    // Shown in the same prompt but not cited: its Q does not move.
    expect(await qOf(lessonId)).toBe(rewarded.q);
    expect(await qOf(otherId)).toBe(0.5);

    const shown = await praxis(["episode", "show", "loop-bot", episodeId], asTenant());
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^Episode ${episodeId}: ended, success`, "m"));
    expect(shown.stdout).toMatch(/^1\s+failed\s+Converted with a fixed rate/m);
    expect(shown.stdout).toMatch(/^2\s+ok\s+Looked the rate up first/m);
    const listed = await json(["episode", "ls", "loop-bot", "--status", "ended"]);
    expect(listed.map((e: { id: string }) => e.id)).toContain(episodeId);
  });

  it("retrieve ranks the lesson and reward moves its Q by the retrieval id", async () => {
    const r = await json(["retrieve", "loop-bot", "invoice currency", "--k", "3", "--kind", "experience"]);
    expect(r.items.map((i: { id: string }) => i.id)).toContain(lessonId);
    const human = await praxis(["retrieve", "loop-bot", "invoice currency"], asTenant());
    expect(human.stdout).toMatch(/^label\s+kind\s+id\s+score\s+relevance\s+q\s+match\s+text$/m);
    expect(human.stdout).toContain(`--retrieval ${/retrieval (\S+):/.exec(human.stdout)![1]}`);

    const before = await qOf(lessonId);
    const rewarded = await json(["reward", "loop-bot", "--retrieval", r.retrievalId, "--outcome", "failure"]);
    expect(rewarded.reward).toBe(-1);
    const updated = rewarded.updated.find((u: { id: string }) => u.id === lessonId);
    expect(updated).toMatchObject({ id: lessonId, qBefore: before });
    expect(updated.q).toBeLessThan(before);
    expect(await qOf(lessonId)).toBeCloseTo(updated.q, 9);
  });

  it("rejects a reward without a target or an outcome (exit 2) and an unknown retrieval (exit 1)", async () => {
    const noTarget = await praxis(["reward", "loop-bot", "--outcome", "success"], asTenant());
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain("--retrieval, --episode or --memory");
    expect((await praxis(["reward", "loop-bot", "--memory", lessonId], asTenant())).code).toBe(2);
    expect((await praxis(["reward", "loop-bot", "--retrieval", "ret_missing", "--outcome", "success"], asTenant())).code).toBe(1);
    expect((await praxis(["episode", "end", "loop-bot", "ep_x"], asTenant())).code).toBe(2);
  });
});

describe("praxis libraries and subscribe", () => {
  it("creates a shared library, shares a lesson into it, subscribes two agents and shows each one's own Q", async () => {
    const libraryId = (
      await praxis(["libraries", "create", "payments", "--description", "what the payment agents learned"], asTenant())
    ).stdout.trim();
    expect(libraryId).toMatch(/^lib_\w+$/);
    expect((await json(["libraries", "ls"])).map((l: { libraryId: string }) => l.libraryId)).toContain(libraryId);
    const added = await json(["libraries", "add", libraryId, "Retry HTTP 429 with exponential backoff"]);
    expect(added).toMatchObject({ status: "active", libraryVersion: 1 });
    await json(["agents", "create", "share-a"]);
    await json(["agents", "create", "share-b"]);
    const own = await json(["experiences", "add", "share-a", "Validate the IBAN checksum before a transfer"]);
    const shared = await json(["libraries", "share", "share-a", own.id, libraryId]);
    expect(shared).toMatchObject({ libraryId, libraryVersion: 2, provenance: { agentId: "share-a", experienceId: own.id } });

    expect(await json(["subscribe", "share-a", libraryId])).toMatchObject({ libraryId, weight: 1 });
    const weighted = await praxis(["subscribe", "share-b", libraryId, "--weight", "0.5"], asTenant());
    expect(weighted.stdout.trim()).toBe(`share-b draws on ${libraryId} (weight 0.5)`);
    expect((await json(["subscriptions", "share-b"])).map((s: { libraryId: string }) => s.libraryId)).toEqual([libraryId]);
    const r = await json(["retrieve", "share-a", "retry HTTP 429", "--kind", "experience"]);
    const item = r.items.find((i: { id: string }) => i.id === added.id);
    expect(item).toMatchObject({ libraryId });
    await json(["reward", "share-a", "--retrieval", r.retrievalId, "--outcome", "success"]);

    const show = await praxis(["libraries", "show", libraryId], asTenant());
    expect(show.stdout).toMatch(new RegExp(`^${libraryId}\\s+payments\\s+version 2, 2 subscriber\\(s\\)$`, "m"));
    expect(show.stdout).toContain("Retry HTTP 429 with exponential backoff");
    const subscribers = await json(["libraries", "subscribers", libraryId]);
    const q = Object.fromEntries(
      subscribers.map((s: { agentId: string; lessons: { id: string; q: number }[] }) => [
        s.agentId,
        s.lessons.find((l) => l.id === added.id)?.q,
      ]),
    );
    expect(q["share-a"]).toBeGreaterThan(0.5);
    expect(q["share-b"]).toBeUndefined();
    const table = await praxis(["libraries", "subscribers", libraryId], asTenant());
    expect(table.stdout).toMatch(new RegExp(`^share-a\\s+1\\s+latest\\s+${added.id}\\s+0\\.\\d{3}\\s+\\d+\\s+1\\s+0$`, "m"));
    const pinned = await praxis(["subscribe", "share-b", libraryId, "--pin", "1"], asTenant());
    expect(pinned.stdout.trim()).toBe(`share-b draws on ${libraryId} as of version 1 (weight 1)`);
    expect(await json(["subscriptions", "share-b"])).toMatchObject([{ libraryId, pinVersion: 1 }]);

    expect(await json(["unsubscribe", "share-b", libraryId])).toMatchObject({ unsubscribed: true });
    expect(await json(["subscriptions", "share-b"])).toEqual([]);
    expect(await json(["libraries", "rm", libraryId])).toMatchObject({ deleted: libraryId });
    expect((await praxis(["libraries", "show", libraryId], asTenant())).code).toBe(1);
  });

  it("refuses a weight that is not a number before any request (exit 2)", async () => {
    const r = await praxis(["subscribe", "share-a", "lib_x", "--weight", "heavy"], {
      PRAXIS_URL: "http://127.0.0.1:9",
      PRAXIS_API_KEY: key,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--weight must be a number");
  });
});

describe("praxis datasets: split sizes, show, rm, atomic uploads", () => {
  const write = (name: string, lines: string[]) => {
    const file = path.join(home, name);
    writeFileSync(file, `${lines.join("\n")}\n`);
    return file;
  };
  const task = (i: number, split?: "train" | "holdout") =>
    JSON.stringify({ id: `s${i}`, task: `Task ${i}`, groundTruth: String(i), ...(split ? { split } : {}) });
  const names = async () => (await json(["datasets", "ls"])).map((d: { name: string }) => d.name);

  it("lists split sizes, shows a dataset by name with its first tasks, and removes it", async () => {
    const file = write("splits.jsonl", [0, 1, 2].map((i) => task(i, "train")).concat([3, 4].map((i) => task(i, "holdout"))));
    const { datasetId } = await json(["datasets", "upload", "splits", file]);
    const listed = (await json(["datasets", "ls"])).find((d: { name: string }) => d.name === "splits");
    expect(listed).toMatchObject({ datasetId, counts: { train: 3, holdout: 2, total: 5, withGroundTruth: 5 } });
    const table = await praxis(["datasets", "ls"], asTenant());
    expect(table.stdout).toMatch(/^datasetId\s+name\s+train\s+holdout\s+total\s+holdoutFraction\s+createdAt$/m);
    expect(table.stdout).toMatch(new RegExp(`^${datasetId}\\s+splits\\s+3\\s+2\\s+5\\s+0\\.2\\s`, "m"));

    const shown = await json(["datasets", "show", "splits", "--tasks", "2"]);
    expect(shown).toMatchObject({ datasetId, counts: { train: 3, holdout: 2 } });
    expect(shown.tasks.map((t: { id: string }) => t.id)).toEqual(["s0", "s1"]);
    const human = await praxis(["datasets", "show", datasetId], asTenant());
    expect(human.stdout).toContain("tasks: 5 (train 3, holdout 2), 5 with ground truth");
    // The split as the tasks named it (2 of 5 held out), not the 0.2 that decides only tasks naming none.
    expect(human.stdout).toContain("split: 3 train, 2 holdout (40% held out); a task that names no split is held out with probability 0.2");

    expect(await json(["datasets", "rm", "splits"])).toMatchObject({ datasetId, deleted: true });
    expect(await names()).not.toContain("splits");
    expect((await praxis(["datasets", "show", datasetId], asTenant())).code).toBe(1);
  });

  it("a refused upload creates no dataset: bad JSON (exit 2) and a task the API rejects (exit 1)", async () => {
    const badJson = await praxis(["datasets", "upload", "broken", write("broken.jsonl", [task(0), "{not json"])], asTenant());
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("line 2 is not JSON");
    const rejected = await praxis(
      ["datasets", "upload", "broken", write("rejected.jsonl", [task(0), JSON.stringify({ task: 5 })])],
      asTenant(),
    );
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/^praxis: 400 validation-failed/m);
    expect(await names()).not.toContain("broken");
  });

  it("a refused later request of a large new upload removes the dataset it created", async () => {
    const lines = Array.from({ length: 620 }, (_, i) => task(i));
    lines[600] = JSON.stringify({ task: "no id pattern", id: "bad id with spaces" });
    const r = await praxis(["datasets", "upload", "large", write("large.jsonl", lines)], asTenant());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("removed the dataset large");
    expect(await names()).not.toContain("large");
  });

  it("a refused upload into an existing dataset adds none of its tasks", async () => {
    const { datasetId } = await json(["datasets", "upload", "kept", write("kept.jsonl", [task(0), task(1)])]);
    const r = await praxis(
      ["datasets", "upload", "kept", write("kept-more.jsonl", [task(2), task(3), JSON.stringify({ task: "x", split: "dev" })])],
      asTenant(),
    );
    expect(r.code).toBe(1);
    expect((await json(["datasets", "show", datasetId])).counts.total).toBe(2);
  });
});

describe("praxis practice and eval against the local Worker (its LLM answers 42)", () => {
  let datasetId = "";
  beforeAll(async () => {
    await json(["agents", "create", "math-bot"]);
    const file = path.join(home, "forty-two.jsonl");
    const tasks = ["6 * 7", "40 + 2", "84 / 2", "50 - 8"].map((q, i) =>
      JSON.stringify({ id: `q${i}`, task: `What is ${q}?`, groundTruth: "42", split: i < 2 ? "train" : "holdout" }),
    );
    writeFileSync(file, tasks.join("\n"));
    datasetId = (await json(["datasets", "upload", "forty-two", file])).datasetId;
  });

  it("practice start --follow (the dataset by name) streams the run to its end, then prints the learning curve", async () => {
    const args = [
      "practice",
      "start",
      "math-bot",
      "--dataset",
      "forty-two",
      "--epochs",
      "1",
      "--batch-size",
      "2",
      "--group-size",
      "2",
      "--verifier",
      "numeric",
      "--follow",
    ];
    const r = await praxis(args, asTenant());
    expect(r.code, r.stderr).toBe(0);
    // Without a terminal the progress is one line per step on stderr; the result goes to stdout.
    expect(r.stderr).toMatch(/^epoch 0 step 0: reward 1\.000, library 0, 0 changes$/m);
    expect(r.stdout).toMatch(/^Run run_\w+ \(agent math-bot, dataset ds_\w+\): completed$/m);
    expect(r.stdout).toMatch(/^epoch\s+step\s+train reward\s+library\s+tokens$/m);
    expect(r.stdout).toMatch(/^0\s+0\s+1\.000\s+0\s+\d+$/m);

    const runId = /Run (run_\w+)/.exec(r.stdout)![1]!;
    const shown = await json(["practice", "show", "math-bot", runId]);
    expect(shown.run).toMatchObject({ runId, status: "completed", datasetId });
    expect(shown.curve.steps).toEqual([expect.objectContaining({ epoch: 0, step: 0, trainReward: 1 })]);

    const runs = await json(["practice", "ls", "math-bot"]);
    expect(runs[0]).toMatchObject({ runId, status: "completed", datasetId });
    const listed = await praxis(["practice", "ls", "math-bot"], asTenant());
    expect(listed.stdout).toMatch(/^runId\s+status\s+datasetId\s+promotion\s+createdAt\s+error$/m);
    expect(listed.stdout).toMatch(new RegExp(`^${runId}\\s+completed\\s+${datasetId}\\s+(v\\d+|not promoted)\\s+\\d{4}-`, "m"));
  });

  // The bars are drawn only on a terminal: util-linux `script` gives the CLI one.
  it.runIf(process.platform === "linux" && existsSync("/usr/bin/script"))(
    "practice start --follow draws live progress bars on a terminal",
    async () => {
      const cli = [
        process.execPath,
        CLI,
        "practice",
        "start",
        "math-bot",
        "--dataset",
        datasetId,
        "--epochs",
        "1",
        "--batch-size",
        "2",
        "--group-size",
        "2",
        "--verifier",
        "numeric",
        "--follow",
      ];
      const r = await runProcess("/usr/bin/script", ["-qec", cli.map((a) => `'${a}'`).join(" "), "/dev/null"], {
        env: { ...process.env, ...asTenant(), XDG_CONFIG_HOME: home },
      });
      expect(r.code, r.stdout).toBe(0);
      const screen = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
      expect(screen).toMatch(/steps {2}\[[█░]+\] 1\/1 reward 1\.000, library 0/);
      expect(screen).toMatch(/stage {2}\[[█░]+\] 4\/4 epoch 0 step 0: rollouts/);
      expect(screen).toMatch(/Run run_\w+ \(agent math-bot, dataset ds_\w+\): completed/);
    },
  );

  it("eval waits for the evaluation and prints its accuracy and interval", async () => {
    const r = await praxis(["eval", "math-bot", "--dataset", "forty-two", "--verifier", "numeric"], asTenant());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Evaluation ev_\w+: completed — accuracy 1\.000 \(95% interval \[1\.000, 1\.000\]\)$/m);
  });
});
