import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_SIGNATURE_CANDIDATES, signPayload, verifySignature } from "../../src/core/webhook-signature";

const SECRET = "whsec_test_secret";
const BODY = '{"type":"session.end","id":"evt_1"}';
const T = 1_760_000_000;

describe("signPayload", () => {
  it("produces t=<unix>,v1=<hex HMAC-SHA256 of '<t>.<body>'>", async () => {
    // Reference value from: printf %s 1700000000.hello | openssl dgst -sha256 -hmac secret
    expect(await signPayload("secret", 1700000000, "hello")).toBe(
      "t=1700000000,v1=47b1df0ab12338b2685470b0d2b37033add7c3b2bc8172f313e77413f1bb78c8",
    );
  });

  it("changes when the timestamp or body changes", async () => {
    const v1 = async (t: number, body: string) => (await signPayload(SECRET, t, body)).split("v1=")[1];
    const base = await v1(T, BODY);
    expect(await v1(T + 1, BODY)).not.toBe(base);
    expect(await v1(T, `${BODY} `)).not.toBe(base);
    expect(await v1(T, BODY)).toBe(base);
  });

  it("rejects a non-integer timestamp", async () => {
    await expect(signPayload(SECRET, 1.5, BODY)).rejects.toThrow(RangeError);
  });
});

describe("verifySignature", () => {
  it("accepts its own signature and returns the timestamp", async () => {
    const header = await signPayload(SECRET, T, BODY);
    expect(await verifySignature(header, SECRET, BODY, T + 10)).toEqual({ ok: true, timestamp: T });
  });

  it("reports a missing header", async () => {
    expect(await verifySignature(null, SECRET, BODY, T)).toEqual({ ok: false, reason: "missing" });
    expect(await verifySignature("  ", SECRET, BODY, T)).toEqual({ ok: false, reason: "missing" });
  });

  it("reports malformed headers", async () => {
    const sig = (await signPayload(SECRET, T, BODY)).split(",")[1]!;
    for (const header of [sig, `t=${T}`, `t=abc,${sig}`, `t=${T},v1=nothex`, `t=${T},v1=abcd`, "garbage"]) {
      expect(await verifySignature(header, SECRET, BODY, T), header).toEqual({ ok: false, reason: "malformed" });
    }
  });

  it("rejects timestamps outside the tolerance in either direction", async () => {
    const header = await signPayload(SECRET, T, BODY);
    expect(await verifySignature(header, SECRET, BODY, T + 300)).toEqual({ ok: true, timestamp: T });
    expect(await verifySignature(header, SECRET, BODY, T + 301)).toEqual({ ok: false, reason: "stale" });
    expect(await verifySignature(header, SECRET, BODY, T - 301)).toEqual({ ok: false, reason: "stale" });
    expect(await verifySignature(header, SECRET, BODY, T + 61, 60)).toEqual({ ok: false, reason: "stale" });
  });

  it("reports a mismatch for a wrong secret, a tampered body or a swapped timestamp", async () => {
    const header = await signPayload(SECRET, T, BODY);
    expect(await verifySignature(header, "other", BODY, T)).toEqual({ ok: false, reason: "mismatch" });
    expect(await verifySignature(header, SECRET, BODY.replace("evt_1", "evt_2"), T)).toEqual({
      ok: false,
      reason: "mismatch",
    });
    const replayed = header.replace(`t=${T}`, `t=${T + 5}`);
    expect(await verifySignature(replayed, SECRET, BODY, T + 5)).toEqual({ ok: false, reason: "mismatch" });
  });

  it("accepts any of several v1 signatures, for secret rotation, and ignores other schemes", async () => {
    const oldSig = (await signPayload("old-secret", T, BODY)).split(",")[1]!;
    const newSig = (await signPayload(SECRET, T, BODY)).split(",")[1]!;
    const header = `t=${T}, v0=deadbeef, ${oldSig}, ${newSig}`;
    expect(await verifySignature(header, SECRET, BODY, T)).toEqual({ ok: true, timestamp: T });
    expect(await verifySignature(header, "old-secret", BODY, T)).toEqual({ ok: true, timestamp: T });
    expect(await verifySignature(header, "unrelated", BODY, T)).toEqual({ ok: false, reason: "mismatch" });
  });

  it("accepts uppercase hex", async () => {
    const header = (await signPayload(SECRET, T, BODY)).replace(/v1=(\w+)/, (_, h: string) => `v1=${h.toUpperCase()}`);
    expect(await verifySignature(header, SECRET, BODY, T)).toEqual({ ok: true, timestamp: T });
  });

  describe("bounded work before authentication", () => {
    afterEach(() => vi.restoreAllMocks());

    it(`refuses more than ${MAX_SIGNATURE_CANDIDATES} v1 candidates as malformed, without hashing the body`, async () => {
      const good = (await signPayload(SECRET, T, BODY)).split(",")[1]!;
      const junk = `v1=${"ab".repeat(32)}`;
      const sign = vi.spyOn(crypto.subtle, "sign");
      const many = `t=${T},${Array.from({ length: MAX_SIGNATURE_CANDIDATES }, () => junk).join(",")},${good}`;
      expect(await verifySignature(many, SECRET, BODY, T)).toEqual({ ok: false, reason: "malformed" });
      // Unparseable v1 entries count too: they cannot be used to pad a header past the cap either.
      const padded = `t=${T},v1=x,v1=y,v1=z,${good}`;
      expect(await verifySignature(padded, SECRET, BODY, T)).toEqual({ ok: false, reason: "malformed" });
      expect(sign).not.toHaveBeenCalled();
    });

    it("computes one HMAC over the body however many candidates (up to the cap) it compares", async () => {
      const sign = vi.spyOn(crypto.subtle, "sign");
      const verify = vi.spyOn(crypto.subtle, "verify");
      const good = (await signPayload(SECRET, T, BODY)).split(",")[1]!;
      sign.mockClear();
      const junk = `v1=${"cd".repeat(32)}`;
      for (const header of [`t=${T},${junk},${junk},${junk}`, `t=${T},${junk},${junk},${good}`, `t=${T},${good}`]) {
        sign.mockClear();
        await verifySignature(header, SECRET, BODY, T);
        expect(sign, header).toHaveBeenCalledTimes(1);
      }
      expect(verify).not.toHaveBeenCalled();
      expect(await verifySignature(`t=${T},${junk},${junk},${good}`, SECRET, BODY, T)).toEqual({ ok: true, timestamp: T });
      expect(await verifySignature(`t=${T},${junk},${good},${junk}`, SECRET, BODY, T)).toEqual({ ok: true, timestamp: T });
    });

    it("a candidate that differs in its last byte only is a mismatch", async () => {
      const header = await signPayload(SECRET, T, BODY);
      const last = header.slice(-2);
      const flipped = header.slice(0, -2) + (last === "00" ? "01" : "00");
      expect(await verifySignature(flipped, SECRET, BODY, T)).toEqual({ ok: false, reason: "mismatch" });
    });
  });
});
