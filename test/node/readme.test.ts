import http from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Praxis, unwrap } from "../../client/src/index";
import { runProcess } from "./run-process";
import { scriptedOpenAi } from "./scripted-openai";

const root = path.resolve(import.meta.dirname, "../..");
const { url, adminKey } = inject("localWorker");
const SKIP = /^<!-- readme-runner: skip \((.+)\) -->$/;

/**
 * The pages whose blocks run, in the order the README's contents list them: each page's examples
 * continue the README's first session (its KEY, H and agents) in the same shell.
 */
const PAGES = [
  "README.md",
  "docs/api.md",
  "docs/concepts.md",
  "docs/learning.md",
  "docs/practice.md",
  "docs/deployment.md",
  "docs/operations.md",
  "docs/architecture.md",
  "docs/security.md",
];

interface Block {
  page: string;
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** Why the runner leaves it out, from a `<!-- readme-runner: skip (why) -->` line above it. */
  skip: string | null;
}

const read = (page: string) => readFileSync(path.join(root, page), "utf8");

function pageBlocks(page: string): Block[] {
  const lines = read(page).split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    let above = i - 1;
    while (above >= 0 && !lines[above]!.trim()) above--;
    blocks.push({
      page,
      lang: open[1]!,
      code: lines.slice(i + 1, end).join("\n"),
      line: i + 1,
      skip: SKIP.exec(lines[above] ?? "")?.[1] ?? null,
    });
    i = end;
  }
  return blocks;
}

const allBlocks = () => PAGES.flatMap(pageBlocks);
const runnable = () => allBlocks().filter((b) => (b.lang === "sh" || b.lang === "js") && !b.skip);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** The anchors a page's headings make (outside code blocks). */
function anchors(page: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of read(page).split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (heading) out.add(slug(heading[1]!));
  }
  return out;
}

/** Relative links of a page's prose (code blocks and inline code left out), as [target file, anchor]. */
function links(page: string): { target: string; anchor: string | null; text: string }[] {
  const prose = read(page)
    .replace(/^```[\s\S]*?^```$/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href))
    .map((href) => {
      const [file, anchor] = href.split("#") as [string, string | undefined];
      return { target: file ? path.join(path.dirname(page), file) : page, anchor: anchor ?? null, text: href };
    });
}

/** The tenant's Q of each lesson, by text. */
async function qByText(apiKey: string, agentId: string) {
  const list = await unwrap(
    new Praxis({ baseUrl: url, apiKey }).api.GET("/v1/agents/{agentId}/experiences", { params: { path: { agentId } } }),
  );
  return Object.fromEntries(list.items.map((e) => [e.text, e.q]));
}

/** A directory that looks like the repository to the README's commands, with a .dev.vars of its own. */
function workspace() {
  const dir = mkdtempSync(path.join(tmpdir(), "praxis-readme-"));
  for (const entry of ["client", "cli", "examples", "node_modules", "package.json"])
    symlinkSync(path.join(root, entry), path.join(dir, entry));
  writeFileSync(path.join(dir, ".dev.vars"), `PRAXIS_ADMIN_KEY="${adminKey}"\n`);
  return dir;
}

