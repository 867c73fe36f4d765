import { spawn } from "node:child_process";
import path from "node:path";

export interface WranglerResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `wrangler <args>` (with `input` on stdin) against a Cloudflare account. */
export type Wrangler = (args: string[], input?: string) => Promise<WranglerResult>;

/** The project's wrangler, logged in as `wrangler login` or CLOUDFLARE_API_TOKEN says. */
export function realWrangler(root: string): Wrangler {
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, "node_modules/wrangler/bin/wrangler.js"), ...args], {
        cwd: root,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
      child.stdin.end(input ?? "");
    });
}

/** What a simulated account holds: D1 databases and KV namespaces by name, queues, indexes with their size. */
export interface AccountState {
  d1: { name: string; uuid: string }[];
  kv: { title: string; id: string }[];
  queues: string[];
  indexes: { name: string; dimensions: number; metadata: string[] }[];
}

/**
 * A Cloudflare account in memory that answers the wrangler commands provisioning uses as wrangler
 * does (the same JSON, an error status for a missing queue). `npm run provision -- --dry-run` runs
 * the plan against an empty one; the tests against one in any state.
 */
export function simulatedAccount(state: AccountState = { d1: [], kv: [], queues: [], indexes: [] }): Wrangler & { state: AccountState } {
  const ok = (stdout = ""): WranglerResult => ({ code: 0, stdout, stderr: "" });
  const fail = (stderr: string): WranglerResult => ({ code: 1, stdout: "", stderr });
  const option = (args: string[], name: string) => args[args.indexOf(name) + 1];
  const run = async (args: string[]): Promise<WranglerResult> => {
    const [group, verb, name] = args;
    const command = args[0] === "kv" ? `kv ${args[2]}` : `${group} ${verb}`;
    switch (command) {
      case "d1 list":
        return ok(JSON.stringify(state.d1));
      case "d1 create":
        state.d1.push({ name: name!, uuid: `dry-run-d1-${name}` });
        return ok();
      case "kv list":
        return ok(JSON.stringify(state.kv));
      case "kv create":
        state.kv.push({ title: args[3]!, id: `dry-run-kv-${args[3]}` });
        return ok();
      case "queues info":
        return state.queues.includes(name!) ? ok(`Queue Name: ${name}`) : fail(`Queue "${name}" does not exist.`);
      case "queues create":
        state.queues.push(name!);
        return ok();
      case "vectorize list":
        return ok(JSON.stringify(state.indexes.map((i) => ({ name: i.name, config: { dimensions: i.dimensions, metric: "cosine" } }))));
      case "vectorize create":
        state.indexes.push({ name: name!, dimensions: Number(option(args, "--dimensions")), metadata: [] });
        return ok();
      case "vectorize list-metadata-index":
        return ok(
          JSON.stringify(
            (state.indexes.find((i) => i.name === name)?.metadata ?? []).map((p) => ({ propertyName: p, indexType: "String" })),
          ),
        );
      case "vectorize create-metadata-index":
        state.indexes.find((i) => i.name === name)?.metadata.push(option(args, "--propertyName")!);
        return ok();
      case "d1 migrations":
      case "secret bulk":
        return ok();
      default:
        return fail(`the simulated account does not know \`wrangler ${args.join(" ")}\``);
    }
  };
  return Object.assign(run, { state });
}
