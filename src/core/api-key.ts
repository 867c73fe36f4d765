import { z } from "zod";
import { toBase64url, toHex } from "./encoding";

/** API keys look like `pxk_<12 hex id>_<43 base64url secret>`; only a SHA-256 hash is stored. */
const KEY_RE = /^pxk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface MintedKey {
  id: string;
  key: string;
  prefix: string;
}

export function mintApiKey(random: (n: number) => Uint8Array): MintedKey {
  const id = toHex(random(6));
  const key = `pxk_${id}_${toBase64url(random(32))}`;
  return { id, key, prefix: key.slice(0, 16) };
}

export function parseApiKey(key: string): { id: string } | null {
  const m = KEY_RE.exec(key);
  return m ? { id: m[1]! } : null;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return toHex(digest);
}

/** Compares two secrets in time independent of where they differ (hashing equalises lengths). */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  let diff = 0;
  for (let i = 0; i < ha.length; i++) diff |= ha.charCodeAt(i) ^ hb.charCodeAt(i);
  return diff === 0;
}

export const AGENT_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** An agent id, as every door (path parameter, MCP argument, key scope) takes it. */
export const AgentIdSchema = z
  .string()
  .regex(AGENT_ID_RE, "Agent ids are 1-64 chars of a-z, 0-9, '_' and '-', starting with a letter or digit");