describe("the README and docs/", () => {
  it("runs every sh and js block, or says why not", () => {
    const blocks = allBlocks();
    expect(blocks.filter((b) => b.page === "README.md" && (b.lang === "sh" || b.lang === "js")).length).toBeGreaterThan(5);
    for (const b of blocks) {
      if (b.skip) expect(b.skip.length, `${b.page} line ${b.line}`).toBeGreaterThan(10);
    }
    // The agent example is printed as the file it ships as, so the two cannot drift apart.
    const js = runnable().filter((b) => b.lang === "js");
    expect(js.map((b) => `${b.code}\n`)).toEqual([readFileSync(path.join(root, "examples/agent.mjs"), "utf8")]);
  });

  it("runs every page of docs/, fits the README on a few screens, and names no issue numbers", () => {
    const docs = readdirSync(path.join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    expect(PAGES.filter((p) => p.startsWith("docs/")).sort()).toEqual(docs.sort());
    const readme = read("README.md").split("\n");
    expect(readme.length).toBeLessThanOrEqual(400);
    // The first screen: the two commands, ten lines of what an agent calls, and the contents.
    const firstScreen = readme.slice(0, 60).join("\n");
    for (const heading of ["## Two commands", "## What your agent calls", "## Contents"]) expect(firstScreen).toContain(heading);
    const calls = pageBlocks("README.md").find((b) => b.lang === "text")!;
    expect(calls.code.split("\n").length).toBeLessThanOrEqual(10);
    expect(calls.code).toMatch(/\/end .*\[G\d+\]/);
    for (const page of PAGES) expect(read(page), page).not.toMatch(/\bissues? \d+/i);
  });

  it("links only to files that exist and headings they have", () => {
    const broken: string[] = [];
    // The README's contents alone link to every docs page and to sections of them.
    expect(links("README.md").filter((l) => l.target.startsWith("docs/") && l.anchor).length).toBeGreaterThan(5);
    for (const page of PAGES) {
      for (const link of links(page)) {
        if (!existsSync(path.join(root, link.target))) broken.push(`${page}: ${link.text} (no file)`);
        else if (link.anchor !== null && link.target.endsWith(".md") && !anchors(link.target).has(link.anchor))
          broken.push(`${page}: ${link.text} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  let dir = "";
  let llm: Awaited<ReturnType<typeof scriptedOpenAi>>;
  beforeAll(async () => {
    dir = workspace();
    llm = await scriptedOpenAi([
      "Tell them to call the API again right away.",
      "Per [G0]: wait for the Retry-After header, then retry with exponential backoff.",
    ]);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await llm?.close();
  });

  it("walks through as written: every shell block, page after page, in order, in one shell, against the Worker", {
    timeout: 400_000,
  }, async () => {
    const port = new URL(url).host;
    // `npx praxis` runs this package's own bin, wherever package.json points it.
    const bin = path.join(
      root,
      (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { bin: { praxis: string } }).bin.praxis,
    );
    // Commands as a user types them from the repository root. curl fails on an error status, so an
    // example that answers a problem fails the run.
    const prelude = [
      "set -eo pipefail",
      'curl() { command curl --fail-with-body "$@"; }',
      `npx() { if [ "$1" = praxis ]; then shift; node ${JSON.stringify(bin)} "$@"; else command npx "$@"; fi; }`,
    ];
    const body = runnable()
      .filter((b) => b.lang === "sh")
      .map((b) => `echo "### ${b.page} line ${b.line}" >&2\n${b.code.replaceAll("localhost:8787", port)}`);
    const script = [...prelude, ...body, 'printf "\\nREADME_KEY=%s\\n" "$KEY"'].join("\n");
    const env = {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      PRAXIS_URL: url,
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: "sk-test-not-real",
      NO_COLOR: "1",
    };
    const out = await runProcess("bash", ["-c", script], { cwd: dir, env });
    expect(out.code, `${out.stderr.slice(-4000)}\n${out.stdout.slice(-2000)}`).toBe(0);
    const key = /README_KEY=(\S+)/.exec(out.stdout)?.[1];
    expect(key).toMatch(/^pxk_/);
    const api = new Praxis({ baseUrl: url, apiKey: key! }).api;

    // The reward reached the retrieval the README captured; the rollback rolled something back.
    const versions = await unwrap(api.GET("/v1/agents/{agentId}/library/versions", { params: { path: { agentId: "support-bot" } } }));
    expect(versions.items.length).toBeGreaterThanOrEqual(3);
    expect(out.stdout).not.toContain('"unchanged":true');
    // The first session's episode cited [G0]; the agent example ran twice (a failure, then a success
    // that quoted [G0], whose Q rose); the signed session-end webhook made one episode, once.
    const episodes = (
      await unwrap(api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId: "support-bot" } } }))
    ).items.reverse();
    expect(episodes.map((e) => e.outcome)).toEqual(["success", "failure", "success", "success"]);
    const [loop, , , session] = episodes;
    expect(loop!.attempts.map((a) => a.ok)).toEqual([false]);
    expect(loop!.result!.rewarded.map((r) => r.q)).toEqual([expect.any(Number)]);
    expect(session!.task).toBe("A customer's refund call to the payments API fails with 429");
    expect(session!.attempts.map((a) => [a.ok, a.error])).toEqual([
      [false, expect.stringContaining("429 Too Many Requests")],
      [true, null],
    ]);
    expect(out.stdout).toContain("verified");
    const q = await qByText(key!, "support-bot");
    expect(q["When an API answers 429, wait for Retry-After, then retry with exponential backoff"]).toBeGreaterThan(0.55);
    // The CLI's practice run and evaluation, and the curl practice run, all completed.
    const runs = await unwrap(api.GET("/v1/agents/{agentId}/practice-runs", { params: { path: { agentId: "support-bot" } } }));
    expect(runs.items.map((r) => r.status)).toEqual(["completed"]);
  });
});

describe("the agent example (examples/agent.mjs)", () => {
  it("learns: a failed run moves nothing, a successful one raises the Q of the lesson its answer quotes and nothing else", {
    timeout: 120_000,
  }, async () => {
    const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
    const { apiKey } = await unwrap(operator.api.POST("/v1/tenants", { body: { name: `example-learns-${Date.now().toString(36)}` } }));
    const agent = new Praxis({ baseUrl: url, apiKey }).agent("support-bot");
    await agent.ensure();
    const retry = "When an API answers 429, wait for Retry-After, then retry with exponential backoff";
    const refunds = "Ask for the order number before looking up a refund";
    await agent.addExperience(retry);
    await agent.addExperience(refunds);
    const bad = "Tell them to call the API again right away.";
    const good = "Per [G0]: wait for the Retry-After header, then retry with exponential backoff.";
    const llm = await scriptedOpenAi([bad, good]);
    const env = {
      ...process.env,
      PRAXIS_URL: url,
      PRAXIS_API_KEY: apiKey,
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: "sk-test-not-real",
    };
    const run = () => runProcess(process.execPath, ["examples/agent.mjs"], { cwd: root, env });
    try {
      const first = await run();
      // The answer is printed, and the exit status says the episode failed.
      expect(first.code, first.stderr).toBe(1);
      expect(first.stdout).toBe(`${bad}\n`);
      expect(await qByText(apiKey, "support-bot")).toEqual({ [retry]: 0.5, [refunds]: 0.5 });

      // The failed episode's case is served once the safety review (the queue, seconds) admits it.
      await admitted(apiKey, "support-bot");
      const second = await run();
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toBe(`${good}\n`);
      // The second prompt showed the first attempt's answer as a failed past case.
      const system = llm.requests[1]!.messages[0]!.content;
      expect(system).toContain(`[G0]. ${retry}`);
      expect(system).toMatch(/\(failed, reward -1\)\. Answer: Tell them to call the API again right away\./);
    } finally {
      await llm.close();
    }
    const q = await qByText(apiKey, "support-bot");
    expect(q[retry]).toBeCloseTo(0.55, 10);
    expect(q[refunds]).toBe(0.5);

    const episodes = (
      await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId: agent.id } } }))
    ).items.reverse();
    expect(episodes.map((e) => [e.outcome, e.answer])).toEqual([
      ["failure", bad],
      ["success", good],
    ]);
    expect(episodes[0]!.result!.rewarded).toEqual([]);
    expect(episodes[1]!.result!.rewarded.map((r) => r.q)).toEqual([0.55]);
    // The failed case the second run was shown was not cited, so it did not move either.
    const cases = await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/cases", { params: { path: { agentId: agent.id } } }));
    const failedCase = cases.items.find((c) => c.answer === bad)!;
    expect(failedCase.q).toBe(0.5);
  });
});

describe("the agent example when the model call fails", () => {
  it("exits non-zero with the model's error, and the episode ends abandoned: no case, no Q change", { timeout: 60_000 }, async () => {
    const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
    const { apiKey } = await unwrap(operator.api.POST("/v1/tenants", { body: { name: `example-abandons-${Date.now().toString(36)}` } }));
    const agent = new Praxis({ baseUrl: url, apiKey }).agent("support-bot");
    await agent.ensure();
    const retry = "When an API answers 429, wait for Retry-After, then retry with exponential backoff";
    await agent.addExperience(retry);
    // A model name the provider does not know answers 404.
    const provider = http.createServer((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: { message: "The model `gpt-4o-mini` does not exist", type: "invalid_request_error", code: "model_not_found" },
        }),
      );
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    const env = { ...process.env, PRAXIS_URL: url, PRAXIS_API_KEY: apiKey, OPENAI_BASE_URL: base, OPENAI_API_KEY: "sk-test-not-real" };
    const out = await runProcess(process.execPath, ["examples/agent.mjs"], { cwd: root, env }).finally(() => provider.close());
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain("404 The model `gpt-4o-mini` does not exist");
    expect(out.stdout).toBe("");
    const api = agent.praxis.api;
    const episodes = await unwrap(api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId: agent.id } } }));
    expect(episodes.items).toEqual([
      expect.objectContaining({
        status: "ended",
        outcome: "abandoned",
        attempts: [],
        result: expect.objectContaining({ caseId: null, rewarded: [] }),
      }),
    ]);
    expect((await unwrap(api.GET("/v1/agents/{agentId}/cases", { params: { path: { agentId: agent.id } } }))).items).toEqual([]);
    expect(await qByText(apiKey, "support-bot")).toEqual({ [retry]: 0.5 });
  });
});

/** Waits until nothing of the agent's waits for the safety review (the queued review admitted it). */
async function admitted(apiKey: string, agentId: string) {
  const api = new Praxis({ baseUrl: url, apiKey }).api;
  for (let i = 0; i < 120; i++) {
    const held = await unwrap(api.GET("/v1/agents/{agentId}/quarantine", { params: { path: { agentId }, query: { status: "pending" } } }));
    if (!held.items.length) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`entries of ${agentId} still wait for the safety review`);
}
