import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { int8ScanWasm } from "../../src/core/int8-scan-wasm";

// The Worker imports the built file; the generator is what reviewers read. `npm run build:scan-wasm` rewrites the file.
describe("int8 scan kernel", () => {
  it("the committed .wasm is exactly what its generator writes", () => {
    const built = new Uint8Array(readFileSync(new URL("../../src/adapters/vector-indexes/int8-scan.wasm", import.meta.url)));
    expect(WebAssembly.validate(built)).toBe(true);
    expect(Buffer.from(built).equals(Buffer.from(int8ScanWasm()))).toBe(true);
  });
});
