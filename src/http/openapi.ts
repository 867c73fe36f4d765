import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { fieldErrors } from "../core/errors";
import { ProblemError } from "../doors/problem";

type HookResult = { success: true } | { success: false; error: { issues: z.core.$ZodIssue[] }; target?: string };

function validationProblem(result: HookResult, unprocessable: readonly string[] = []): void {
  if (result.success) return;
  const target = result.target;
  const prefix = target && target !== "json" ? target : undefined;
  const errors = fieldErrors(result.error.issues, prefix);
  // Fields whose values are well-formed JSON but not acceptable settings (a verifier's kind or
  // options) are 422s by contract, like other configuration a request refers to.
  if (target === "json" && errors.length && errors.every((e) => unprocessable.some((f) => e.path === f || e.path.startsWith(`${f}.`)))) {
    throw new ProblemError(422, "unprocessable", "The configuration is not usable; see `errors`.", { errors });
  }
  throw new ProblemError(400, "validation-failed", "The request did not validate; see `errors`.", { errors });
}

/** The document's top level: what generators name the client after and where they point it. */
export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Praxis",
    version: "0.1.0",
    description:
      "Experiential learning for LLM agents: retrieve lessons and past cases before acting, report outcomes after, and let Praxis learn which memories help.",
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
  servers: [
    { url: "http://localhost:8787", description: "Local development (`npm start`; `PORT` picks another port)" },
    {
      url: "https://praxis.{subdomain}.workers.dev",
      description: "A deployment on Cloudflare Workers",
      variables: { subdomain: { default: "example", description: "Your workers.dev subdomain" } },
    },
  ],
  tags: [
    { name: "meta", description: "Health of the service" },
    { name: "tenants", description: "Tenants (operator key)" },
    { name: "keys", description: "API keys of a tenant" },
    { name: "agents", description: "Agents and their settings" },
    { name: "experiences", description: "Lessons in an agent's library" },
    { name: "library", description: "Library versions, rollback, export and import" },
    { name: "cases", description: "Past episodes stored as retrievable cases" },
    { name: "retrieval", description: "Lessons and cases for a task: ranked items or a prompt block" },
    { name: "utility", description: "Rewards and the Q-values they move" },
    { name: "episodes", description: "One task an agent works on: attempts, answer, outcome" },
    { name: "jobs", description: "Background jobs (live lesson extraction)" },
    { name: "datasets", description: "Task sets for practice runs and evaluations" },
    { name: "practice", description: "Training-Free GRPO practice runs and their schedules" },
    { name: "evaluations", description: "Accuracy of a library on a dataset split" },
    { name: "webhooks", description: "Session-end webhooks and their secret" },
    { name: "usage", description: "LLM usage and cost" },
  ],
};

/** A router whose zod validation failures become one 400 problem listing every bad field. */
export function router() {
  return new OpenAPIHono<AppEnv>({ defaultHook: (result) => validationProblem(result as HookResult) });
}

/** A per-route hook: invalid values of these body fields answer 422 instead of 400. */
export const unprocessableFields =
  (...fields: string[]) =>
  (result: unknown): undefined => {
    validationProblem(result as HookResult, fields);
    return undefined;
  };

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
