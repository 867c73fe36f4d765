// `npm run build:scan-wasm`: writes the int8 scan kernel's bytes (src/core/int8-scan-wasm.ts) to
// the .wasm file the Worker imports; Workers cannot compile WebAssembly from bytes at run time.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { int8ScanWasm } from "../src/core/int8-scan-wasm.ts";

const target = fileURLToPath(new URL("../src/adapters/vector-indexes/int8-scan.wasm", import.meta.url));
writeFileSync(target, int8ScanWasm());
console.log(`wrote ${target}`);
