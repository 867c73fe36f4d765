/**
 * Retrieval tokens: a retrieval's `retrievalId` is a self-contained record of what was
 * shown, signed with HMAC-SHA256 under a secret only the agent's Durable Object (and the snapshot
 * it hands the edge) holds. A reward verifies the token and credits what it names, so a read needs
 * no write to be rewardable later.
 *
 *     rt1.<secret id>.<claims: base64url JSON>.<query code: base64url int8, may be empty>.<HMAC: base64url>
 *
 * The MAC covers everything before its own segment. The secret id lets an agent rotate its secret:
 * tokens signed under a retired secret verify as long as that secret is kept (its tokens' lifetime).
 * Nothing in a token is secret from its holder (it was shown all of it); the MAC makes it unforgeable.
 */

import { fromBase64url, toBase64url, toHex } from "./encoding";
import { encodeCode } from "./int8-matrix";
import { learnablePhrase } from "./usage-memory";
import type { Exploration } from "./probation";

export const TOKEN_VERSION = "rt1";
/**
 * Longest token issued or accepted. A retrieval of the default size (5 items with re-ranker
 * features, a 384-dimension query code) takes about 1.5 KB; one that would not fit (a full-library
 * prompt of a large library, k2 near 100 with a 3,072-dimension embedder) is recorded by the agent's
 * object instead and answers a `ret_…` id, as retrievals did before tokens.
 */
export const MAX_TOKEN_CHARS = 8192;
const SECRET_BYTES = 32;
const SECRET_ID_BYTES = 8;
const DAY_MS = 86_400_000;
/** Scores and re-ranker features keep 4 decimals: a reward learns the same from them, the token is shorter. */
const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** One item as the retrieval showed it. */
export interface TokenItem {
  id: string;
  /** A MemoryKind (memory-types.ts imports this module for the token's length bound). */
  kind: "experience" | "case";
  score: number | null;
  /** The `[G#]` label it was shown under (labels shift as the library changes). */
  label: string | null;
  /** Shown only as part of the whole library, not selected for the query: learns only when cited. */
  citeOnly?: boolean;
  /** The re-ranker's features of the item when shown, which a reward trains on. */
  f?: number[];
  /** A shared library's lesson: `id` is then its sharedRef, and a reward moves only this agent's own Q for it. */
  libraryId?: string;
}

/** What a reward needs to know of a retrieval. */
export interface RetrievalClaims {
  /** `ret_…`: the id rewards remember (one outcome per retrieval) and Q history names. */
  id: string;
  /** Issued, ms since the epoch. */
  at: number;
  /** After this (ms since the epoch) a reward is refused. */
  expiresAt: number;
  phase: string | null;
  lambda: number;
  /** The API key that retrieved: it teaches usage memory when the reward names none. */
  keyId: string | null;
  /** Made by a read-scoped key: never credited by an episode's end. */
  readOnly: boolean;
  /** The query's words usage memory learns as a phrase (`phraseOf`), null when it teaches none. */
  phrase: string | null;
  /** The query embedding as an int8 code (`encodeCode`), which moves usage centroids. */
  queryCode: Uint8Array | null;
  items: TokenItem[];
  /** The lessons on probation a prompt explored (shown) and those that matched and were not (control). */
  trial: Exploration | null;
}

export interface RetrievalSecret {
  id: string;
  key: Uint8Array;
}

export type TokenRefusal = "malformed" | "unknown-secret" | "bad-signature" | "expired";
export type VerifiedToken = { ok: true; claims: RetrievalClaims } | { ok: false; reason: TokenRefusal };

/** Whether a retrieval id is a token (else a `ret_…` id of a recorded retrieval). */
export const isRetrievalToken = (retrievalId: string) => retrievalId.startsWith(`${TOKEN_VERSION}.`);

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

export const newRetrievalSecret = (): RetrievalSecret => ({ id: toBase64url(random(SECRET_ID_BYTES)), key: random(SECRET_BYTES) });

/** Same shape as the ids the agent's object gives recorded retrievals. */
export const newRetrievalId = () => `ret_${toHex(random(10))}`;

