import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { assetNamed } from "./assets";
import {
  agentPage,
  agentsPage,
  casePage,
  episodePage,
  episodesPage,
  jobsPage,
  lessonPage,
  librariesPage,
  libraryPage,
  runPage,
  runsPage,
  usagePage,
  versionsPage,
} from "./pages";

/** Styles: uPlot sizes its own elements inline; everything else comes from the Worker itself. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const YEAR_S = 31_536_000;

/**
 * The dashboard: server-rendered shells, one client script that reads the public JSON API with the
 * key the user pasted, and the chart library, all served by this Worker.
 */
export const dashboardRoutes = new Hono<AppEnv>();

dashboardRoutes.use("/dashboard/*", async (c, next) => {
  await next();
  c.header("Content-Security-Policy", CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
});

const html = async (c: Context<AppEnv>, page: ReturnType<typeof agentsPage>) => c.html(`<!doctype html>${await page}`);

dashboardRoutes.get("/dashboard", (c) => html(c, agentsPage()));
dashboardRoutes.get("/dashboard/usage", (c) => html(c, usagePage()));
dashboardRoutes.get("/dashboard/libraries", (c) => html(c, librariesPage()));
dashboardRoutes.get("/dashboard/libraries/:libraryId", (c) => html(c, libraryPage(c.req.param("libraryId"))));
dashboardRoutes.get("/dashboard/agents/:agentId", (c) => html(c, agentPage(c.req.param("agentId"))));
dashboardRoutes.get("/dashboard/agents/:agentId/versions", (c) => html(c, versionsPage(c.req.param("agentId"))));
dashboardRoutes.get("/dashboard/agents/:agentId/runs", (c) => html(c, runsPage(c.req.param("agentId"))));
dashboardRoutes.get("/dashboard/agents/:agentId/runs/:runId", (c) => html(c, runPage(c.req.param("agentId"), c.req.param("runId"))));
dashboardRoutes.get("/dashboard/agents/:agentId/jobs", (c) => html(c, jobsPage(c.req.param("agentId"))));
dashboardRoutes.get("/dashboard/agents/:agentId/lessons/:id", (c) => html(c, lessonPage(c.req.param("agentId"), c.req.param("id"))));
dashboardRoutes.get("/dashboard/agents/:agentId/episodes", (c) => html(c, episodesPage(c.req.param("agentId"))));
dashboardRoutes.get("/dashboard/agents/:agentId/cases/:id", (c) => html(c, casePage(c.req.param("agentId"), c.req.param("id"))));
dashboardRoutes.get("/dashboard/agents/:agentId/episodes/:id", (c) => html(c, episodePage(c.req.param("agentId"), c.req.param("id"))));

dashboardRoutes.get("/dashboard/static/:name", (c) => {
  const asset = assetNamed(c.req.param("name"));
  if (!asset) return c.notFound();
  const etag = `"${asset.version}"`;
  // A URL carrying the current fingerprint never changes; any other is revalidated.
  const cache = c.req.query("v") === asset.version ? `public, max-age=${YEAR_S}, immutable` : "public, max-age=0, must-revalidate";
  const headers = { "Content-Type": asset.type, "Cache-Control": cache, ETag: etag };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
  return c.body(asset.body, 200, headers);
});
