import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { configuredDimensions } from "../../src/adapters/embedder-dimensions";
import { type AccountState, simulatedAccount, type Wrangler } from "../../scripts/provision/account";
import { type Deployment, provision, readDeployment } from "../../scripts/provision/plan";
import { setInTable } from "../../scripts/provision/toml";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TOML = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
const deployment = readDeployment(path.join(ROOT, "wrangler.toml"));

/** Provisions against `account`; what wrangler ran (and the wrangler.toml each command saw), and the file after. */
async function provisionInto(account: Wrangler, opts: { deployment?: Deployment; secrets?: Record<string, string>; toml?: string } = {}) {
  let toml = opts.toml ?? TOML;
  const commands: { args: string; input?: string; toml: string }[] = [];
  const recording: Wrangler = (args, input) => {
    commands.push({ args: args.join(" "), input, toml });
    return account(args, input);
  };
  const result = provision({
    wrangler: recording,
    deployment: opts.deployment ?? deployment,
    toml: { read: () => toml, write: (text) => void (toml = text) },
    secrets: opts.secrets ?? {},
    log: () => {},
  });
  return { result, commands, toml: () => toml };
}

const creates = (commands: { args: string }[]) => commands.map((c) => c.args).filter((a) => / create/.test(a));

describe("npm run provision", () => {
  it("reads what to create from wrangler.toml's production environment", () => {
    expect(deployment).toMatchObject({
      d1: [{ binding: "DB", name: "praxis" }],
      kv: [{ binding: "PRAXIS_KEYS" }],
      queues: ["praxis-jobs", "praxis-practice", "praxis-jobs-dlq"],
      indexes: ["praxis-memories"],
    });
  });

  it("on an empty account creates everything, the index at the configured embedder's size, and writes the ids before migrating", async () => {
    const account = simulatedAccount();
    const run = await provisionInto(account, { secrets: { PRAXIS_ADMIN_KEY: "admin-secret" } });
    await run.result;
    const dims = configuredDimensions(deployment.vars);
    expect(dims).toBe(100);
    expect(creates(run.commands)).toEqual([
      "d1 create praxis",
      "kv namespace create PRAXIS_KEYS",
      "queues create praxis-jobs",
      "queues create praxis-practice",
      "queues create praxis-jobs-dlq",
      `vectorize create praxis-memories --dimensions ${dims} --metric cosine`,
      "vectorize create-metadata-index praxis-memories --propertyName kind --type string",
    ]);
    expect(account.state.indexes).toEqual([{ name: "praxis-memories", dimensions: dims, metadata: ["kind"] }]);

    const written = run.toml();
    const d1Id = account.state.d1[0]!.uuid;
    const kvId = account.state.kv[0]!.id;
    expect(written).toContain(`database_id = "${d1Id}"`);
    expect(written).toContain(`id = "${kvId}"`);
    expect(written).not.toContain("REPLACE_WITH");
    // Only the production tables change: the local ones keep their placeholders, and nothing else moves.
    expect(written.split("\n").filter((line, i) => line !== TOML.split("\n")[i])).toEqual([`database_id = "${d1Id}"`, `id = "${kvId}"`]);
    // wrangler reads the ids where the production Worker's bindings get them.
    const file = path.join(mkdtempSync(path.join(tmpdir(), "praxis-provision-")), "wrangler.toml");
    writeFileSync(file, written);
    const config = unstable_readConfig({ config: file, env: "production" });
    expect(config.d1_databases[0]?.database_id).toBe(d1Id);
    expect(config.kv_namespaces[0]?.id).toBe(kvId);

    const migrate = run.commands.find((c) => c.args === "d1 migrations apply DB --remote --env production");
    expect(migrate?.toml).toBe(written);
    const secret = run.commands.at(-1)!;
    expect(secret.args).toBe("secret bulk --env production");
    expect(JSON.parse(secret.input!)).toEqual({ PRAXIS_ADMIN_KEY: "admin-secret" });
  });

  it("run again, creates nothing and leaves wrangler.toml as the first run wrote it", async () => {
    const account = simulatedAccount();
    const first = await provisionInto(account);
    await first.result;
    const second = await provisionInto(account, { toml: first.toml() });
    await second.result;
    expect(creates(second.commands)).toEqual([]);
    expect(second.toml()).toBe(first.toml());
    expect(second.commands.map((c) => c.args)).toContain("d1 migrations apply DB --remote --env production");
    expect(second.commands.some((c) => c.args.startsWith("secret"))).toBe(false);
  });

  it("stops before writing or migrating when the index exists at another size", async () => {
    const state: AccountState = { d1: [], kv: [], queues: [], indexes: [{ name: "praxis-memories", dimensions: 384, metadata: ["kind"] }] };
    const run = await provisionInto(simulatedAccount(state));
    await expect(run.result).rejects.toThrow(
      /praxis-memories holds 384-dimension vectors, but the configured embedder \(EMBEDDER=semantic\) writes 100/,
    );
    expect(run.toml()).toBe(TOML);
    expect(run.commands.some((c) => c.args.includes("migrations"))).toBe(false);
  });

  it("sizes the index from the embedder the production vars configure", async () => {
    const account = simulatedAccount();
    const run = await provisionInto(account, { deployment: { ...deployment, vars: { ...deployment.vars, EMBEDDER: "workers-ai" } } });
    await run.result;
    expect(account.state.indexes[0]?.dimensions).toBe(384);
    const unknown = await provisionInto(simulatedAccount(), {
      deployment: { ...deployment, vars: { EMBEDDER: "openai", EMBEDDING_MODEL: "nomic-embed-text" } },
    });
    await expect(unknown.result).rejects.toThrow(/set EMBEDDING_DIMS/);
    expect(unknown.commands).toEqual([]);
  });

  it("reports a failing wrangler command with what it printed, and goes no further", async () => {
    const account = simulatedAccount();
    const failing: Wrangler = async (args, input) =>
      args.join(" ") === "d1 create praxis" ? { code: 1, stdout: "", stderr: "Authentication error [code: 10000]" } : account(args, input);
    const run = await provisionInto(failing);
    await expect(run.result).rejects.toThrow(/`wrangler d1 create praxis` failed \(exit 1\):\nAuthentication error/);
    expect(run.commands.map((c) => c.args)).toEqual(["d1 list --json", "d1 create praxis"]);
  });
});

it("docs/deployment.md's Vectorize index has the size of the production embedder's vectors", () => {
  const readme = readFileSync(path.join(ROOT, "docs", "deployment.md"), "utf8");
  const sizes = [...readme.matchAll(/vectorize create praxis-memories --dimensions (\d+)/g)].map((m) => Number(m[1]));
  expect(sizes.length).toBeGreaterThan(0);
  expect(new Set(sizes)).toEqual(new Set([configuredDimensions(deployment.vars)]));
});

describe("setInTable", () => {
  it("sets a key in the one table that matches, keeping comments and the other tables", () => {
    const text = '[[a]]\nname = "x"\nid = "old" # note\n\n[[a]]\nname = "y"\nid = "old"\n# tail\n';
    expect(setInTable(text, "a", ["name", "y"], ["id", "new"])).toBe(
      '[[a]]\nname = "x"\nid = "old" # note\n\n[[a]]\nname = "y"\nid = "new"\n# tail\n',
    );
    expect(setInTable('[[a]]\nname = "y"\n', "a", ["name", "y"], ["id", "new"])).toBe('[[a]]\nid = "new"\nname = "y"\n');
    expect(() => setInTable(text, "a", ["name", "z"], ["id", "new"])).toThrow(/no \[\[a\]\] with name = "z"/);
  });
});
