import { createHash } from "node:crypto";
import type { Praxis } from "../../client/src/index.js";
import { readConfig, saveConfig } from "./config.js";

/**
 * Session consistency across invocations: the library version each command wrote for an agent is
 * kept in the config file (per API URL and key), and later commands read that agent at it or later,
 * so `praxis experiences add` then `praxis retrieve` sees the lesson. PRAXIS_READ_YOUR_WRITES=0
 * turns it off (reads then lag writes by up to the deployment's staleness bound).
 */
const FIELD = "libraryVersions";
/** Agents remembered per URL and key; the ones written longest ago are dropped first. */
const MAX_AGENTS = 500;

type Saved = Record<string, Record<string, number>>;

const opened: { praxis: Praxis; scope: string; loaded: Record<string, number> }[] = [];

export const readsOwnWrites = () => !["0", "false", "off", "no"].includes((process.env.PRAXIS_READ_YOUR_WRITES ?? "").toLowerCase());

/** The key is not stored again: only a digest of it tells one tenant's versions from another's at the same URL. */
const scopeOf = (url: string, key: string) => `${url.replace(/\/+$/, "")} ${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;

const savedVersions = (): Saved => {
  const v = readConfig()[FIELD];
  return v && typeof v === "object" ? (v as Saved) : {};
};

export function rememberingWrites(praxis: Praxis, url: string, key: string): Praxis {
  if (!readsOwnWrites()) return praxis;
  const scope = scopeOf(url, key);
  const loaded = { ...savedVersions()[scope] };
  for (const [agentId, version] of Object.entries(loaded)) praxis.versions.note(agentId, version);
  opened.push({ praxis, scope, loaded });
  return praxis;
}

/** Writes back what the command's clients learned (a new version, or an agent deleted), if anything. */
export function saveVersions(): void {
  const changed = opened.filter(({ praxis, loaded }) => {
    const now = praxis.versions.entries();
    return Object.keys(loaded).length !== now.length || now.some(([agentId, v]) => loaded[agentId] !== v);
  });
  if (!changed.length) return;
  // Read again: another command may have saved since this one started; the higher version stands.
  const config = readConfig();
  const all = savedVersions();
  for (const { praxis, scope, loaded } of changed) {
    const mine = new Map(praxis.versions.entries());
    const kept = Object.entries(all[scope] ?? {}).filter(([agentId]) => mine.has(agentId) || !(agentId in loaded));
    const merged = new Map(kept);
    for (const [agentId, v] of mine) merged.set(agentId, Math.max(v, merged.get(agentId) ?? -1));
    all[scope] = Object.fromEntries([...merged].slice(-MAX_AGENTS));
  }
  saveConfig({ ...config, [FIELD]: all });
}
