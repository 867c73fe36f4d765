import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ProblemError, zodFieldErrors } from "./problem";

/** A router whose zod validation failures become one 400 problem listing every bad field. */
export function router() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const target = (result as { target?: string }).target;
        const prefix = target && target !== "json" ? target : undefined;
        throw new ProblemError(400, "validation-failed", "The request did not validate; see `errors`.", {
          errors: zodFieldErrors(result.error.issues, prefix),
        });
      }
    },
  });
}

export const ProblemSchema = z
  .object({
    type: z.string().url(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string(),
    requestId: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string(), code: z.string().optional() })).optional(),
  })
  .openapi("Problem");

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

/** The error responses every authenticated route may give. */
export const commonErrors = {
  400: problem("Validation failed"),
  401: problem("Missing, malformed, unknown or revoked key"),
  403: problem("The key lacks the scope or agent access"),
  404: problem("Not found (or belongs to another tenant)"),
  409: problem("Conflict with the current state (e.g. an Idempotency-Key reused with another body)"),
  413: problem("Body too large"),
  415: problem("Body is not JSON"),
  422: problem("Well-formed but not applicable (unknown ids, rules across fields)"),
  429: problem("Rate or budget limit"),
  500: problem("Internal error"),
  503: problem("A dependency (such as the LLM) is not configured or unavailable"),
} as const;

export const jsonBody = <T extends z.ZodType>(schema: T, description = "JSON body") => ({
  body: { content: { "application/json": { schema } }, required: true, description },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const security = [{ bearerAuth: [] }];
