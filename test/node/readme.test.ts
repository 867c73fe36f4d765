import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, inject, it } from "vitest";
import { Praxis, unwrap } from "../../client/src/index";
import { runProcess } from "./run-process";

const root = path.resolve(import.meta.dirname, "../..");

/** The README's TypeScript client example, as it is printed. */
function readmeExample() {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## TypeScript client"));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error("README has no ```js block under ## TypeScript client");
  return code;
}

it("the README's client example runs as written: one episode around an OpenAI chat call", async () => {
  const { url, adminKey } = inject("localWorker");
  const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
  const { apiKey } = await unwrap(operator.api.POST("/v1/tenants", { body: { name: "readme-example" } }));
  // As `agent.mjs` in the repository root, where the README says to put it.
  const file = path.join(root, `.readme-agent-${randomBytes(4).toString("hex")}.mjs`);
  writeFileSync(file, readmeExample());
  try {
    const env = { ...process.env, PRAXIS_URL: url, PRAXIS_API_KEY: apiKey, OPENAI_BASE_URL: inject("llmBaseUrl"), OPENAI_API_KEY: "sk-test-not-real" };
    const out = await runProcess(process.execPath, [file], { cwd: root, env });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("42\n");
  } finally {
    rmSync(file, { force: true });
  }
  const episodes = await unwrap(new Praxis({ baseUrl: url, apiKey }).api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId: "support-bot" } } }));
  expect(episodes.items).toEqual([expect.objectContaining({ status: "ended", outcome: "success" })]);
});
