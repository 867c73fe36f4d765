/** The byte encodings used for ids, secrets, signatures and cursors, in one place. */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // A table and one string: this runs on every request (key hashes, ids), so it avoids an array per call.
  let out = "";
  for (let i = 0; i < view.length; i++) out += HEX[view[i]!];
  return out;
}

/** Unpadded base64url (RFC 4648 §5), safe in URLs, headers and file names. */
export function toBase64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Throws on input that is not base64url. */
export function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

/** A JSON column as stored (null stays null); what goes in was written by the service itself. */
export const parseStored = <T>(text: string | null): T | null => (text ? (JSON.parse(text) as T) : null);
