import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { healthRoutes } from "./health";
import { tenantRoutes } from "./tenants";
import { keyRoutes } from "./keys";
import { agentRoutes } from "./agents";
import { agentConfigRoutes } from "./agent-config";
import { experienceRoutes } from "./experiences";
import { libraryRoutes, sharedLibraryHistoryRoutes } from "./library";
import { caseRoutes } from "./cases";
import { quarantineRoutes, sharedLibraryQuarantineRoutes } from "./quarantine";
import { retrieveRoutes } from "./retrieve";
import { rewardRoutes } from "./rewards";
import { usageRoutes } from "./usage";
import { episodeRoutes } from "./episodes";
import { webhookRoutes } from "./webhook";
import { webhookSecretRoutes } from "./webhook-secret";
import { practiceRoutes } from "./practice";
import { datasetRoutes } from "./datasets";
import { evaluationRoutes } from "./evaluations";
import { scheduleRoutes } from "./schedules";
import { retrieverRoutes } from "./retriever";
import { eventRoutes } from "./events";
import { libraryRoutes as sharedLibraryRoutes } from "./libraries";

/** Mount order matters only for docs; every route is a distinct path+method. */
export function registerRoutes(app: OpenAPIHono<AppEnv>) {
  for (const r of [
    healthRoutes,
    tenantRoutes,
    keyRoutes,
    agentRoutes,
    agentConfigRoutes,
    experienceRoutes,
    libraryRoutes,
    caseRoutes,
    quarantineRoutes,
    retrieveRoutes,
    rewardRoutes,
    usageRoutes,
    episodeRoutes,
    datasetRoutes,
    webhookSecretRoutes,
    webhookRoutes,
    practiceRoutes,
    evaluationRoutes,
    scheduleRoutes,
    retrieverRoutes,
    eventRoutes,
    sharedLibraryRoutes,
    sharedLibraryHistoryRoutes,
    sharedLibraryQuarantineRoutes,
  ]) {
    app.route("/", r);
  }
}
