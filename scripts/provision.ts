// `npm run provision`: creates what the production environment of wrangler.toml binds (D1, KV, the
// queues, the Vectorize index at the size of the configured embedder's vectors) in the Cloudflare
// account wrangler is logged into (`npx wrangler login` or CLOUDFLARE_API_TOKEN), writes their ids
// into wrangler.toml, applies the D1 migrations and sets the secrets found in the environment
// (PRAXIS_ADMIN_KEY, LLM_API_KEY, EMBEDDING_API_KEY). Safe to run again: what exists is kept.
//   npm run provision -- --dry-run   the commands it would run on an empty account; changes nothing
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { SECRET_VARIABLES } from "../src/config";
import { realWrangler, simulatedAccount } from "./provision/account";
import { provision, readDeployment } from "./provision/plan";

const ROOT = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { "dry-run": { type: "boolean", default: false }, config: { type: "string" } } });
const dryRun = values["dry-run"];
const configPath = path.resolve(values.config ?? path.join(ROOT, "wrangler.toml"));

try {
  await provision({
    wrangler: dryRun ? simulatedAccount() : realWrangler(ROOT),
    deployment: readDeployment(configPath),
    toml: { read: () => readFileSync(configPath, "utf8"), write: (text) => (dryRun ? undefined : writeFileSync(configPath, text)) },
    secrets: Object.fromEntries(SECRET_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : []))),
    log: (line) => console.log(dryRun ? `[dry run] ${line}` : line),
  });
  console.log(dryRun ? "[dry run] nothing was changed" : "Provisioned. Deploy with: npm run deploy");
} catch (err) {
  console.error(`provision: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
