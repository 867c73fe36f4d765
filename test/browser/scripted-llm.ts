import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An OpenAI-compatible chat endpoint on 127.0.0.1 for the Worker under wrangler dev, answering each
 * practice stage by the json_schema name it asks for (rollouts ask for none). Every answer waits
 * `delayMs`, so a run lasts long enough for a page to watch it move.
 */
export async function startScriptedLlm(delayMs: number) {
  const reply = (body: any): string => {
    const name: string | null = body?.response_format?.json_schema?.name ?? null;
    const prompt = (body.messages ?? []).map((m: { content: unknown }) => String(m.content ?? "")).join("\n");
    const seed = Number(body.seed ?? 0);
    switch (name) {
      case null:
        return `Adding carefully.\nFinal answer: ${seed % 3 === 0 ? "41" : "42"}`;
      case "attempt_summaries":
        return JSON.stringify({
          summaries: (prompt.match(/^### Attempt \d+/gm) ?? []).map((_: string, i: number) => `Attempt ${i} added the numbers.`),
        });
      case "group_advantage":
        return JSON.stringify({
          analysis: "The right attempts re-checked the sum.",
          operations: [
            {
              op: "add",
              target: "",
              text: `Re-check the sum before answering (${/What is [^?]*\?/.exec(prompt)?.[0] ?? "task"}).`,
              reason: "wrong attempts skipped it",
            },
          ],
        });
      case "batch_plan": {
        // The proposals arrive as fenced JSON blocks, one per task.
        const blocks = [...prompt.matchAll(/DATA \(proposals for task [^)]*\)[^\n]*\n(`{3,})text\n([\s\S]*?)\n\1/g)];
        const texts = blocks.flatMap((m) => (JSON.parse(m[2]!) as { text: string }[]).map((p) => p.text));
        const ops = [...new Set(texts)].slice(0, 2).map((text) => ({ op: "add", targets: [], text, reason: "new" }));
        return JSON.stringify({ reasoning: "Kept each new lesson once.", operations: ops });
      }
      case "safety_review": {
        const n = (prompt.match(/^\d+\.$/gm) ?? []).length;
        return JSON.stringify({
          verdicts: Array.from({ length: n }, (_, index) => ({ index, safe: true, category: "safe", reason: "ordinary advice" })),
        });
      }
      case "practice_judgement":
        return JSON.stringify({ verdict: "CORRECT", score: 1, reasoning: "matches the reference" });
      default:
        return "{}";
    }
  };
  const calls: (string | null)[] = [];
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        /* answered as an unknown request below */
      }
      calls.push(body?.response_format?.json_schema?.name ?? null);
      setTimeout(() => {
        const content = body ? reply(body) : "{}";
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: `chatcmpl-${calls.length}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body?.model ?? "scripted",
            choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
            // A real agent's prompt (system prompt, library, task) runs to thousands of tokens: usage
            // figures reach the sizes the dashboard must show in production.
            usage: { prompt_tokens: 2500, completion_tokens: 20, total_tokens: 2520 },
          }),
        );
      }, delayMs);
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))),
  };
}
