import { describe, expect, it } from "vitest";
import {
  MAX_TOKEN_CHARS,
  isRetrievalToken,
  newRetrievalId,
  newRetrievalSecret,
  signRetrieval,
  tokenExpiry,
  verifyRetrieval,
  type RetrievalClaims,
} from "../../src/core/retrieval-token";
import { encodeCode } from "../../src/core/int8-matrix";

const NOW = Date.UTC(2026, 10, 26, 12);

function claims(over: Partial<RetrievalClaims> = {}): RetrievalClaims {
  const vec = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i));
  return {
    id: newRetrievalId(),
    at: NOW,
    expiresAt: tokenExpiry(NOW, 30),
    phase: "execution",
    lambda: 0.5,
    keyId: "key_abc",
    readOnly: false,
    phrase: "rate limited api",
    queryCode: encodeCode(vec),
    trial: null,
    items: Array.from({ length: 5 }, (_, i) => ({
      id: `exp_${"0123456789abcdef0123".slice(i)}${"x".repeat(i)}`,
      kind: i === 4 ? ("case" as const) : ("experience" as const),
      score: 1.23456789 - i / 3,
      label: i === 4 ? null : `G${i}`,
      ...(i === 3 ? { citeOnly: true } : {}),
      f: [0.123456, 0.5, 1, 0, 0.25, 0.99999, i === 4 ? 1 : 0, 0.3, 2.5],
    })),
    ...over,
  };
}

