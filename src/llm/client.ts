import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { z } from "zod";
import repairTemplate from "../../prompts/json-repair.md";
import { Semaphore, SemaphoreTimeoutError } from "../core/semaphore";
import { estimateTokens } from "../core/lexical";
import { extractJson, JsonExtractError } from "../core/tolerant-json";
import { fenceData, renderTemplate } from "../core/prompt-template";
import { fieldErrors, type FieldError } from "../core/errors";
import type { Logger } from "../core/logger";
import { LlmOutputError, LlmUnavailableError } from "./errors";
import { dropNullOptionals, promptJsonSchema, strictJsonSchema } from "./json-schema";
import { MAX_HONOURED_RETRY_AFTER_MS, retryAfterMs, retryDelayMs } from "../adapters/openai-retry";
import { costUsd, modelFor, type LlmRole, type LlmSettings } from "./settings";
import type { BudgetGuard, CallOpening, LedgerRecorder } from "./types";
import type { CallSettlement, OpenCall } from "../core/metered-call";
import { traceHeaders } from "../trace";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Tokens and estimated cost of one call, or of all calls behind one `structured` result. */
export interface LlmUsage {
  model: string;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

export interface ChatRequest {
  role: LlmRole;
  /** Written to the usage ledger, e.g. `live-extract`. */
  purpose: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Overrides the role's configured model for this call (a practice run's own policy model). */
  model?: string;
  /** Sampling seed for providers that honour it, so a practice run's rollouts can be reproduced. */
  seed?: number;
}

export interface StructuredRequest<T> extends ChatRequest {
  schema: z.ZodType<T>;
  /** The `response_format.json_schema.name`: letters, digits, `_` and `-`, at most 64. */
  schemaName: string;
}

export interface ChatResult {
  text: string;
  usage: LlmUsage;
}

export interface StructuredResult<T> {
  data: T;
  usage: LlmUsage;
  /** True when the first answer failed and the repair call's answer was used. */
  repaired: boolean;
}

export interface LlmClientDeps {
  tenantId: string;
  agentId?: string | null;
  recorder: LedgerRecorder;
  budget: BudgetGuard;
  /** Defaults to the global fetch, looked up at call time (so tests can intercept it). */
  fetch?: (url: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  logger?: Pick<Logger, "warn" | "error">;
  /** Defaults to the isolate-wide semaphore for `settings.maxConcurrency`. */
  semaphore?: Semaphore;
  /**
   * Longest wait for one of the isolate's LLM slots before the call fails as unavailable
   * (retryable, `saturated`). Default DEFAULT_SLOT_WAIT_MS; a request that can do without the
   * answer (the review before a write) waits less.
   */
  maxWaitMs?: number;
}

export { MAX_HONOURED_RETRY_AFTER_MS } from "../adapters/openai-retry";

export const DEFAULT_SLOT_WAIT_MS = 30_000;

const semaphores = new Map<number, Semaphore>();
/** One semaphore per isolate (per configured limit): bounds concurrent LLM calls across requests. */
export function isolateSemaphore(limit: number): Semaphore {
  let s = semaphores.get(limit);
  if (!s) semaphores.set(limit, (s = new Semaphore(limit)));
  return s;
}

const SCHEMA_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** Output tokens reserved for a call that sets no maxTokens, until its answer says how many it used. */
export const DEFAULT_OUTPUT_RESERVATION = 1024;

/** The call's ledger row, opened now; a recorder without two phases gets one `record` per answered call. */
async function openCall(recorder: LedgerRecorder, call: CallOpening): Promise<OpenCall> {
  if (recorder.open) return recorder.open(call);
  const { callId: _callId, estimate: _estimate, ...entry } = call;
  return {
    settle: async (o) =>
      o.failed ? undefined : recorder.record({ ...entry, tokensIn: o.tokensIn, tokensOut: o.tokensOut, costUsd: o.costUsd }),
  };
}

/**
 * A call that ended in an error. An error answer carries no usage and is not billed: 0 tokens. A
 * timeout keeps the estimate: the provider may have done the work without our seeing the answer.
 */
function failedSettlement(e: unknown, estimate: CallOpening["estimate"]): CallSettlement {
  if (e instanceof APIConnectionTimeoutError) return { ...estimate, estimated: true, failed: true };
  return { tokensIn: 0, tokensOut: 0, costUsd: 0, estimated: false, failed: true };
}

interface Completion {
  text: string;
  refusal: string | null;
  finishReason: string | null;
  usage: LlmUsage;
}

type ResponseFormat = ChatCompletionCreateParamsNonStreaming["response_format"];

/**
 * The LLM port, over any OpenAI-compatible chat completions endpoint (OpenAI, DeepSeek, vLLM,
 * Ollama, AI Gateway, Workers AI's compatible endpoint) through the official `openai` package.
 */
export class LlmClient {
  private readonly openai: OpenAI;
  private readonly semaphore: Semaphore;

