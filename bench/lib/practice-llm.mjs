// A fake OpenAI-compatible LLM for practice runs, shared by the crash bench and the crash test. It
// answers each stage in its schema (rollouts right for some tasks, depending on the sampling seed
// for others, so groups differ and the learning stages run) and keeps every request it received:
// a request received is a call made, whether or not its answer got back to the caller.
import { createHash } from "node:crypto";
import http from "node:http";

const tokens = (chars) => Math.max(1, Math.ceil(chars / 4));
const stageOf = (body) => body?.response_format?.json_schema?.name ?? "rollout";

/** The answer a real model would give at `stage`; rollouts of task i answer `1000 + i` when right. */
function reply(stage, body) {
  const prompt = (body.messages ?? []).map((m) => String(m.content ?? "")).join("\n");
  if (stage === "rollout") {
    const i = Number(/Task (\d+)\./.exec(String(body.messages?.at(-1)?.content ?? ""))?.[1] ?? 0);
    const right = i % 3 === 0 || (i % 3 === 1 && (Number(body.seed ?? 0) >>> 3) % 2 === 0);
    return `Working.\nFinal answer: ${right ? 1000 + i : 999 + i}`;
  }
  if (stage === "attempt_summaries")
    return JSON.stringify({
      summaries: Array.from({ length: (prompt.match(/^### Attempt \d+/gm) ?? []).length }, (_, k) => `Attempt ${k} added directly.`),
    });
  if (stage === "group_advantage")
    return JSON.stringify({
      analysis: "Right ones checked.",
      operations: [{ op: "add", target: "", text: "Check the sum once more before answering.", reason: "wrong ones skipped it" }],
    });
  if (stage === "batch_plan")
    return JSON.stringify({
      reasoning: "One lesson.",
      operations: [{ op: "add", targets: [], text: "Check the sum once more before answering.", reason: "proposed" }],
    });
  if (stage === "safety_review")
    return JSON.stringify({
      verdicts: Array.from({ length: (prompt.match(/^\d+\.$/gm) ?? []).length }, (_, index) => ({
        index,
        safe: true,
        category: "safe",
        reason: "ordinary",
      })),
    });
  return "{}";
}

/** The practice tasks the fake answers: `Task i. What is i + 1000?`, ground truth 1000 + i. */
export const practiceTasks = (n) =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    task: `Task ${i}. What is ${i} + 1000?`,
    groundTruth: String(1000 + i),
    split: "train",
  }));

/**
 * Starts the fake on 127.0.0.1 (`port`, or one the OS picks). Each answer takes `latencyMs`;
 * `reply(stage, body)` (stage: the response schema's name, or "rollout") writes it, by default the script above.
 * `holdWhen(predicate)`: from the first request the predicate accepts, every request is held
 * unanswered (the runtime can be killed with calls in flight) until `release()`, which answers the
 * held requests whose caller is still connected and lets later ones through.
 */
export function startPracticeLlm({ port = 0, latencyMs = 5, reply: answerOf = reply } = {}) {
  /** Every request received, in order: its X-Client-Request-Id, stage, a hash of its body, and whether it was cut off. */
  const received = [];
  const answered = { calls: 0, tokens: 0 };
  let holdPredicate = null;
  let held = null; // requests held since the hold began, while it lasts
  let onHold = null;
  let lastArrival = Date.now();

  const answer = (entry, body, res) => {
    const content = answerOf(entry.stage, body);
    const promptChars = (body.messages ?? []).reduce((n, m) => n + String(m.content ?? "").length, 0);
    const usage = { prompt_tokens: tokens(promptChars), completion_tokens: tokens(content.length) };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "fake",
        choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop" }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
      () => {
        answered.calls++;
        answered.tokens += usage.prompt_tokens + usage.completion_tokens;
      },
    );
  };

  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString("utf8") || "{}");
      const entry = {
        callId: req.headers["x-client-request-id"] ?? null,
        stage: stageOf(body),
        key: createHash("sha256").update(raw).digest("hex"),
        cutOff: false,
      };
      received.push(entry);
      lastArrival = Date.now();
      if (held === null && holdPredicate?.(entry, received.length - 1)) {
        held = [];
        holdPredicate = null;
        onHold?.();
      }
      if (held !== null) return void held.push({ entry, body, res, req });
      setTimeout(() => {
        if (res.destroyed || req.socket.destroyed) entry.cutOff = true;
        else answer(entry, body, res);
      }, latencyMs);
    });
  });

  return new Promise((resolve) =>
    srv.listen(port, "127.0.0.1", () =>
      resolve({
        baseUrl: `http://127.0.0.1:${srv.address().port}/v1`,
        port: srv.address().port,
        received,
        answered,
        /** Milliseconds since the last request arrived. */
        quietMs: () => Date.now() - lastArrival,
        holdWhen(predicate) {
          holdPredicate = predicate;
          return new Promise((r) => (onHold = r));
        },
        /**
         * Ends the hold. Returns the held requests whose caller is gone (`cutOff`: a killed runtime's
         * calls) and those answered now because their caller is still there (`passed`).
         */
        release() {
          const cutOff = [];
          const passed = [];
          for (const h of held ?? []) {
            if (h.res.destroyed || h.req.socket.destroyed) {
              h.entry.cutOff = true;
              cutOff.push(h.entry);
            } else {
              passed.push(h.entry);
              answer(h.entry, h.body, h.res);
            }
          }
          held = null;
          return { cutOff, passed };
        },
        close: () => new Promise((r) => (srv.closeAllConnections?.(), srv.close(() => r()))),
      }),
    ),
  );
}
