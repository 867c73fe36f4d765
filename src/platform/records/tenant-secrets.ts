import { eq } from "drizzle-orm";
import type { Env } from "../../env";
import { tenants } from "../../db/schema";
import { db } from "../../db/client";
import { toBase64url } from "../../core/encoding";

/** Secrets look like `whsec_<43 base64url chars>` (32 random bytes). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

export function mintWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + toBase64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The secret that signs the tenant's webhooks (session-end deliveries, policies and verifiers); null without one. */
export async function tenantWebhookSecret(env: Env, tenantId: string): Promise<string | null> {
  const row = await db(env).select({ secret: tenants.webhookSecret }).from(tenants).where(eq(tenants.id, tenantId)).get();
  return row?.secret ?? null;
}