/** Days a token lives when the agent keeps retrievals for good (the longest retention a config allows). */
const FOREVER_DAYS = 36_500;
/** A token lives as long as a recorded retrieval is kept: `retention.retrievalsDays` (null: for good). */
export const tokenExpiry = (at: number, retentionDays: number | null) => at + (retentionDays ?? FOREVER_DAYS) * DAY_MS;

/** A retrieval as ranked, by the object or at the edge, before it becomes claims. */
export interface RankedRetrieval {
  /** The id it was given before it was assembled (a prompt's exploration draws on it); a new one when absent. */
  id?: string;
  query: string;
  queryVec: Float32Array | null;
  phase: string | null;
  lambda: number;
  items: TokenItem[];
  asker: { keyId?: string | null; readOnly: boolean };
  at: number;
  retentionDays: number | null;
  trial?: Exploration | null;
}

/** The claims of a retrieval just ranked: the query is kept only as what a reward of it may teach. */
export function retrievalClaims(r: RankedRetrieval): RetrievalClaims {
  return {
    id: r.id ?? newRetrievalId(),
    at: r.at,
    expiresAt: tokenExpiry(r.at, r.retentionDays),
    phase: r.phase,
    lambda: r.lambda,
    keyId: r.asker.keyId ?? null,
    readOnly: r.asker.readOnly,
    phrase: learnablePhrase(r.query),
    queryCode: r.queryVec ? encodeCode(r.queryVec) : null,
    items: r.items,
    trial: r.trial && (r.trial.shown.length || r.trial.control.length) ? r.trial : null,
  };
}

/** An item as a ranking or a prompt shows it, as a token (and the object's record of a retrieval) keeps it. */
export const tokenItem = (i: {
  id: string;
  kind: TokenItem["kind"];
  score?: number | null | undefined;
  label?: string | null | undefined;
  citeOnly?: boolean | undefined;
  f?: number[] | undefined;
  libraryId?: string | undefined;
}): TokenItem => ({
  id: i.id,
  kind: i.kind,
  score: i.score ?? null,
  label: i.label ?? null,
  ...(i.citeOnly ? { citeOnly: true } : {}),
  ...(i.f ? { f: i.f } : {}),
  ...(i.libraryId ? { libraryId: i.libraryId } : {}),
});

/**
 * The token of a retrieval just ranked, by the agent's object or at the edge alike (so the two never
 * drift apart), or null when it would be longer than MAX_TOKEN_CHARS: the object then records the
 * retrieval as ranked and answers its `ret_…` id.
 */
export const issueToken = (secret: RetrievalSecret, r: RankedRetrieval): Promise<string | null> =>
  signRetrieval(secret, retrievalClaims(r));

type WireItem = [
  id: string,
  kind: "e" | "c",
  score: number | null,
  label: string | null,
  citeOnly: 0 | 1,
  f?: number[] | null,
  libraryId?: string,
];
interface WireClaims {
  j: string;
  t: number;
  x: number;
  p?: string;
  l: number;
  k?: string;
  r?: 1;
  w?: string;
  i: WireItem[];
  /** The trial: [shown, control]. */
  e?: [string[], string[]];
}

function toWire(c: RetrievalClaims): WireClaims {
  return {
    j: c.id,
    t: c.at,
    x: c.expiresAt,
    ...(c.phase !== null ? { p: c.phase } : {}),
    l: c.lambda,
    ...(c.keyId !== null ? { k: c.keyId } : {}),
    ...(c.readOnly ? { r: 1 as const } : {}),
    ...(c.phrase !== null ? { w: c.phrase } : {}),
    i: c.items.map((i): WireItem => {
      const kind = i.kind === "experience" ? "e" : "c";
      const score = i.score === null ? null : round(i.score);
      const citeOnly = i.citeOnly ? 1 : 0;
      const f = i.f ? i.f.map(round) : null;
      if (i.libraryId) return [i.id, kind, score, i.label, citeOnly, f, i.libraryId];
      return f ? [i.id, kind, score, i.label, citeOnly, f] : [i.id, kind, score, i.label, citeOnly];
    }),
    ...(c.trial ? { e: [c.trial.shown, c.trial.control] as [string[], string[]] } : {}),
  };
}