  constructor(
    readonly settings: LlmSettings,
    private readonly deps: LlmClientDeps,
  ) {
    const doFetch = deps.fetch ?? ((url: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(url, init));
    // The client's own retries are off: each attempt is a call of its own here (see `send`), with
    // its own ledger row, so every attempt the provider may bill is counted and passes the budget.
    // `timeout` applies to each attempt.
    this.openai = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey,
      maxRetries: 0,
      timeout: settings.timeoutMs,
      fetch: async (url: RequestInfo | URL, init?: RequestInit) => capRetryAfter(await doFetch(url, init)),
    });
    this.semaphore = deps.semaphore ?? isolateSemaphore(settings.maxConcurrency);
  }

  modelFor(role: LlmRole): string {
    return modelFor(this.settings, role);
  }

  /** Free-text completion. */
  async chat(req: ChatRequest): Promise<ChatResult> {
    const c = await this.complete(req, req.purpose, req.messages, undefined);
    return { text: c.text, usage: c.usage };
  }

  /**
   * A completion parsed into `schema`: tolerant JSON extraction, strict zod validation, and at most
   * one repair call that shows the model its answer and the validation error. Throws LlmOutputError
   * when the repaired answer fails too.
   */
  async structured<T>(req: StructuredRequest<T>): Promise<StructuredResult<T>> {
    if (!SCHEMA_NAME_RE.test(req.schemaName)) throw new TypeError(`schemaName must match ${SCHEMA_NAME_RE}, got '${req.schemaName}'`);
    const mode = this.settings.structuredOutput;
    const strict = mode === "json_schema" ? strictJsonSchema(req.schema, req.schemaName) : null;
    const schemaText = promptJsonSchema(req.schema);
    const format: ResponseFormat =
      strict !== null
        ? { type: "json_schema", json_schema: { name: req.schemaName, strict: true, schema: strict.schema } }
        : mode === "json_object"
          ? { type: "json_object" }
          : undefined;
    // With json_schema the provider enforces the shape; the other modes have to ask for it in words.
    const messages = strict ? req.messages : withSchemaInstruction(req.messages, req.schemaName, schemaText);

    const validate = (text: string): { ok: true; data: T } | { ok: false; error: string; issues: FieldError[] } => {
      let value: unknown;
      try {
        value = extractJson(text);
      } catch (e) {
        // The extractor quotes the head of the output; the answer is shown fenced anyway, so keep only the reason.
        const reason = e instanceof JsonExtractError ? e.message.replace(/\s*Output began:[\s\S]*$/, "") : String(e);
        return { ok: false, error: reason, issues: [{ path: "", message: reason, code: "invalid_json" }] };
      }
      if (strict?.nullableOptionals) value = dropNullOptionals(value, strict.nullableOptionals);
      const r = req.schema.safeParse(value);
      if (r.success) return { ok: true, data: r.data };
      const issues = fieldErrors(r.error.issues);
      return {
        ok: false,
        error: ["The JSON does not match the schema:", ...issues.map((i) => `- ${i.path || "(root)"}: ${i.message}`)].join("\n"),
        issues,
      };
    };

    const first = await this.complete(req, req.purpose, messages, format);
    if (first.refusal) throw refused(req.schemaName, first);
    const checked = validate(first.text);
    if (checked.ok) return { data: checked.data, usage: first.usage, repaired: false };

    const repairPrompt = renderTemplate(repairTemplate, {
      error: checked.error,
      answer: fenceData("previous answer", first.text),
      schema: "```json\n" + schemaText + "\n```",
    });
    // The repair call is self-contained (the template carries the answer, the error and the schema)
    // rather than replaying the original conversation, which may be long.
    const second = await this.complete(
      req,
      `${req.purpose}:repair`,
      [
        { role: "system", content: "You correct JSON answers so that they match a given JSON Schema. Reply with JSON only." },
        { role: "user", content: repairPrompt },
      ],
      format,
    );
    const usage = addUsage(first.usage, second.usage);
    if (second.refusal) throw refused(req.schemaName, second, 2);
    const rechecked = validate(second.text);
    if (rechecked.ok) return { data: rechecked.data, usage, repaired: true };
    const cutOff = second.finishReason === "length" ? " The answer was cut off at the token limit; raise maxTokens." : "";
    throw new LlmOutputError(
      `The model's answer for '${req.schemaName}' did not match the schema, also after one repair call: ${rechecked.error.replace(/\n/g, " ")}${cutOff}`,
      { schemaName: req.schemaName, issues: rechecked.issues, answer: second.text, calls: 2 },
    );
  }

