import { describe, expect, it } from "vitest";
import { fromBase64url, toBase64url, toHex } from "../../src/core/encoding";
import { chunks } from "../../src/core/chunks";
import { decodeCursor, encodeCursor, pageOf } from "../../src/core/cursor";

describe("byte encodings", () => {
  it("hex and unpadded base64url, for every byte value", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(toHex(bytes.subarray(0, 4))).toBe("00010203");
    expect(toHex(bytes.buffer.slice(254))).toBe("feff");
    const b64 = toBase64url(bytes);
    expect(b64).toMatch(/^[A-Za-z0-9_-]+$/);
    expect([...fromBase64url(b64)]).toEqual([...bytes]);
    expect(toBase64url(Uint8Array.of(0xfb, 0xff))).toBe("-_8");
  });

  it("cursors carry any text, not only Latin-1", () => {
    const value = { a: "agent-ü-€-😀", n: 3 };
    expect(decodeCursor(encodeCursor(value))).toEqual(value);
    expect(decodeCursor("%%%")).toBeNull();
  });
});

describe("chunks", () => {
  it("splits into runs of at most the size and refuses a size that would never end", () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 3)).toEqual([]);
    expect(() => chunks([1], 0)).toThrow(RangeError);
  });
});

describe("pageOf", () => {
  const rows = [{ id: "a" }, { id: "b" }, { id: "c" }];
  const cursorOf = (last: { id: string }) => ({ i: last.id });

  it("an extra row means another page, whose cursor follows the page's last item", () => {
    const page = pageOf(rows, 2, cursorOf);
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(decodeCursor(page.nextCursor!)).toEqual({ i: "b" });
  });

  it("no extra row, or no rows, means the last page", () => {
    expect(pageOf(rows, 3, cursorOf)).toEqual({ items: rows, nextCursor: null });
    expect(pageOf(rows.slice(0, 2), 2, cursorOf)).toEqual({ items: rows.slice(0, 2), nextCursor: null });
    expect(pageOf([], 2, cursorOf)).toEqual({ items: [], nextCursor: null });
  });
});
