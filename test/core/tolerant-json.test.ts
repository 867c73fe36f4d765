import { describe, expect, it } from "vitest";
import { extractJson, JsonExtractError, stripTrailingCommas } from "../../src/core/tolerant-json";

describe("extractJson", () => {
  it("parses plain JSON, including scalars", () => {
    expect(extractJson('{"a":1,"b":[true,null]}')).toEqual({ a: 1, b: [true, null] });
    expect(extractJson("  42 ")).toBe(42);
  });

  it("strips a byte-order mark", () => {
    expect(extractJson('\uFEFF{"ok":true}')).toEqual({ ok: true });
  });

  it("takes a ```json fenced block from surrounding prose", () => {
    const text = 'Sure! Here is the result:\n\n```json\n{"pattern": "retry on 429", "keywords": ["rate-limit"]}\n```\nLet me know.';
    expect(extractJson(text)).toEqual({ pattern: "retry on 429", keywords: ["rate-limit"] });
  });

  it("prefers the json-labelled fence over an earlier unlabelled one", () => {
    const text = 'Example input:\n```\n{"example": true}\n```\nAnswer:\n```JSON\n{"answer": 1}\n```';
    expect(extractJson(text)).toEqual({ answer: 1 });
  });

  it("accepts any fence when none is labelled json", () => {
    expect(extractJson("```js\n[1, 2, 3]\n```")).toEqual([1, 2, 3]);
  });

  it("reads an unclosed json fence left by a cut-off answer", () => {
    expect(extractJson('```json\n{"a": "b"}\n')).toEqual({ a: "b" });
  });

  it("finds a balanced object in prose, ignoring brackets inside strings", () => {
    const text = 'I think {"text": "use } and { carefully", "n": [1, {"x": "]"}]} is right.';
    expect(extractJson(text)).toEqual({ text: "use } and { carefully", n: [1, { x: "]" }] });
  });

  it("handles escaped quotes inside strings when matching brackets", () => {
    expect(extractJson('result: {"q": "say \\"}\\" now"} done')).toEqual({ q: 'say "}" now' });
  });

  it("prefers the larger payload over a short bracketed aside that also parses", () => {
    const text = 'As noted in [1], the answer is {"operation": "ADD", "text": "x"}.';
    expect(extractJson(text)).toEqual({ operation: "ADD", text: "x" });
  });

  it("removes trailing commas before } and ]", () => {
    expect(extractJson('{"a": [1, 2,], "b": {"c": 3,},}')).toEqual({ a: [1, 2], b: { c: 3 } });
    expect(extractJson('Here:\n```json\n{"k": ["v",\n  ],\n}\n```')).toEqual({ k: ["v"] });
  });

  it("keeps commas that are inside strings", () => {
    expect(stripTrailingCommas('{"a": ",}", "b": ",]",}')).toBe('{"a": ",}", "b": ",]"}');
    expect(extractJson('{"a": "x,}"}')).toEqual({ a: "x,}" });
  });

  it("throws JsonExtractError with a helpful message", () => {
    expect(() => extractJson("")).toThrow(JsonExtractError);
    expect(() => extractJson("I cannot help with that.")).toThrow(/found no JSON object or array.*I cannot help/);
    expect(() => extractJson('{"a": 1, "b": ')).toThrow(/never closed/);
    expect(() => extractJson("{pattern: 'single quotes'}")).toThrow(/did not parse/);
    try {
      extractJson("nope");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JsonExtractError);
      expect((e as Error).name).toBe("JsonExtractError");
    }
  });

  it("finds JSON after many unclosed brackets (a quadratic scan would run past the test timeout)", () => {
    const text = `${"{ ".repeat(200_000)} then {"ok": true}`;
    expect(extractJson(text)).toEqual({ ok: true });
  });

  it("treats quotes in prose between spans as plain text", () => {
    expect(extractJson(`The "fix" is: {"a": 1} (don't quote me)`)).toEqual({ a: 1 });
  });
});
