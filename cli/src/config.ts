import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { Praxis } from "../../client/src/index.js";
import { UsageError } from "./errors.js";
import { readsOwnWrites, rememberingWrites } from "./session.js";

/** The options every command takes (declared on the program). */
export interface Globals {
  url?: string;
  key?: string;
  json?: boolean;
}

export const globals = (cmd: Command): Globals => cmd.optsWithGlobals<Globals>();

export function configPath(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "praxis", "config.json");
}

/** The saved settings: URL, key and what other modules keep there (the library versions this CLI wrote). */
export type SavedConfig = { url?: string; key?: string } & Record<string, unknown>;

export function readConfig(): SavedConfig {
  try {
    return JSON.parse(readFileSync(configPath(), "utf8")) as SavedConfig;
  } catch {
    return {};
  }
}

/** Saves URL and key, keeping the file's other settings (mode 0600, in a 0700 directory); returns the file's path. */
export function writeConfig(config: { url: string; key: string }): string {
  return saveConfig({ ...readConfig(), ...config });
}

export function saveConfig(config: SavedConfig): string {
  const file = configPath();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of an existing file: the key must not stay readable by others.
  chmodSync(file, 0o600);
  return file;
}

/** URL and key: --url/--key, else PRAXIS_URL/PRAXIS_API_KEY, else the saved config. */
export function connection(cmd: Command): { url: string; key: string } {
  const g = globals(cmd);
  const saved = readConfig();
  const url = g.url ?? process.env.PRAXIS_URL ?? saved.url;
  const key = g.key ?? process.env.PRAXIS_API_KEY ?? saved.key;
  if (!url) throw new UsageError("No API URL: pass --url, set PRAXIS_URL or run `praxis login`.");
  if (!key) throw new UsageError("No API key: pass --key, set PRAXIS_API_KEY or run `praxis login`.");
  return { url, key };
}

export function client(cmd: Command): Praxis {
  const { url, key } = connection(cmd);
  return rememberingWrites(new Praxis({ baseUrl: url, apiKey: key, readYourWrites: readsOwnWrites() }), url, key);
}
