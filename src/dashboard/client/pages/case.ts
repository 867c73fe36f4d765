import { api, call, statusOf } from "../api.js";
import { agentPath, episodeHref, itemId } from "../context.js";
import { fill, fmtInt, fmtQ, fmtTime, h, stat, type Child } from "../dom.js";

/** A past case: what was asked and answered, how it was rewarded, how it fares when retrieved, and its episode. */
export async function renderCase(): Promise<void> {
  const path = { path: { ...agentPath().path, id: itemId } };
  const c = await call(api().GET("/v1/agents/{agentId}/cases/{id}", { params: path }));
  fill(
    "case",
    h("p", { class: "lesson-text" }, c.task),
    h(
      "dl",
      { class: "stats" },
      stat("Id", c.id),
      stat("Status", h("span", { class: `badge ${c.status}` }, c.status)),
      stat("Label", c.label),
      stat("Reward", fmtQ(c.reward)),
      stat("Q", fmtQ(c.q)),
      stat("Retrieved / cited", `${fmtInt(c.counts.retrieved)} / ${fmtInt(c.counts.cited)}`),
      stat("Successes / failures", `${fmtInt(c.counts.successes)} / ${fmtInt(c.counts.failures)}`),
      stat("Episode", c.episodeId ? await episodeLink(c.episodeId) : "—"),
      stat("Tools", c.toolsUsed.join(", ") || "—"),
      stat("Tags", c.tags.join(", ") || "—"),
      stat("Created", fmtTime(c.createdAt)),
      stat("Last used", fmtTime(c.lastUsedAt)),
    ),
    c.traceSummary ? h("div", {}, h("h3", {}, "What was tried"), h("pre", {}, c.traceSummary)) : null,
    c.answer ? h("div", {}, h("h3", {}, "Answer"), h("pre", {}, c.answer)) : null,
  );
}

/** A case posted with an episode id of the caller's own has no episode page: that id stays text. */
async function episodeLink(episodeId: string): Promise<Child> {
  const params = { path: { ...agentPath().path, id: episodeId } };
  const found = await call(api().GET("/v1/agents/{agentId}/episodes/{id}", { params })).then(
    () => true,
    (err) => {
      if (statusOf(err) === 404) return false;
      throw err;
    },
  );
  return found ? h("a", { href: episodeHref(episodeId), "data-episode": episodeId }, episodeId) : h("code", {}, episodeId);
}
