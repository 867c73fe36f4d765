import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startLocalWorker } from "./local-worker";

declare module "vitest" {
  export interface ProvidedContext {
    localWorker: { url: string; adminKey: string };
    /** The fake OpenAI-compatible endpoint the Worker uses (every completion is "42"). */
    llmBaseUrl: string;
  }
}

/**
 * The network edge of the shared Worker: an OpenAI-compatible endpoint whose chat completions
 * answer "42" (the safety review aside). Practice runs and evaluations on tasks whose ground truth is 42 then complete
 * with reward 1 and no learning calls (groups that all score the same are not summarised).
 */
/**
 * "42", except for the safety review of written lessons, which a real model answers in its schema:
 * every numbered candidate ("0.", "1.", …) judged ordinary advice.
 */
function answer(raw: string): string {
  const body = JSON.parse(raw) as { response_format?: { json_schema?: { name?: string } }; messages: { content: string }[] };
  if (body.response_format?.json_schema?.name !== "safety_review") return "42";
  const prompt = body.messages.map((m) => m.content).join("\n");
  const n = (prompt.match(/^\d+\.$/gm) ?? []).length;
  return JSON.stringify({
    verdicts: Array.from({ length: n }, (_, index) => ({ index, safe: true, category: "safe", reason: "ordinary advice" })),
  });
}

function startFakeLlm(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "chatcmpl-test",
          object: "chat.completion",
          created: 0,
          model: "fake-42",
          choices: [{ index: 0, message: { role: "assistant", content: answer(raw), refusal: null }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
      }),
    ),
  );
}

/** One Worker for every Node-side test file: starting wrangler dev costs seconds of both cores. */
export default async function setup(project: TestProject) {
  const llm = await startFakeLlm();
  const worker = await startLocalWorker({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "fake-42", LLM_API_KEY: "sk-test-not-real" }).catch(
    async (err) => {
      await llm.close();
      throw err;
    },
  );
  project.provide("localWorker", { url: worker.url, adminKey: worker.adminKey });
  project.provide("llmBaseUrl", llm.baseUrl);
  return async () => {
    await worker.stop();
    await llm.close();
  };
}
