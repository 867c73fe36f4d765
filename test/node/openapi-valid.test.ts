import { Validator } from "@seriousme/openapi-schema-validator";
import { expect, inject, it } from "vitest";

// The validator compiles JSON Schema with ajv (code generation) and reads its schemas from disk,
// neither of which workerd allows, so it checks the live document from Node.
it("/openapi.json is a valid OpenAPI 3.1 document", async () => {
  const { url } = inject("localWorker");
  const doc = await (await fetch(`${url}/openapi.json`)).json();
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(validator.version).toBe("3.1");
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});