  /**
   * One chat completion: a slot (bounded wait), the budget check, then each attempt's ledger row
   * opened at an estimate (where the budget holds), the attempt, its row settled with the provider's usage.
   */
  private async complete(req: ChatRequest, purpose: string, messages: ChatMessage[], format: ResponseFormat): Promise<Completion> {
    const { tenantId, agentId = null } = this.deps;
    const model = req.model ?? this.modelFor(req.role);
    const body: ChatCompletionCreateParamsNonStreaming = {
      model,
      messages,
      // max_tokens rather than max_completion_tokens: it is what vLLM, Ollama and DeepSeek accept.
      ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
      ...(format ? { response_format: format } : {}),
    };
    const promptTokens = estimateTokens(messages.map((m) => m.content).join("\n"));
    const reserveOut = req.maxTokens ?? DEFAULT_OUTPUT_RESERVATION;
    const estimate = { tokensIn: promptTokens, tokensOut: reserveOut, costUsd: costUsd(this.settings, model, promptTokens, reserveOut) };
    const slot = { timeoutMs: this.deps.maxWaitMs ?? DEFAULT_SLOT_WAIT_MS };
    // The budget is checked inside the semaphore, just before the request: a call waiting for a slot
    // is not in flight, and what others spent meanwhile counts.
    const completion = await this.semaphore
      .run(async () => {
        await this.deps.budget.assertWithinBudget(tenantId);
        return this.send(body, { tenantId, agentId, purpose, role: req.role, model }, estimate);
      }, slot)
      .catch((e: unknown) => {
        if (!(e instanceof SemaphoreTimeoutError)) throw e;
        throw new LlmUnavailableError(`This isolate's ${e.limit} LLM slots stayed busy for ${e.waitedMs} ms; no call was made.`, {
          retryable: true,
          saturated: true,
          attempts: 0,
          cause: e,
        });
      });

    const choice = completion.answer.choices?.[0];
    const text = choice?.message?.content ?? "";
    const reported = completion.answer.usage;
    // Providers that send no `usage` still count against the budget, at the shared rough estimate.
    const tokensIn = reported?.prompt_tokens ?? promptTokens;
    const tokensOut = reported?.completion_tokens ?? estimateTokens(text);
    // Price by the model we asked for: the table is keyed by configured names, and providers
    // often answer with a dated or aliased variant.
    const cost = costUsd(this.settings, model, tokensIn, tokensOut);
    await this.settleQuietly(
      completion.call,
      {
        tokensIn,
        tokensOut,
        costUsd: cost,
        estimated: reported?.prompt_tokens === undefined || reported?.completion_tokens === undefined,
        failed: false,
      },
      { tenantId, purpose, model },
    );
    return {
      text,
      refusal: choice?.message?.refusal ?? null,
      finishReason: choice?.finish_reason ?? null,
      usage: { model, calls: 1, tokensIn, tokensOut, costUsd: cost },
    };
  }

