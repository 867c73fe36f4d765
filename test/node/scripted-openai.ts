import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
}

/**
 * An OpenAI-compatible chat endpoint for an agent under test (not the Worker's LLM): it answers
 * the n-th completion with `answers[n]` (the last one once they run out) and keeps every request,
 * so a test can see the prompt the agent built.
 */
export async function scriptedOpenAi(answers: string[]) {
  const requests: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
      requests.push(JSON.parse(body) as ChatRequest);
      const content = answers[Math.min(requests.length, answers.length) - 1] ?? "";
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: 0,
          model: "scripted",
          choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
