/**
 * Stripe-style webhook signatures: header `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
 * Signing the timestamp with the body stops replays of an old delivery under a fresh timestamp.
 */

import { toHex } from "./encoding";

/**
 * Several v1 entries let a sender sign with both the old and the new secret during a rotation; two
 * are enough for that, three leave room. More is refused before any hashing, so a header cannot make
 * one request cost more work.
 */
export const MAX_SIGNATURE_CANDIDATES = 3;

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: "missing" | "malformed" | "stale" | "mismatch" };

const encoder = new TextEncoder();

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

function fromHex(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export async function signPayload(secret: string, timestamp: number, body: string): Promise<string> {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError("timestamp must be a whole number of seconds");
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${timestamp}.${body}`));
  return `t=${timestamp},v1=${toHex(mac)}`;
}

export async function verifySignature(
  header: string | null,
  secret: string,
  body: string,
  nowSec: number,
  toleranceSec = 300,
): Promise<VerifyResult> {
  if (header === null || header.trim() === "") return { ok: false, reason: "missing" };

  let timestamp: number | null = null;
  const candidates: Uint8Array[] = [];
  let v1Count = 0;
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      if (!/^\d{1,12}$/.test(value)) return { ok: false, reason: "malformed" };
      timestamp = Number(value);
    } else if (key === "v1") {
      if (++v1Count > MAX_SIGNATURE_CANDIDATES) return { ok: false, reason: "malformed" };
      const bytes = fromHex(value);
      if (bytes) candidates.push(bytes);
    }
    // Other schemes (Stripe's v0 test signatures, future versions) are ignored, not rejected.
  }
  if (timestamp === null || candidates.length === 0) return { ok: false, reason: "malformed" };

  // Future timestamps are bounded too: otherwise a signature minted with a far-future t would
  // stay replayable for as long as its clock skew.
  if (Math.abs(nowSec - timestamp) > toleranceSec) return { ok: false, reason: "stale" };

  // One HMAC over the body whatever the number of candidates: the expected signature is computed
  // once and each candidate compared to it in constant time (every byte of every candidate), so a
  // probe learns nothing from timing, neither which candidate matched nor how much of one did.
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${timestamp}.${body}`)));
  let matched = 0;
  for (const sig of candidates) {
    let diff = 0;
    for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ sig[i]!;
    matched |= diff === 0 ? 1 : 0;
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: "mismatch" };
}
