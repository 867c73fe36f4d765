import type { Schemas } from "../../../../client/src/index.js";
import { api, call, pageAll } from "../api.js";
import { agentPage, agentPath } from "../context.js";
import { fill, fmtInt, fmtPct, fmtQ, fmtTime, h, plural } from "../dom.js";
import { dataTable } from "../table.js";

const DAY_MS = 86_400_000;

export async function renderAgents(): Promise<void> {
  const agents = await pageAll((cursor) => call(api().GET("/v1/agents", { params: { query: { limit: 200, cursor } } })));
  const since = Date.now() - 7 * DAY_MS;
  const rows = await Promise.all(
    agents.map(async (a) => {
      const [analytics, episodes] = await Promise.all([
        call(api().GET("/v1/agents/{agentId}/analytics", { params: { ...agentPath(a.agentId), query: { top: 1 } } })),
        recentEpisodes(a.agentId, since),
      ]);
      const outcomes = episodes.filter((e) => e.outcome);
      const successes = outcomes.filter((e) => e.outcome === "success").length;
      return {
        a,
        size: analytics.experiences.counts.active ?? 0,
        meanQ: analytics.experiences.q.count ? analytics.experiences.q.mean : null,
        episodes: episodes.length,
        successRate: outcomes.length ? successes / outcomes.length : null,
      };
    }),
  );
  fill(
    "agents",
    dataTable(
      plural(rows.length, "agent"),
      [
        {
          label: "Agent",
          cell: (r) =>
            h(
              "a",
              { href: agentPage("", r.a.agentId) },
              r.a.displayName && r.a.displayName !== r.a.agentId ? `${r.a.displayName} (${r.a.agentId})` : r.a.agentId,
            ),
          sort: (r) => r.a.agentId,
        },
        { label: "Library size", cell: (r) => fmtInt(r.size), sort: (r) => r.size, num: true },
        { label: "Mean Q", cell: (r) => fmtQ(r.meanQ), sort: (r) => r.meanQ ?? -2, num: true },
        { label: "Episodes (7 days)", cell: (r) => fmtInt(r.episodes), sort: (r) => r.episodes, num: true },
        { label: "Success rate (7 days)", cell: (r) => fmtPct(r.successRate), sort: (r) => r.successRate ?? -1, num: true },
        { label: "Last active", cell: (r) => fmtTime(r.a.lastActiveAt), sort: (r) => r.a.lastActiveAt ?? 0 },
      ],
      rows,
      { id: "agents-table" },
    ),
  );
}

type EpisodeSummary = Schemas["Episode"];

/** Episodes started since `since` (the list is newest first, so paging stops at the first older one). */
async function recentEpisodes(agentId: string, since: number): Promise<Pick<EpisodeSummary, "outcome" | "createdAt">[]> {
  const out: Pick<EpisodeSummary, "outcome" | "createdAt">[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const r = await call(api().GET("/v1/agents/{agentId}/episodes", { params: { ...agentPath(agentId), query: { limit: 200, cursor } } }));
    const fresh = r.items.filter((e) => e.createdAt >= since);
    out.push(...fresh);
    if (!r.nextCursor || fresh.length < r.items.length) break;
    cursor = r.nextCursor;
  }
  return out;
}
