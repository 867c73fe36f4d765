import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DRAIN_MAX_BYTES } from "../../src/app";
import { call, expectProblem, newTenant } from "../helpers";

const CHUNK = new Uint8Array(64 * 1024).fill(0x61);

/** A chunked upload of `chunks` × 64 KiB (endless when null) that records how it was consumed. */
function upload(chunks: number | null) {
  const seen = { pulled: 0, cancelled: null as unknown };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (chunks !== null && seen.pulled >= chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(CHUNK);
    },
    cancel(reason) {
      seen.cancelled = reason ?? "cancelled";
    },
  });
  return { body, seen };
}

const put = (apiKey: string, body: ReadableStream<Uint8Array>) =>
  SELF.fetch("http://praxis.test/v1/agents/streamed", {
    method: "PUT",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body,
  });

describe("streamed (chunked) request bodies", () => {
  it("over the limit: 413 once the upload is read to its end, and the next request succeeds", async () => {
    const t = await newTenant();
    const { body, seen } = upload(32);
    const res = await put(t.apiKey, body);
    expect(res.status).toBe(413);
    expect((await res.json<any>()).type).toBe("https://praxis.dev/problems/payload-too-large");
    // Answering mid-upload aborts the request pipe: the client sees "Network connection lost", and
    // behind wrangler dev's proxy the next request on the connection hangs.
    expect(seen.cancelled).toBeNull();
    expect(seen.pulled).toBe(32);
    expect((await call("GET", "/v1/agents", { key: t.apiKey })).status).toBe(200);
    expectProblem(await call("GET", "/v1/agents/streamed", { key: t.apiKey }), 404);

    // Reading the rest is bounded: an endless upload is answered once the drain cap is passed.
    const endless = upload(null);
    expect((await put(t.apiKey, endless.body)).status).toBe(413);
    expect(endless.seen.pulled * CHUNK.length).toBeGreaterThan(DRAIN_MAX_BYTES);
    expect(endless.seen.pulled * CHUNK.length).toBeLessThan(DRAIN_MAX_BYTES + 4 * 1_048_576);
    expect((await call("GET", "/v1/agents", { key: t.apiKey })).status).toBe(200);

    // Within the limit a streamed body reaches the route intact.
    const json = new TextEncoder().encode(JSON.stringify({ displayName: "streamed in" }));
    const small = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(json.slice(0, 5));
        controller.enqueue(json.slice(5));
        controller.close();
      },
    });
    const created = await put(t.apiKey, small);
    expect(created.status).toBe(201);
    expect((await created.json<any>()).displayName).toBe("streamed in");
  });
});