function fromWire(w: WireClaims, code: Uint8Array | null): RetrievalClaims {
  return {
    id: w.j,
    at: w.t,
    expiresAt: w.x,
    phase: w.p ?? null,
    lambda: w.l,
    keyId: w.k ?? null,
    readOnly: w.r === 1,
    phrase: w.w ?? null,
    queryCode: code,
    items: w.i.map(([id, kind, score, label, citeOnly, f, libraryId]) => ({
      id,
      kind: kind === "e" ? "experience" : "case",
      score,
      label,
      ...(citeOnly ? { citeOnly: true } : {}),
      ...(f ? { f } : {}),
      ...(libraryId ? { libraryId } : {}),
    })),
    trial: w.e ? { shown: w.e[0], control: w.e[1] } : null,
  };
}

const encoder = new TextEncoder();
const keys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
const hmacKey = (secret: RetrievalSecret) => {
  let key = keys.get(secret.key);
  if (!key)
    keys.set(secret.key, (key = crypto.subtle.importKey("raw", secret.key, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"])));
  return key;
};
/** An HMAC-SHA256 in base64url. */
const MAC_CHARS = 43;
const MAC_BYTES = 32;

/** The token for `claims`, or null when it would be longer than MAX_TOKEN_CHARS (record the retrieval instead). */
export async function signRetrieval(secret: RetrievalSecret, claims: RetrievalClaims): Promise<string | null> {
  const body = `${TOKEN_VERSION}.${secret.id}.${toBase64url(encoder.encode(JSON.stringify(toWire(claims))))}.${claims.queryCode ? toBase64url(claims.queryCode) : ""}`;
  if (body.length + 1 + MAC_CHARS > MAX_TOKEN_CHARS) return null;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(body)));
  return `${body}.${toBase64url(mac)}`;
}

/**
 * The key a token says retrieved it, read without verifying the token (null when it names none or
 * is not a token): for a check that may only refuse, such as the revocation of that key. The
 * agent's object verifies the token before anything credits it.
 */
export function tokenKeyId(token: string): string | null {
  const parts = token.split(".");
  if (parts.length !== 5 || parts[0] !== TOKEN_VERSION || token.length > MAX_TOKEN_CHARS) return null;
  try {
    const k = (JSON.parse(new TextDecoder().decode(fromBase64url(parts[2]!))) as Partial<WireClaims>).k;
    return typeof k === "string" ? k : null;
  } catch {
    return null;
  }
}

/**
 * The claims of a token one of `secrets` signed, unless it is expired at `now`. Another agent's
 * token names a secret this agent does not hold; a changed byte anywhere breaks the MAC (compared
 * in constant time by WebCrypto); expiry is checked only once the token is known to be authentic.
 */
export async function verifyRetrieval(secrets: readonly RetrievalSecret[], token: string, now: number): Promise<VerifiedToken> {
  if (token.length > MAX_TOKEN_CHARS) return { ok: false, reason: "malformed" };
  const parts = token.split(".");
  if (parts.length !== 5 || parts[0] !== TOKEN_VERSION) return { ok: false, reason: "malformed" };
  const [, secretId, claimsPart, codePart, macPart] = parts as [string, string, string, string, string];
  const secret = secrets.find((s) => s.id === secretId);
  if (!secret) return { ok: false, reason: "unknown-secret" };
  let mac: Uint8Array;
  try {
    mac = fromBase64url(macPart);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  // atob ignores whitespace and a last character's spare bits: only the one canonical spelling of a
  // whole HMAC-SHA-256 counts (a cut one is malformed, not merely a wrong signature).
  if (mac.length !== MAC_BYTES || toBase64url(mac) !== macPart) return { ok: false, reason: "malformed" };
  const body = token.slice(0, token.length - macPart.length - 1);
  if (!(await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, encoder.encode(body))))
    return { ok: false, reason: "bad-signature" };
  let claims: RetrievalClaims;
  try {
    claims = fromWire(
      JSON.parse(new TextDecoder().decode(fromBase64url(claimsPart))) as WireClaims,
      codePart ? fromBase64url(codePart) : null,
    );
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (now > claims.expiresAt) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}
