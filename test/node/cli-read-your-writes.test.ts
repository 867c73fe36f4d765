import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runProcess, type ProcessRun } from "./run-process";

const CLI = path.resolve(import.meta.dirname, "../../cli/praxis.mjs");
const { url, adminKey } = inject("localWorker");
const home = mkdtempSync(path.join(os.tmpdir(), "praxis-cli-ryw-"));
const configFile = path.join(home, "praxis", "config.json");

function praxis(args: string[], env: Record<string, string> = {}): Promise<ProcessRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PRAXIS_")));
  return runProcess(process.execPath, [CLI, ...args], { env: { ...base, XDG_CONFIG_HOME: home, NO_COLOR: "1", ...env } });
}

let key = "";
const json = async (args: string[], env: Record<string, string> = {}) => {
  const r = await praxis([...args, "--json"], { PRAXIS_URL: url, PRAXIS_API_KEY: key, ...env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
/** The versions the config file keeps for this URL and key, by agent. */
const saved = (): Record<string, number> => {
  const all = (JSON.parse(readFileSync(configFile, "utf8")) as { libraryVersions?: Record<string, Record<string, number>> })
    .libraryVersions;
  const scope = Object.keys(all ?? {}).find((s) => s.startsWith(`${url} `));
  return scope ? all![scope]! : {};
};

beforeAll(async () => {
  key = (await json(["tenants", "create", "cli-ryw"], { PRAXIS_API_KEY: adminKey })).apiKey;
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("the CLI reads its own writes across invocations", () => {
  it("experiences add, then retrieve and prompt in later processes, see the lesson; the version is kept per agent in the config file", async () => {
    await json(["agents", "create", "ryw-cli"]);
    for (let i = 0; i < 3; i++) {
      const added = await json(["experiences", "add", "ryw-cli", `For a topic ${i} ticket, quote ticket code CLI${i} in the reply`]);
      expect(saved()["ryw-cli"]).toBe(added.libraryVersion);
      const found = await json(["retrieve", "ryw-cli", `a topic ${i} ticket`, "--k", "20"]);
      expect(found.libraryVersion).toBeGreaterThanOrEqual(added.libraryVersion);
      expect(found.items.map((x: { id: string }) => x.id)).toContain(added.id);
      const block = await json(["prompt", "ryw-cli", `a topic ${i} ticket`]);
      expect(block.prompt).toContain(`CLI${i} `);
    }
    // The key itself is kept only where `praxis login` puts it: the versions are filed under a digest of it.
    expect(readFileSync(configFile, "utf8")).not.toContain(key);
  });

  it("a later read asks for the remembered version: one the library never reaches is refused once, then forgotten", async () => {
    await json(["agents", "create", "ryw-ahead"]);
    const added = await json(["experiences", "add", "ryw-ahead", "Quote the order number in every refund reply"]);
    const config = JSON.parse(readFileSync(configFile, "utf8"));
    const scope = Object.keys(config.libraryVersions).find((s) => s.startsWith(`${url} `))!;
    config.libraryVersions[scope]["ryw-ahead"] = added.libraryVersion + 1000;
    writeFileSync(configFile, JSON.stringify(config));

    const refused = await praxis(["retrieve", "ryw-ahead", "refund"], { PRAXIS_URL: url, PRAXIS_API_KEY: key });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("version-not-reached");
    expect(saved()["ryw-ahead"]).toBeUndefined();
    expect((await json(["retrieve", "ryw-ahead", "refund"])).items.map((x: { id: string }) => x.id)).toContain(added.id);
  });

  it("PRAXIS_READ_YOUR_WRITES=0 neither keeps nor sends versions", async () => {
    await json(["agents", "create", "ryw-off"]);
    await json(["experiences", "add", "ryw-off", "Never promise a refund date"], { PRAXIS_READ_YOUR_WRITES: "0" });
    expect(saved()["ryw-off"]).toBeUndefined();
  });
});
