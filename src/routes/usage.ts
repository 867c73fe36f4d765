import { createRoute, z } from "@hono/zod-openapi";
import { router, commonErrors, jsonResponse, security } from "../http/openapi";
import { USAGE_GROUP_BY } from "../llm/ledger";
import { depsOf, valueOf } from "../doors/use-case";
import { DEFAULT_RANGE_DAYS, usageReport } from "../use-cases/llm-usage";
import { timestamp } from "./schemas";

const DAY_MS = 86_400_000;
const DATE_ONLY_RE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An instant as epoch milliseconds or an ISO 8601 date / date-time (UTC unless it carries an offset).
 * A date-only `to` means the end of that day, so `from=2026-07-01&to=2026-07-01` is that whole day.
 */
function parseInstant(raw: string, end: boolean): number | null {
  const s = raw.trim();
  if (/^\d{1,16}$/.test(s)) return Number(s);
  if (!ISO_RE.test(s)) return null;
  const withZone = DATE_ONLY_RE.test(s) ? `${s}T00:00:00Z` : /(?:Z|[+-]\d{2}:?\d{2})$/i.test(s) ? s : `${s}Z`;
  const ms = Date.parse(withZone.replace(" ", "T"));
  if (Number.isNaN(ms)) return null;
  return end && DATE_ONLY_RE.test(s) ? ms + DAY_MS - 1 : ms;
}

const instant = (end: boolean, description: string) =>
  z
    .string()
    .max(40)
    .refine(
      (v) => parseInstant(v, end) !== null,
      "Use an ISO 8601 date or date-time (e.g. 2026-07-01 or 2026-07-01T12:00:00Z) or epoch milliseconds",
    )
    .optional()
    .openapi({ description, example: end ? "2026-07-31" : "2026-07-01" });

const UsageQuery = z
  .object({
    from: instant(false, `Start, inclusive (ISO 8601 or epoch ms); default ${DEFAULT_RANGE_DAYS} days before \`to\``),
    to: instant(true, "End, inclusive (ISO 8601 or epoch ms; a date means through the end of that UTC day); default now"),
    groupBy: z.enum(USAGE_GROUP_BY).default("day").openapi({ description: "How to group the calls; days are UTC" }),
  })
  .superRefine((q, ctx) => {
    const from = q.from !== undefined ? parseInstant(q.from, false) : null;
    const to = q.to !== undefined ? parseInstant(q.to, true) : null;
    if (from !== null && to !== null && from > to)
      ctx.addIssue({ code: "custom", path: ["from"], message: "`from` must not be after `to`" });
  });

const Totals = z.object({
  calls: z.number().int(),
  tokensIn: z.number().int(),
  tokensOut: z.number().int(),
  costUsd: z.number().openapi({ description: "Estimated from LLM_PRICES; 0 for models without a price" }),
  openCalls: z.number().int().openapi({
    description:
      "Calls with no answer on record yet: in flight now, or cut off when the runtime died. Each is counted once, at its estimate (prompt size + output cap)",
  }),
  abandonedCalls: z.number().int().openapi({
    description:
      "Calls whose answer never came: open past their timeout, marked by the sweep (every 5 minutes). Each is counted once, at its estimate",
  }),
  failedCalls: z
    .number()
    .int()
    .openapi({ description: "Calls that ended in an error; an error answer counts 0 tokens, a timeout its estimate" }),
  estimatedCalls: z.number().int().openapi({
    description: "Calls whose tokens are estimates rather than the provider's count: the open and abandoned ones and answers without usage",
  }),
});

const UsageReport = z
  .object({
    from: timestamp,
    to: timestamp,
    groupBy: z.enum(USAGE_GROUP_BY),
    totals: Totals,
    groups: z.array(
      Totals.extend({
        key: z.string().nullable().openapi({
          description: "The UTC day (YYYY-MM-DD), model, purpose, agent id or role; null for calls made without an agent",
        }),
      }),
    ),
  })
  .openapi("UsageReport");

export const usageRoutes = router().openapi(
  createRoute({
    method: "get",
    path: "/v1/usage",
    tags: ["usage"],
    operationId: "getUsage",
    summary: "LLM calls, tokens and estimated cost from the usage ledger, grouped",
    description:
      "Every LLM call Praxis makes for the tenant (including repair calls, purpose `…:repair`) is in the ledger, written before the request goes out and settled with the provider's count after its answer. A key restricted to some agents sees only those agents' calls.",
    security,
    request: { query: UsageQuery },
    responses: { 200: jsonResponse(UsageReport, "Usage in the range"), ...commonErrors },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const range = {
      from: q.from !== undefined ? parseInstant(q.from, false)! : undefined,
      to: q.to !== undefined ? parseInstant(q.to, true)! : undefined,
    };
    return c.json(valueOf(await usageReport(depsOf(c), c.get("principal"), { ...range, groupBy: q.groupBy })), 200);
  },
);
