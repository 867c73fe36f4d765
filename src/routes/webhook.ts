import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { router, commonErrors, jsonBody, jsonResponse } from "../http/openapi";
import { ProblemError } from "../doors/problem";
import { invalid } from "../core/errors";
import { MAX_SIGNATURE_CANDIDATES, verifySignature } from "../core/webhook-signature";
import { toHex } from "../core/encoding";
import { EpisodeSchema, SessionEndSchema } from "../core/episode-types";
import { ingestSession } from "../use-cases/agents";
import { tenantWebhookSecret } from "../platform/records/tenant-secrets";

/** How far a signature's timestamp may be from the server clock, either way. */
export const WEBHOOK_TOLERANCE_SEC = 300;

const SIGNATURE_HEADER = "x-praxis-signature";
const TENANT_HEADER = "x-praxis-tenant";
const TENANT_ID_MAX = 64;

const unauthorized = (detail: string) => new ProblemError(401, "unauthorized", detail);

/**
 * Verifying against a secret nobody knows when the tenant is unknown (or has no secret) makes
 * that case take the same path, and read the same, as a wrong signature.
 */
let decoySecret: string | undefined;
function decoy(): string {
  decoySecret ??= `whsec_decoy_${toHex(crypto.getRandomValues(new Uint8Array(32)))}`;
  return decoySecret;
}

function tenantFromBody(raw: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      const t = (parsed as Record<string, unknown>).tenantId;
      if (typeof t === "string" && t.trim() !== "") return t;
    }
  } catch {
    /* not JSON: the tenant must then come from the header */
  }
  return undefined;
}

const REASONS = {
  missing: 'Send `X-Praxis-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.',
  malformed: `The X-Praxis-Signature header must have the form \`t=<unix seconds>,v1=<64 hex chars>\`, with at most ${MAX_SIGNATURE_CANDIDATES} v1 entries.`,
  stale: `The signature timestamp is more than ${WEBHOOK_TOLERANCE_SEC} seconds away from the server clock; sign each delivery when it is sent.`,
  mismatch:
    "The signature does not verify for this tenant; sign the exact raw body with the tenant's current webhook secret (POST /v1/webhook-secret).",
} as const;

/**
 * Authenticates a session-end delivery from its raw bytes before anything parses or validates it:
 * the body is read as text once (Hono caches it, so the JSON validator that runs next parses the
 * very same bytes), the tenant is taken from X-Praxis-Tenant or else the body's `tenantId`, and the
 * signature is checked against that tenant's secret. Every failure is a 401 and nothing is stored.
 */
const verifyWebhook = createMiddleware<AppEnv>(async (c, next) => {
  const raw = await c.req.text();
  const header = c.req.header(SIGNATURE_HEADER) ?? null;
  const headerTenant = c.req.header(TENANT_HEADER)?.trim() || undefined;
  const tenantId = headerTenant ?? tenantFromBody(raw);

  let secret: string | null = null;
  if (tenantId && tenantId.length <= TENANT_ID_MAX) {
    secret = await tenantWebhookSecret(c.env, tenantId);
  }
  const nowSec = Math.floor(Date.now() / 1000);
  const result = await verifySignature(header, secret ?? decoy(), raw, nowSec, WEBHOOK_TOLERANCE_SEC);
  if (!result.ok && result.reason !== "mismatch") throw unauthorized(REASONS[result.reason]);
  if (!tenantId) {
    throw unauthorized("Name the tenant: send the X-Praxis-Tenant header, or a JSON body whose `tenantId` is a string.");
  }
  if (!result.ok || secret === null) throw unauthorized(REASONS.mismatch);
  c.get("logger")?.debug("webhook signature verified", { tenantId, t: result.timestamp });
  await next();
});

const SessionEnd = SessionEndSchema.openapi("SessionEnd");
const IngestedSession = z
  .object({
    episodeId: z.string(),
    duplicate: z.boolean().openapi({ description: "True when this session id was already ingested; nothing changed" }),
    episode: EpisodeSchema,
  })
  .openapi("IngestedSession");

/** Keys are lower-case: Hono hands the validator lower-cased header names (and HTTP ignores case). */
const headers = z.object({
  [SIGNATURE_HEADER]: z.string().openapi({
    description: 'Stripe-style signature `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; at most 5 minutes old',
    example: "t=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  }),
  [TENANT_HEADER]: z.string().optional().openapi({
    description: "The tenant whose secret signed the body; defaults to the body's `tenantId`, and must equal it when both are given",
  }),
});

const { 403: _forbidden, ...webhookErrors } = commonErrors;

export const webhookRoutes = router().openapi(
  createRoute({
    method: "post",
    path: "/v1/hooks/session-end",
    tags: ["webhooks"],
    operationId: "ingestSessionEnd",
    summary: "Ingest a finished agent session (signed webhook); idempotent per sessionId",
    description:
      "For agent platforms that post a session when it ends. Authenticated by `X-Praxis-Signature` with the tenant's " +
      "webhook secret (see `POST /v1/webhook-secret`) instead of an API key. The session becomes an episode through " +
      "the same pipeline as `POST /v1/agents/{agentId}/episodes`: its tool calls become attempts and its outcome ends it. " +
      "A session id seen before returns the first episode with `duplicate: true` and changes nothing.",
    security: [],
    middleware: [verifyWebhook] as const,
    request: { headers, ...jsonBody(SessionEnd, "The finished session") },
    responses: {
      201: jsonResponse(IngestedSession, "Ingested as a new episode"),
      200: jsonResponse(IngestedSession, "This session id was already ingested; the first episode, unchanged"),
      ...webhookErrors,
      401: {
        description: "Missing, malformed, stale or mismatched signature, or the tenant could not be identified",
        content: commonErrors[401].content,
      },
      404: { description: "The agent does not exist in the tenant", content: commonErrors[404].content },
    },
  }),
  async (c) => {
    const session = c.req.valid("json");
    const headerTenant = c.req.header(TENANT_HEADER)?.trim() || undefined;
    if (headerTenant !== undefined && session.tenantId !== headerTenant) {
      throw invalid("The body's tenantId differs from the X-Praxis-Tenant header.", [
        { path: "tenantId", message: "Must equal the X-Praxis-Tenant header" },
      ]);
    }
    const { episode, duplicate } = await ingestSession(c.env, session);
    return c.json({ episodeId: episode.id, duplicate, episode }, duplicate ? 200 : 201);
  },
);
