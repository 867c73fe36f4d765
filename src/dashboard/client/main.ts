// The dashboard's client: reads the public JSON API through the typed client (client/src) with the
// API key pasted at sign-in. The key lives in sessionStorage (this tab only) and travels only as
// the bearer header of API calls. Built into static/dashboard-client.js by build.mjs.
import { api, call, errorText, KEY_STORAGE, onUnauthorized, resetApi, statusOf } from "./api.js";
import { agentPath, agentId, body, page, setMe } from "./context.js";
import { $, h, setStatus } from "./dom.js";
import { renderAgent } from "./pages/agent.js";
import { renderAgents } from "./pages/agents.js";
import { renderCase } from "./pages/case.js";
import { renderEpisode, renderEpisodes } from "./pages/episode.js";
import { renderJobs } from "./pages/jobs.js";
import { renderLesson } from "./pages/lesson.js";
import { renderLibraries, renderLibrary } from "./pages/libraries.js";
import { renderRun } from "./pages/run.js";
import { renderRuns } from "./pages/runs.js";
import { renderUsage } from "./pages/usage.js";
import { renderVersions } from "./pages/versions.js";

/** The router: the shell names its page in <body data-page>. */
const PAGES: Record<string, () => Promise<void>> = {
  agents: renderAgents,
  agent: renderAgent,
  versions: () => renderVersions(),
  runs: renderRuns,
  run: renderRun,
  jobs: renderJobs,
  lesson: renderLesson,
  episodes: renderEpisodes,
  episode: renderEpisode,
  case: renderCase,
  usage: renderUsage,
  libraries: renderLibraries,
  library: renderLibrary,
};

function signOut(message?: string) {
  sessionStorage.removeItem(KEY_STORAGE);
  resetApi();
  setMe(null);
  $("main").hidden = true;
  $("session").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = message ?? "";
  $("api-key").focus();
}
onUnauthorized(signOut);

/** What the page was about does not exist: say so, and show none of its cards. */
function notFound(err: unknown) {
  for (const el of $("main").querySelectorAll<HTMLElement>(".card")) el.hidden = true;
  $("status").replaceChildren(`Not found: ${errorText(err)} `, h("a", { href: "/dashboard" }, "Back to the agents"));
  body.dataset.ready = "not-found";
}

/**
 * A link to a row or panel (`#job-…`, `#retrieval-…`) names an element the page draws only after
 * its API reads, too late for the browser to scroll to it: this marks and shows it once drawn.
 */
function revealTarget() {
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (!target) return;
  target.dataset.targeted = "";
  target.scrollIntoView({ block: "center" });
}

async function start() {
  let me;
  try {
    me = await call(api().GET("/v1/keys/current"));
  } catch (err) {
    if (statusOf(err) !== 401) signOut(`Could not check the key: ${errorText(err)}`);
    return;
  }
  setMe(me);
  $("sign-in").hidden = true;
  $("session").hidden = false;
  $("who").textContent = `${me.name} (${me.scope} key${me.agentIds ? ` for ${me.agentIds.join(", ")}` : ""})`;
  $("main").hidden = false;
  body.dataset.scope = me.scope;
  setStatus("Loading…");
  try {
    // The agent first: its pages would list empty runs or jobs for an agent that does not exist.
    if (agentId) await call(api().GET("/v1/agents/{agentId}", { params: agentPath() }));
    await PAGES[page]?.();
    revealTarget();
    setStatus("");
    body.dataset.ready = "true";
  } catch (err) {
    if (statusOf(err) === 404) return notFound(err);
    setStatus(`Could not load this page: ${errorText(err)}`);
    body.dataset.ready = "error";
  }
}

$("sign-in-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = $<HTMLInputElement>("api-key");
  const key = input.value.trim();
  if (!key) return;
  sessionStorage.setItem(KEY_STORAGE, key);
  resetApi();
  input.value = "";
  void start();
});
$("sign-out").addEventListener("click", () => signOut("Signed out."));

if (sessionStorage.getItem(KEY_STORAGE)) void start();
else signOut();