describe("retrieval tokens", () => {
  it("round-trip what a reward needs, scores and features rounded to 4 decimals", async () => {
    const secret = newRetrievalSecret();
    const c = claims();
    const token = (await signRetrieval(secret, c))!;
    expect(isRetrievalToken(token)).toBe(true);
    expect(token).toMatch(/^rt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{43}$/);
    const v = await verifyRetrieval([secret], token, NOW + 1000);
    if (!v.ok) throw new Error(v.reason);
    expect(v.claims).toEqual({
      ...c,
      items: c.items.map((i) => ({ ...i, score: Math.round(i.score! * 1e4) / 1e4, f: i.f!.map((x) => Math.round(x * 1e4) / 1e4) })),
    });
    // The default retrieval (k2 = 5, 384 dimensions) fits well inside the bound.
    expect(token.length).toBeLessThan(2000);
  });

  it("round-trip a retrieval without phase, key, phrase or query code", async () => {
    const secret = newRetrievalSecret();
    const c = claims({
      phase: null,
      keyId: null,
      readOnly: true,
      phrase: null,
      queryCode: null,
      items: [{ id: "case_1", kind: "case", score: null, label: null }],
    });
    const v = await verifyRetrieval([secret], (await signRetrieval(secret, c))!, NOW);
    expect(v).toEqual({ ok: true, claims: c });
  });

  it("round-trip shared lessons with their library, with and without re-ranker features", async () => {
    const secret = newRetrievalSecret();
    const c = claims({
      items: [
        { id: "lib_payments/exp_1", kind: "experience", score: 0.5, label: null, f: [0.25, 1], libraryId: "lib_payments" },
        { id: "lib_payments/exp_2", kind: "experience", score: null, label: "S0", citeOnly: true, libraryId: "lib_payments" },
        { id: "exp_own", kind: "experience", score: null, label: "G0", citeOnly: true },
      ],
    });
    const v = await verifyRetrieval([secret], (await signRetrieval(secret, c))!, NOW);
    expect(v).toEqual({ ok: true, claims: c });
  });

  it("refuse a token with any one character changed, removed or added", async () => {
    const secret = newRetrievalSecret();
    const token = (await signRetrieval(secret, claims({ items: claims().items.slice(0, 1) })))!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    const refusals = new Set<string>();
    for (let i = 0; i < token.length; i++) {
      const other = alphabet[(alphabet.indexOf(token[i]!) + 1 + (i % 7)) % alphabet.length]!;
      for (const forged of [
        token.slice(0, i) + other + token.slice(i + 1),
        token.slice(0, i) + token.slice(i + 1),
        token.slice(0, i) + " " + token.slice(i),
      ]) {
        const v = await verifyRetrieval([secret], forged, NOW);
        expect(v.ok, `changed at ${i}`).toBe(false);
        if (!v.ok) refusals.add(v.reason);
      }
    }
    expect([...refusals].sort()).toEqual(["bad-signature", "malformed", "unknown-secret"]);
    // Flipping the spare low bits of the MAC's last character decodes to the same bytes: still refused.
    const last = token.at(-1)!;
    const twin = alphabet[alphabet.indexOf(last) ^ 1]!;
    expect(await verifyRetrieval([secret], token.slice(0, -1) + twin, NOW)).toMatchObject({ ok: false });
  });

  it("call a MAC cut short malformed, whatever bits its last character held", async () => {
    const secret = newRetrievalSecret();
    // A 42-character MAC decodes to 31 whole bytes and re-encodes the same whenever the dropped
    // character's spare bits were zero (one token in 16): its length, not its spelling, refuses it.
    for (let n = 0; n < 48; n++) {
      const token = (await signRetrieval(secret, claims({ items: claims().items.slice(0, 1) })))!;
      for (const cut of [1, 2, 4])
        expect(await verifyRetrieval([secret], token.slice(0, -cut), NOW), `cut ${cut}`).toEqual({ ok: false, reason: "malformed" });
    }
  });

  it("refuse a token past its expiry, and accept it up to that moment", async () => {
    const secret = newRetrievalSecret();
    const c = claims();
    const token = (await signRetrieval(secret, c))!;
    expect((await verifyRetrieval([secret], token, c.expiresAt)).ok).toBe(true);
    expect(await verifyRetrieval([secret], token, c.expiresAt + 1)).toEqual({ ok: false, reason: "expired" });
    expect(c.expiresAt - c.at).toBe(30 * 86_400_000);
  });

  it("refuse another agent's token, and a forged one under a guessed secret id", async () => {
    const mine = newRetrievalSecret();
    const theirs = newRetrievalSecret();
    const token = (await signRetrieval(theirs, claims()))!;
    expect(await verifyRetrieval([mine], token, NOW)).toEqual({ ok: false, reason: "unknown-secret" });
    const forged = (await signRetrieval({ id: mine.id, key: theirs.key }, claims()))!;
    expect(await verifyRetrieval([mine], forged, NOW)).toEqual({ ok: false, reason: "bad-signature" });
  });

  it("verify under any secret still held, so the signing secret can rotate", async () => {
    const old = newRetrievalSecret();
    const current = newRetrievalSecret();
    const token = (await signRetrieval(old, claims()))!;
    expect((await verifyRetrieval([current, old], token, NOW)).ok).toBe(true);
    expect((await verifyRetrieval([current], token, NOW)).ok).toBe(false);
  });

  it("issue nothing longer than the bound, and refuse anything longer unread", async () => {
    const secret = newRetrievalSecret();
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `exp_${i.toString(16).padStart(20, "0")}`,
        kind: "experience" as const,
        score: 0.5,
        label: `G${i}`,
        f: Array<number>(9).fill(0.1234),
      }));
    let fits = 0;
    for (let n = 1; n <= 200; n++) {
      const token = await signRetrieval(secret, claims({ items: many(n) }));
      if (token === null) break;
      expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_CHARS);
      fits = n;
    }
    expect(fits).toBeGreaterThanOrEqual(40);
    expect(fits).toBeLessThan(200);
    expect(await signRetrieval(secret, claims({ items: many(fits + 1) }))).toBeNull();
    expect(await verifyRetrieval([secret], `rt1.${secret.id}.${"A".repeat(MAX_TOKEN_CHARS)}..x`, NOW)).toEqual({
      ok: false,
      reason: "malformed",
    });
  });

  it("tell tokens from recorded retrieval ids", () => {
    expect(isRetrievalToken("ret_0123456789abcdef0123")).toBe(false);
    expect(newRetrievalId()).toMatch(/^ret_[0-9a-f]{20}$/);
  });
});
