import { expect, it } from "vitest";
import snapshot from "../../client/openapi.json";
import { call } from "../helpers";

// The TypeScript client (client/) is generated from this snapshot; `node scripts/gen-client.mjs
// --check` proves the generated files match it, and this proves it matches what the Worker serves.
it("client/openapi.json is the document the Worker serves (else run `npm run gen:client`)", async () => {
  const r = await call("GET", "/openapi.json");
  expect(r.status).toBe(200);
  expect(r.body, "the API changed: run `npm run gen:client` and commit client/").toEqual(snapshot);
});
