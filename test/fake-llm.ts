import { vi } from "vitest";

export const LLM_ENV = {
  LLM_BASE_URL: "http://llm.test/v1",
  LLM_MODEL: "test-model",
  LLM_API_KEY: "sk-test-not-real",
  LLM_MAX_RETRIES: "2",
};

export interface SentRequest {
  url: string;
  body: any;
  /** The json_schema name the request asked for, when structured output was requested. */
  schemaName: string | null;
  prompt: string;
}

export type Reply = unknown | Response | ((req: SentRequest) => unknown | Response);

export function chatCompletion(content: string, usage = { prompt_tokens: 120, completion_tokens: 30 }): Response {
  return new Response(
    JSON.stringify({
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "test-model",
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );
}

export const httpError = (status: number, headers: Record<string, string> = { "retry-after-ms": "1" }) =>
  new Response(JSON.stringify({ error: { message: `upstream ${status}`, type: "server_error" } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/**
 * An OpenAI-compatible endpoint behind the global fetch, answering each request with the next
 * scripted reply (the last one repeats). Objects are sent as the assistant's JSON content. Any
 * other outbound fetch fails the test, so nothing leaves the machine.
 */
export function fakeLlm(...script: Reply[]) {
  const sent: SentRequest[] = [];
  let i = 0;
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(LLM_ENV.LLM_BASE_URL)) throw new Error(`Unexpected outbound fetch to ${url}`);
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
    const req: SentRequest = {
      url,
      body,
      schemaName: body?.response_format?.json_schema?.name ?? null,
      prompt: (body?.messages ?? []).map((m: { content: string }) => m.content).join("\n"),
    };
    sent.push(req);
    let reply = script[Math.min(i++, script.length - 1)];
    if (typeof reply === "function") reply = (reply as (r: SentRequest) => unknown)(req);
    if (reply instanceof Response) return reply.clone();
    return chatCompletion(typeof reply === "string" ? reply : JSON.stringify(reply));
  });
  return { sent, spy };
}