  /**
   * Sends a request, retrying what may pass (408, 409, 429, 5xx, connection errors and timeouts, as
   * the openai client would: `retry-after-ms` / `Retry-After` when the server sends one, else 0.5 s
   * doubling to 8 s with 25 % jitter; `x-should-retry` decides when present) up to `maxRetries`
   * times. Each attempt opens its own ledger row just before it goes out (a call waiting for a slot
   * or a backoff is not in flight), so a budget spent meanwhile stops the retries; a row that cannot
   * be written fails the attempt before it is made: no attempt goes unrecorded.
   */
  private async send(
    body: ChatCompletionCreateParamsNonStreaming,
    about: Omit<CallOpening, "callId" | "estimate">,
    estimate: CallOpening["estimate"],
  ): Promise<{ call: OpenCall; answer: OpenAI.ChatCompletion }> {
    for (let attempt = 0; ; attempt++) {
      const callId = crypto.randomUUID();
      const call = await openCall(this.deps.recorder, { ...about, callId, estimate });
      try {
        return {
          call,
          answer: await this.openai.chat.completions.create(body, { headers: { "X-Client-Request-Id": callId, ...traceHeaders() } }),
        };
      } catch (e) {
        await this.settleQuietly(call, failedSettlement(e, estimate), about);
        const wait = attempt < this.settings.maxRetries ? retryDelayMs(e, attempt) : null;
        if (wait === null) throw this.unavailable(e, about.model, attempt + 1);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /** The tokens are spent either way; losing the answer (or the error) as well would only make it worse. */
  private async settleQuietly(
    call: OpenCall,
    outcome: CallSettlement,
    about: { tenantId: string; purpose: string; model: string },
  ): Promise<void> {
    try {
      await call.settle(outcome);
    } catch (e) {
      const log = this.deps.logger ?? console;
      log.error("usage ledger write failed", {
        ...about,
        tokensIn: outcome.tokensIn,
        tokensOut: outcome.tokensOut,
        err: e instanceof Error ? e.message : String(e),
      });
    }
  }

  private unavailable(e: unknown, model: string, attempts: number): unknown {
    const where = `the LLM endpoint (${this.settings.baseUrl}, model '${model}')`;
    if (e instanceof APIConnectionTimeoutError) {
      return new LlmUnavailableError(
        `${where} timed out (${this.settings.timeoutMs} ms per attempt, ${attempts} attempt${attempts === 1 ? "" : "s"}).`,
        {
          retryable: true,
          attempts,
          cause: e,
        },
      );
    }
    if (e instanceof APIConnectionError) {
      return new LlmUnavailableError(`Could not connect to ${where} after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${e.message}`, {
        retryable: true,
        attempts,
        cause: e,
      });
    }
    if (e instanceof APIError && e.status !== undefined) {
      const status = e.status;
      const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
      const hint =
        status === 401 || status === 403
          ? " Check LLM_API_KEY."
          : status === 404
            ? " Check LLM_BASE_URL and the model name."
            : status === 400 && /response_format|json_schema/i.test(e.message)
              ? " The provider may not support this structured output mode; try LLM_STRUCTURED_OUTPUT=json_object or prompt."
              : "";
      return new LlmUnavailableError(
        `${where} answered ${status} (${attempts} attempt${attempts === 1 ? "" : "s"}): ${e.message}.${hint}`,
        {
          status,
          retryable,
          attempts,
          cause: e,
        },
      );
    }
    return e;
  }
}

function withSchemaInstruction(messages: ChatMessage[], schemaName: string, schemaText: string): ChatMessage[] {
  const instruction = [
    `Answer with a single JSON value (${schemaName}) that matches this JSON Schema:`,
    "```json",
    schemaText,
    "```",
    "Reply with the JSON only: no Markdown fence, no explanation before or after it.",
  ].join("\n");
  const [head, ...rest] = messages;
  if (head?.role === "system") return [{ role: "system", content: `${head.content}\n\n${instruction}` }, ...rest];
  return [{ role: "system", content: instruction }, ...messages];
}

export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    model: a.model,
    calls: a.calls + b.calls,
    tokensIn: a.tokensIn + b.tokensIn,
    tokensOut: a.tokensOut + b.tokensOut,
    costUsd: a.costUsd + b.costUsd,
  };
}

function refused(schemaName: string, c: Completion, calls = 1): LlmOutputError {
  return new LlmOutputError(`The model refused to answer '${schemaName}': ${c.refusal}`, {
    schemaName,
    issues: [{ path: "", message: `refusal: ${c.refusal}`, code: "refusal" }],
    answer: c.text,
    calls,
  });
}

/** Marks a response whose Retry-After exceeds MAX_HONOURED_RETRY_AFTER_MS as not to be retried. */
function capRetryAfter(res: Response): Response {
  if (res.ok) return res;
  const ms = retryAfterMs(res.headers);
  if (ms === null || ms <= MAX_HONOURED_RETRY_AFTER_MS) return res;
  const headers = new Headers(res.headers);
  headers.set("x-should-retry", "false");
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
