import { requestId } from "hono/request-id";
import { methodNotAllowed } from "hono/method-not-allowed";
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import type { AppEnv } from "./env";
import { OPENAPI_DOCUMENT, router } from "./http/openapi";
import { createLogger } from "./core/logger";
import { withSpan } from "./trace";
import { formatTraceparent } from "./core/trace-context";
import { requireOperator, requireTenantKey } from "./http/auth";
import { internalProblem, ProblemError, problemResponse, toProblem } from "./doors/problem";
import { renderDocsPage } from "./http/docs-page";
import { checkRequest, limitJsonDepth } from "./http/input-guards";
import { registerRoutes } from "./routes";
import { dashboardRoutes } from "./dashboard/routes";
import { DEPLOYMENT_VARIABLES, variableProblems, variables } from "./config";
import { DATASET_TASKS_PATH_RE, DATASET_UPLOAD_MAX_BYTES, DATASET_UPLOAD_PATH_RE, NDJSON_TYPE_RE } from "./core/practice/dataset-types";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH"]);
const maxBodyBytes = (env: AppEnv["Bindings"]) => variables(env).MAX_BODY_BYTES;

const respondProblem = (c: Context<AppEnv>, p: ProblemError) => problemResponse(p, c.req.path, c.get("requestId") ?? "unknown");

/**
 * How much of a rejected streamed upload is read and dropped before giving up on it: Cloudflare's
 * own request-size cap, so in production the edge has cut the upload off before this is reached.
 */
export const DRAIN_MAX_BYTES = 100 * 1_048_576;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let drained = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    drained += value.byteLength;
    if (drained > DRAIN_MAX_BYTES) return reader.cancel("payload too large");
  }
}

/**
 * Caps the request body. A declared Content-Length is checked up front; a streamed (chunked) body
 * is counted as it is read. Past the cap the rest of the upload is read and dropped before the 413:
 * answering while the body is still arriving (hono's bodyLimit does) or cancelling it aborts the
 * request pipe, and behind wrangler dev's proxy the next request on that connection then hangs or
 * fails with "Your worker restarted mid-request".
 */
function limitBody(maxSize: number) {
  const tooLarge = () => new ProblemError(413, "payload-too-large", `The body exceeds the ${maxSize}-byte limit.`);
  return createMiddleware<AppEnv>(async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = raw.headers.get("content-length");
    if (declared !== null && !raw.headers.has("transfer-encoding")) {
      if (Number(declared) > maxSize) throw tooLarge();
      return next();
    }
    const reader = raw.body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxSize) {
        await drain(reader);
        throw tooLarge();
      }
      parts.push(value);
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const part of parts) {
      body.set(part, offset);
      offset += part.byteLength;
    }
    c.req.raw = new Request(raw, { body });
    return next();
  });
}

/** Rejects bodies that are not JSON before any handler parses them. */
const requireJson = createMiddleware<AppEnv>(async (c, next) => {
  if (WRITE_METHODS.has(c.req.method)) {
    const length = c.req.header("content-length");
    const hasBody = length ? Number(length) > 0 : c.req.raw.body !== null;
    const type = c.req.header("content-type") ?? "";
    const ndjsonUpload = NDJSON_TYPE_RE.test(type) && DATASET_TASKS_PATH_RE.test(c.req.path);
    if (hasBody && !ndjsonUpload && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      throw new ProblemError(415, "unsupported-media-type", "Send the body as `Content-Type: application/json`.");
    }
  }
  await next();
});

/** The whole HTTP surface. Everything under /v1 is denied by default unless a key authenticates it. */
export function createApp() {
  const app = router();

  app.use(requestId({ headerName: "X-Request-Id" }));
  // The request is a span of the caller's trace (W3C traceparent) or of a new one; LLM calls and
  // queued jobs carry it on (src/trace.ts), and the answer names it so the caller can find the logs.
  app.use((c, next) =>
    withSpan(c.req.header("traceparent"), async (span) => {
      const logger = createLogger(
        { requestId: c.get("requestId"), traceId: span.traceId, spanId: span.spanId },
        variables(c.env).LOG_LEVEL,
      );
      c.set("logger", logger);
      const started = Date.now();
      await next();
      c.header("traceparent", formatTraceparent(span));
      c.get("logger").info("request", {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Date.now() - started,
      });
    }),
  );
  // A deployment whose own variables cannot be read (src/config.ts) answers nothing else until they are fixed.
  app.use(async (c, next) => {
    const problems = variableProblems(c.env, DEPLOYMENT_VARIABLES);
    if (problems.length === 0) return next();
    c.get("logger").error("invalid configuration", { problems });
    throw new ProblemError(
      503,
      "service-unavailable",
      `The deployment's variables are invalid: ${problems.join("; ")}. Fix them and redeploy.`,
      { problems },
    );
  });
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        respondProblem(
          c,
          new ProblemError(405, "method-not-allowed", `${c.req.method} is not supported here; use ${methods.join(", ")}.`, {
            headers: { allow: methods.join(", ") },
          }),
        ),
    }),
  );
  for (const path of ["/v1/*", "/mcp"]) app.use(path, checkRequest);
  app.use("/v1/*", (c, next) => {
    const global = maxBodyBytes(c.env);
    return limitBody(DATASET_UPLOAD_PATH_RE.test(c.req.path) ? Math.max(global, DATASET_UPLOAD_MAX_BYTES) : global)(c, next);
  });
  app.use("/v1/*", requireJson);
  app.use("/v1/*", async (c, next) => {
    if (c.req.path === "/v1/tenants" || c.req.path.startsWith("/v1/tenants/")) return requireOperator(c, next);
    if (c.req.path.startsWith("/v1/hooks/")) return next();
    return requireTenantKey(c, next);
  });
  // After authentication, so only a known key (or, for hooks, a body under the size cap) is read.
  app.use("/v1/*", limitJsonDepth);

  registerRoutes(app);
  // Loaded on first use: evaluating the MCP SDK costs about as much start-up time as zod itself,
  // which REST requests on a cold isolate should not pay.
  app.all(
    "/mcp",
    requireTenantKey,
    (c, next) => limitBody(maxBodyBytes(c.env))(c, next),
    limitJsonDepth,
    async (c) => (await import("./mcp/server")).serveMcp(c, maxBodyBytes(c.env)),
  );

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A tenant API key (`pxk_…`), or the operator key for the /v1/tenants routes",
  });
  app.doc31("/openapi.json", OPENAPI_DOCUMENT);
  app.get("/docs", (c) => c.html(renderDocsPage(app.getOpenAPI31Document(OPENAPI_DOCUMENT))));
  app.route("/", dashboardRoutes);

  app.notFound((c) => respondProblem(c, new ProblemError(404, "not-found", `No route for ${c.req.method} ${c.req.path}.`)));
  app.onError((err, c) => {
    const p = toProblem(err) ?? internalProblem();
    if (p.status === 500) {
      c.get("logger")?.error("unhandled error", { err: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
    return respondProblem(c, p);
  });
  return app;
}

export type App = ReturnType<typeof createApp>;
