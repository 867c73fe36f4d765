import { unstable_readConfig } from "wrangler";
import { configuredDimensions } from "../../src/adapters/embedder-dimensions";
import type { Wrangler } from "./account";
import { setInTable } from "./toml";

export const ENV = "production";

/** What wrangler.toml's production environment binds, read by wrangler itself. */
export interface Deployment {
  vars: Record<string, unknown>;
  d1: { binding: string; name: string }[];
  kv: { binding: string }[];
  queues: string[];
  indexes: string[];
}

/** The part of wrangler's resolved configuration provisioning reads. */
interface BindingsConfig {
  vars: Record<string, unknown>;
  d1_databases: { binding: string; database_name?: string }[];
  kv_namespaces: { binding: string }[];
  queues: { producers?: { queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  vectorize: { index_name: string }[];
}

export function readDeployment(configPath: string): Deployment {
  const config: BindingsConfig = unstable_readConfig({ config: configPath, env: ENV });
  const consumers = config.queues.consumers ?? [];
  const queues = [
    ...(config.queues.producers ?? []).map((p) => p.queue),
    ...consumers.map((c) => c.queue),
    ...consumers.flatMap((c) => (c.dead_letter_queue ? [c.dead_letter_queue] : [])),
  ];
  return {
    vars: config.vars,
    d1: config.d1_databases.map((d) => ({ binding: d.binding, name: d.database_name ?? d.binding })),
    kv: config.kv_namespaces.map((k) => ({ binding: k.binding })),
    queues: [...new Set(queues)],
    indexes: config.vectorize.map((v) => v.index_name),
  };
}

/** The property Vectorize filters on (the memory's kind); see "Deploying to Cloudflare" in the README. */
const METADATA_INDEX = { propertyName: "kind", type: "string" };

export interface ProvisionOptions {
  wrangler: Wrangler;
  deployment: Deployment;
  /** wrangler.toml's text, and where the text with the new ids goes (before migrations, which read it). */
  toml: { read(): string; write(text: string): void };
  /** Secret values by variable name; only these are set. */
  secrets: Record<string, string>;
  log(line: string): void;
}

/**
 * Makes the account hold what the production environment binds and wrangler.toml name it:
 * each D1 database, KV namespace, queue and Vectorize index is looked up and created only when
 * missing (so a second run changes nothing), the index at the size of the configured embedder's
 * vectors (an existing index of another size stops the run before anything is written), then
 * the ids go into wrangler.toml, D1 migrations are applied and the given secrets set.
 */
export async function provision({ wrangler, deployment, toml, secrets, log }: ProvisionOptions): Promise<void> {
  const dimensions = configuredDimensions(deployment.vars);
  const run = async (args: string[], input?: string) => {
    log(`wrangler ${args.join(" ")}`);
    const r = await wrangler(args, input);
    if (r.code !== 0) throw new Error(`\`wrangler ${args.join(" ")}\` failed (exit ${r.code}):\n${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const listed = async <T>(args: string[]): Promise<T[]> => parseJson<T[]>(await run(args), args);

  const edits: [string, [string, string], [string, string]][] = [];
  for (const db of deployment.d1) {
    const find = async () => (await listed<{ name: string; uuid: string }>(["d1", "list", "--json"])).find((d) => d.name === db.name);
    let found = await find();
    if (!found) {
      await run(["d1", "create", db.name]);
      found = await find();
    }
    if (!found) throw new Error(`D1 database ${db.name} was created but is not listed`);
    edits.push([`env.${ENV}.d1_databases`, ["binding", db.binding], ["database_id", found.uuid]]);
  }
  for (const ns of deployment.kv) {
    const find = async () => (await listed<{ title: string; id: string }>(["kv", "namespace", "list"])).find((n) => n.title === ns.binding);
    let found = await find();
    if (!found) {
      await run(["kv", "namespace", "create", ns.binding]);
      found = await find();
    }
    if (!found) throw new Error(`KV namespace ${ns.binding} was created but is not listed`);
    edits.push([`env.${ENV}.kv_namespaces`, ["binding", ns.binding], ["id", found.id]]);
  }
  for (const queue of deployment.queues) {
    log(`wrangler queues info ${queue}`);
    if ((await wrangler(["queues", "info", queue])).code !== 0) await run(["queues", "create", queue]);
  }
  for (const index of deployment.indexes) {
    const found = (await listed<{ name: string; config?: { dimensions: number } }>(["vectorize", "list", "--json"])).find(
      (i) => i.name === index,
    );
    if (found && found.config?.dimensions !== dimensions) {
      throw new Error(
        `Vectorize index ${index} holds ${found.config?.dimensions}-dimension vectors, but the configured embedder (EMBEDDER=${String(deployment.vars.EMBEDDER ?? "semantic")}) writes ${dimensions}: delete it (wrangler vectorize delete ${index}) or bind another index_name`,
      );
    }
    if (!found) await run(["vectorize", "create", index, "--dimensions", String(dimensions), "--metric", "cosine"]);
    const properties = await listed<{ propertyName: string }>(["vectorize", "list-metadata-index", index, "--json"]);
    if (!properties.some((p) => p.propertyName === METADATA_INDEX.propertyName)) {
      await run([
        "vectorize",
        "create-metadata-index",
        index,
        "--propertyName",
        METADATA_INDEX.propertyName,
        "--type",
        METADATA_INDEX.type,
      ]);
    }
  }

  const before = toml.read();
  const after = edits.reduce((text, [header, match, set]) => setInTable(text, header, match, set), before);
  if (after !== before) {
    toml.write(after);
    for (const [header, , [key, value]] of edits) log(`wrangler.toml [[${header}]] ${key} = "${value}"`);
  }
  for (const db of deployment.d1) await run(["d1", "migrations", "apply", db.binding, "--remote", "--env", ENV]);
  const names = Object.keys(secrets);
  if (names.length) {
    log(`(secrets: ${names.join(", ")})`);
    await run(["secret", "bulk", "--env", ENV], JSON.stringify(secrets));
  }
}

/** wrangler's JSON output, after any banner it printed first. */
function parseJson<T>(stdout: string, args: string[]): T {
  const start = stdout.search(/^[[{]/m);
  try {
    return JSON.parse(stdout.slice(Math.max(start, 0))) as T;
  } catch {
    throw new Error(`\`wrangler ${args.join(" ")}\` did not print JSON:\n${stdout}`);
  }
}
