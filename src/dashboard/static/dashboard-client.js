// The dashboard's client: reads the public JSON API with the API key pasted at sign-in. The key
// lives in sessionStorage (this tab only) and travels only as the bearer header of API calls.
(() => {
  "use strict";

  const KEY_STORAGE = "praxis.apiKey";
  const DAY_MS = 86_400_000;
  const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"];
  const TERMINAL = new Set(["completed", "failed", "cancelled", "budget-exhausted"]);

  const body = document.body;
  const page = body.dataset.page;
  const agentId = body.dataset.agentId;
  const runId = body.dataset.runId;
  const $ = (id) => document.getElementById(id);
  let me = null;

  // ------------------------------------------------------------------ DOM helpers
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else if (k === "class") el.className = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
    return el;
  }
  const fill = (id, ...nodes) => $(id).replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));
  const setStatus = (text) => ($("status").textContent = text);
  const fmtQ = (q) => (typeof q === "number" ? q.toFixed(3) : "—");
  const fmtInt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "—");
  const fmtPct = (x) => (typeof x === "number" ? `${(x * 100).toFixed(1)}%` : "—");
  const fmtUsd = (x) => (typeof x === "number" ? `$${x.toFixed(4)}` : "—");
  const fmtTime = (ms) => (typeof ms === "number" ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "—");
  const enc = encodeURIComponent;
  const agentApi = (path = "", id = agentId) => `/v1/agents/${enc(id)}${path}`;
  const agentPage = (path = "", id = agentId) => `/dashboard/agents/${enc(id)}${path}`;
  /** Write controls are built only for keys that may use them; a read key never sees one. */
  const canWrite = () => !!me && me.scope !== "read" && (!me.agentIds || !agentId || me.agentIds.includes(agentId));
  const empty = (text) => h("p", { class: "empty", text });

  // ------------------------------------------------------------------ API
  class ApiError extends Error {
    constructor(status, problem) {
      super(problem?.detail ?? `HTTP ${status}`);
      this.status = status;
      this.problem = problem;
    }
  }

  async function api(path, { method = "GET", json, headers = {} } = {}) {
    const init = { method, headers: { authorization: `Bearer ${sessionStorage.getItem(KEY_STORAGE)}`, ...headers } };
    if (json !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    const res = await fetch(path, init);
    const text = await res.text();
    const data = text ? JSON.parse(text) : null;
    if (res.status === 401) signOut("The key was refused; sign in again.");
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }

  /** Every item of a cursor-paginated list, up to `max`. */
  async function pageAll(path, max = 2000) {
    const items = [];
    let cursor = null;
    do {
      const sep = path.includes("?") ? "&" : "?";
      const r = await api(`${path}${sep}limit=200${cursor ? `&cursor=${enc(cursor)}` : ""}`);
      items.push(...r.items);
      cursor = r.nextCursor;
    } while (cursor && items.length < max);
    return items;
  }

  const idempotencyKey = () => `dash-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

  // ------------------------------------------------------------------ tables
  /**
   * A table whose headers sort it (buttons, with aria-sort) and that can be filtered. `cols`:
   * { label, cell(row) → node|text, sort?(row) → number|string, num?, id? (an identifier: wraps anywhere) }.
   */
  function dataTable(caption, cols, rows, { filter, id } = {}) {
    let sortCol = -1;
    let dir = 1;
    const tbody = h("tbody");
    const heads = cols.map((c, i) => {
      const th = h("th", { scope: "col", class: c.num ? "num" : null });
      if (c.sort) {
        th.setAttribute("aria-sort", "none");
        th.append(h("button", { type: "button", class: "sort", onclick: () => sortBy(i) }, c.label));
      } else th.textContent = c.label;
      return th;
    });
    function render() {
      let shown = filter ? rows.filter(filter) : rows.slice();
      if (sortCol >= 0) {
        const key = cols[sortCol].sort;
        shown.sort((a, b) => {
          const x = key(a);
          const y = key(b);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
      }
      tbody.replaceChildren(
        ...(shown.length
          ? shown.map((r) => h("tr", {}, cols.map((c) => h("td", { class: c.num ? "num" : c.id ? "id" : null }, c.cell(r)))))
          : [h("tr", {}, h("td", { colspan: cols.length, class: "empty", text: "Nothing to show." }))]),
      );
    }
    function sortBy(i) {
      dir = sortCol === i ? -dir : 1;
      sortCol = i;
      heads.forEach((th, j) => cols[j].sort && th.setAttribute("aria-sort", j === i ? (dir > 0 ? "ascending" : "descending") : "none"));
      render();
    }
    render();
    const table = h("table", { id }, h("caption", { text: caption }), h("thead", {}, h("tr", {}, heads)), tbody);
    table.refresh = render;
    return h("div", { class: "table-wrap" }, table);
  }

  /** A value of unknown shape: arrays of records as a table, anything else as JSON. */
  function anyValue(v) {
    if (Array.isArray(v) && v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
      const keys = [...new Set(v.flatMap((x) => Object.keys(x)))];
      const cell = (x) => (x === null || x === undefined ? "—" : typeof x === "object" ? JSON.stringify(x) : String(x));
      return dataTable(`${v.length} item${v.length === 1 ? "" : "s"}`, keys.map((k) => ({ label: k, cell: (r) => cell(r[k]) })), v);
    }
    if (Array.isArray(v) && v.length === 0) return empty("None.");
    return h("pre", {}, typeof v === "string" ? v : JSON.stringify(v, null, 2));
  }

  // ------------------------------------------------------------------ charts
  const charts = new Map();
  /** A uPlot chart sized to its container, resized with the window; drawing again replaces it. */
  function chart(containerId, opts, data, label) {
    charts.get(containerId)?.u.destroy();
    const box = h("figure", { class: "chart", role: "img", "aria-label": label });
    $(containerId).replaceChildren(box);
    const width = () => Math.max(260, box.clientWidth || $(containerId).clientWidth || 600);
    const u = new uPlot({ width: width(), height: 260, ...opts }, data, box);
    charts.set(containerId, { u, width });
    return u;
  }
  window.addEventListener("resize", () => {
    for (const c of charts.values()) c.u.setSize({ width: c.width(), height: 260 });
  });
  const COUNT_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];
  const line = (label, color, extra = {}) => ({ label, stroke: color, width: 2, spanGaps: true, points: { show: true, size: 5 }, ...extra });

  // ------------------------------------------------------------------ pages
  async function renderAgents() {
    const agents = await pageAll("/v1/agents");
    const since = Date.now() - 7 * DAY_MS;
    const rows = await Promise.all(
      agents.map(async (a) => {
        const [analytics, episodes] = await Promise.all([api(agentApi("/analytics?top=1", a.agentId)), recentEpisodes(a.agentId, since)]);
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
        `${rows.length} agent${rows.length === 1 ? "" : "s"}`,
        [
          { label: "Agent", cell: (r) => h("a", { href: agentPage("", r.a.agentId) }, r.a.displayName && r.a.displayName !== r.a.agentId ? `${r.a.displayName} (${r.a.agentId})` : r.a.agentId), sort: (r) => r.a.agentId },
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

  /** Episodes started since `since` (the list is newest first, so paging stops at the first older one). */
  async function recentEpisodes(id, since) {
    const out = [];
    let cursor = null;
    for (let pages = 0; pages < 10; pages++) {
      const r = await api(agentApi(`/episodes?limit=200${cursor ? `&cursor=${enc(cursor)}` : ""}`, id));
      const fresh = r.items.filter((e) => e.createdAt >= since);
      out.push(...fresh);
      if (!r.nextCursor || fresh.length < r.items.length) break;
      cursor = r.nextCursor;
    }
    return out;
  }

  async function renderAgent() {
    const [analytics, experiences, jobs] = await Promise.all([
      api(agentApi("/analytics?top=3&buckets=10")),
      pageAll(agentApi("/experiences?status=all")),
      api(agentApi("/jobs?limit=200")).then((r) => r.items, () => []),
    ]);
    const ex = analytics.experiences;
    fill(
      "summary",
      h(
        "dl",
        { class: "stats" },
        stat("Library version", fmtInt(analytics.libraryVersion)),
        stat("Active experiences", fmtInt(ex.counts.active ?? 0)),
        stat("Quarantined", fmtInt(ex.counts.quarantined ?? 0)),
        stat("Mean Q", `${fmtQ(ex.q.mean)} ± ${fmtQ(ex.q.std)}`),
        stat("Retrievals", fmtInt(analytics.retrievals)),
        stat("Mean |ΔQ| (last updates)", fmtQ(analytics.convergence.meanAbsDeltaQ)),
      ),
    );
    renderHistogram(ex.q.histogram);
    await renderTrajectories(analytics);
    renderLibrary(experiences);
    renderQuarantine(experiences.filter((e) => e.status === "quarantined"), jobs);
  }

  const stat = (term, value) => h("div", {}, h("dt", { text: term }), h("dd", { text: value }));

  function renderHistogram(hist) {
    if (!hist.length || hist.every((b) => b.count === 0)) return fill("histogram", empty("No active experiences yet."));
    const xs = hist.map((b) => (b.from + b.to) / 2);
    const width = hist[0].to - hist[0].from;
    chart(
      "histogram",
      {
        scales: { x: { time: false, range: [hist[0].from, hist[hist.length - 1].to] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{ label: "Q" }, { label: "experiences", incrs: COUNT_INCRS }],
        series: [{ label: "Q", value: (_u, v) => (v === null ? "—" : `${(v - width / 2).toFixed(2)}…${(v + width / 2).toFixed(2)}`) }, { label: "count", stroke: PALETTE[0], fill: "rgba(37,99,235,0.45)", paths: uPlot.paths.bars({ size: [0.9, 120], align: 0 }), points: { show: false } }],
      },
      [xs, hist.map((b) => b.count)],
      `Histogram of Q over ${hist.reduce((n, b) => n + b.count, 0)} active experiences`,
    );
  }

  async function renderTrajectories(analytics) {
    const picked = [...analytics.top.map((m) => ({ ...m, rank: "top" })), ...analytics.bottom.map((m) => ({ ...m, rank: "bottom" }))].filter(
      (m, i, all) => all.findIndex((o) => o.id === m.id) === i,
    );
    const histories = await Promise.all(picked.map((m) => api(agentApi(`/experiences/${enc(m.id)}`)).then((e) => ({ m, hist: e.qHistory ?? [] }))));
    const withUpdates = histories.filter((x) => x.hist.length > 0);
    if (!withUpdates.length) return fill("trajectories", empty("No Q updates yet: rewards move Q."));
    const longest = Math.max(...withUpdates.map((x) => x.hist.length));
    // Aligned on the latest update (x = 0), so every line ends where its memory stands now.
    const xs = Array.from({ length: longest + 1 }, (_, i) => i - longest);
    const data = [xs];
    const series = [{ label: "update" }];
    withUpdates.forEach((x, i) => {
      const qs = [x.hist[0].q - x.hist[0].delta, ...x.hist.map((e) => e.q)];
      data.push(xs.map((_, j) => qs[j - (xs.length - qs.length)] ?? null));
      series.push(line(`${x.m.rank}: ${x.m.label ?? x.m.id}`, PALETTE[i % PALETTE.length]));
    });
    chart(
      "trajectories",
      { scales: { x: { time: false }, y: { range: [-1, 1] } }, axes: [{ label: "updates before now" }, { label: "Q" }], series },
      data,
      `Q over the last updates of ${withUpdates.length} memories`,
    );
  }

  function renderLibrary(experiences) {
    const text = $("filter-text");
    const status = $("filter-status");
    const source = $("filter-source");
    const filter = (e) => {
      const needle = text.value.trim().toLowerCase();
      return (
        (!needle || e.text.toLowerCase().includes(needle) || (e.label ?? "").toLowerCase().includes(needle)) &&
        (!status.value || e.status === status.value) &&
        (!source.value || e.source === source.value)
      );
    };
    const wrap = dataTable(
      `${experiences.length} experience${experiences.length === 1 ? "" : "s"}`,
      [
        { label: "Label", cell: (e) => e.label ?? "—", sort: (e) => labelOrder(e.label) },
        { label: "Text", cell: (e) => h("span", { class: "text" }, e.text), sort: (e) => e.text.toLowerCase() },
        { label: "Source", cell: (e) => e.source, sort: (e) => e.source },
        { label: "Q", cell: (e) => fmtQ(e.q), sort: (e) => e.q, num: true },
        { label: "Retrieved", cell: (e) => fmtInt(e.counts.retrieved), sort: (e) => e.counts.retrieved, num: true },
        { label: "Cited", cell: (e) => fmtInt(e.counts.cited), sort: (e) => e.counts.cited, num: true },
        { label: "Successes", cell: (e) => fmtInt(e.counts.successes), sort: (e) => e.counts.successes, num: true },
        { label: "Failures", cell: (e) => fmtInt(e.counts.failures), sort: (e) => e.counts.failures, num: true },
        { label: "Status", cell: (e) => h("span", { class: `badge ${e.status}` }, e.probation ? `${e.status} (probation)` : e.status), sort: (e) => e.status },
        { label: "Pinned", cell: (e) => (e.pinned ? "yes" : "no"), sort: (e) => (e.pinned ? 1 : 0) },
      ],
      experiences,
      { filter, id: "library-table" },
    );
    const table = wrap.querySelector("table");
    for (const el of [text, status, source]) el.addEventListener("input", () => table.refresh());
    $("library-filters").addEventListener("submit", (ev) => ev.preventDefault());
    fill("library", wrap);
  }
  const labelOrder = (label) => (label && /^G\d+$/.test(label) ? Number(label.slice(1)) : Number.MAX_SAFE_INTEGER);

  function renderQuarantine(items, jobs) {
    if (!items.length) return fill("quarantine", empty("Nothing is quarantined."));
    // Live extraction records why it quarantined a lesson on its job; other sources name no reason.
    const reasons = new Map(jobs.filter((j) => j.result && j.result.experienceId).map((j) => [j.result.experienceId, j.reason]));
    const act = async (e, what) => {
      try {
        if (what === "release") await api(agentApi(`/experiences/${enc(e.id)}`), { method: "PATCH", json: { status: "active" } });
        else await api(agentApi(`/experiences/${enc(e.id)}`), { method: "DELETE" });
        setStatus(`${what === "release" ? "Released" : "Deleted"} ${e.id}.`);
        await renderAgent();
      } catch (err) {
        setStatus(`Could not ${what} ${e.id}: ${err.message}`);
      }
    };
    fill(
      "quarantine",
      h(
        "ul",
        { class: "items" },
        items.map((e) =>
          h(
            "li",
            {},
            h("p", { class: "text" }, e.text),
            h("p", { class: "meta" }, `${e.id} · ${e.source} · since ${fmtTime(e.createdAt)} · reason: ${reasons.get(e.id) ?? e.provenance?.note ?? "not recorded"}`),
            canWrite() &&
              h(
                "div",
                { class: "actions" },
                h("button", { type: "button", "data-write": "", onclick: () => act(e, "release") }, `Release ${e.id}`),
                h("button", { type: "button", class: "danger", "data-write": "", onclick: () => confirm(`Delete ${e.id}? Rolling back restores it.`) && act(e, "delete") }, `Delete ${e.id}`),
              ),
          ),
        ),
      ),
    );
  }

  async function renderVersions(selected) {
    const versions = await pageAll(agentApi("/library/versions"), 200);
    const latest = versions[0]?.version;
    fill(
      "versions",
      versions.length
        ? h(
            "ol",
            { class: "timeline", reversed: true },
            versions.map((v) =>
              h(
                "li",
                { "data-version": v.version },
                h("p", {}, h("strong", {}, `v${v.version}`), ` · ${fmtTime(v.createdAt)} · ${v.author}`, v.version === latest ? h("span", { class: "badge active" }, "current") : null),
                h("p", { class: "text" }, v.reason),
                h("p", { class: "meta" }, `${v.changes} change${v.changes === 1 ? "" : "s"}`),
                h(
                  "div",
                  { class: "actions" },
                  h("button", { type: "button", onclick: () => renderDiff(v.version) }, `Diff of v${v.version}`),
                  canWrite() && v.version !== latest && h("button", { type: "button", class: "danger", "data-write": "", onclick: () => askRollback(v) }, `Roll back to v${v.version}`),
                ),
              ),
            ),
          )
        : empty("No versions yet."),
    );
    if (selected !== undefined) await renderDiff(selected);
    else if (latest !== undefined) await renderDiff(latest);
  }

  async function renderDiff(n) {
    const d = await api(agentApi(`/library/versions/${n}/diff`));
    const snap = (s) => (s ? h("div", {}, h("span", { class: "text" }, s.text), h("span", { class: "meta" }, ` (${s.status}, Q ${fmtQ(s.q)}${s.pinned ? ", pinned" : ""})`)) : "—");
    fill(
      "diff",
      h("p", {}, h("strong", {}, `v${d.version}`), ` by ${d.author}: ${d.reason}`),
      dataTable(
        `What v${d.version} changed`,
        [
          { label: "Operation", cell: (r) => h("span", { class: `badge ${r.op}` }, r.op) },
          { label: "Experience", cell: (r) => r.id },
          { label: "Before", cell: (r) => snap(r.before) },
          { label: "After", cell: (r) => snap(r.after) },
        ],
        d.diff,
        { id: "diff-table" },
      ),
    );
  }

  function askRollback(v) {
    const dialog = $("rollback-dialog");
    $("rollback-text").textContent = `The library becomes what it was after v${v.version} (${v.reason}). This is recorded as a new version, so it can be undone the same way.`;
    dialog.returnValue = "";
    dialog.onclose = async () => {
      if (dialog.returnValue !== "confirm") return;
      try {
        const r = await api(agentApi("/library/rollback"), { method: "POST", json: { version: v.version }, headers: { "idempotency-key": idempotencyKey() } });
        setStatus(r.unchanged ? `The library already equals v${v.version}.` : `Rolled back to v${v.version}: now v${r.libraryVersion} (${r.changed} changed, ${r.deleted} deleted).`);
        await renderVersions(r.libraryVersion);
      } catch (err) {
        setStatus(`Rollback failed: ${err.message}`);
      }
    };
    dialog.showModal();
  }

  async function renderRuns() {
    const runs = await pageAll(agentApi("/practice-runs"), 400);
    fill(
      "runs",
      dataTable(
        `${runs.length} run${runs.length === 1 ? "" : "s"}`,
        [
          { label: "Run", cell: (r) => h("a", { href: agentPage(`/runs/${enc(r.runId)}`) }, r.runId), sort: (r) => r.runId, id: true },
          { label: "Status", cell: (r) => h("span", { class: `badge ${r.status}` }, r.status), sort: (r) => r.status },
          { label: "Dataset", cell: (r) => r.datasetId, sort: (r) => r.datasetId, id: true },
          { label: "Started", cell: (r) => fmtTime(r.createdAt), sort: (r) => r.createdAt },
          { label: "Updated", cell: (r) => fmtTime(r.updatedAt), sort: (r) => r.updatedAt },
          { label: "Error", cell: (r) => r.error ?? "" },
        ],
        runs,
        { id: "runs-table" },
      ),
    );
  }

  // ------------------------------------------------------------------ a practice run
  async function renderRun() {
    await refreshRun();
    followEvents();
  }

  let refreshing = null;
  let again = false;
  /** Refreshes the run's view; events arriving meanwhile coalesce into one more refresh. */
  async function refreshRun() {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        const view = await api(agentApi(`/practice-runs/${enc(runId)}`));
        renderProgress(view);
        await renderCurve(view);
        await renderSteps(view);
      } while (again);
    })().finally(() => (refreshing = null));
    return refreshing;
  }

  function renderProgress(v) {
    const p = v.progress;
    const totalSteps = v.config.epochs * p.stepsPerEpoch;
    const finished = v.trainReward.filter((t) => t.meanReward !== null).length;
    const running = !TERMINAL.has(v.status);
    const cancel =
      canWrite() &&
      running &&
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "data-write": "",
          onclick: async () => {
            if (!confirm("Cancel this run? Nothing is promoted.")) return;
            await api(agentApi(`/practice-runs/${enc(runId)}/cancel`), { method: "POST" }).catch((err) => setStatus(`Cancel failed: ${err.message}`));
            await refreshRun();
          },
        },
        "Cancel run",
      );
    fill(
      "progress",
      h("p", {}, "Status: ", h("span", { class: `badge ${v.status}`, id: "run-status" }, v.status), v.error ? ` — ${v.error}` : ""),
      h(
        "dl",
        { class: "stats" },
        stat("Steps finished", totalSteps ? `${finished} of ${totalSteps}` : "—"),
        stat("Epochs", fmtInt(v.config.epochs)),
        stat("Now at", running ? `epoch ${p.epoch}, step ${p.step}` : "—"),
        stat("Stage", (running && p.stage) || "—"),
        stat("Rollouts", `${fmtInt(p.rollouts.done)} of ${fmtInt(p.rollouts.total)}`),
        stat("Groups kept / filtered", `${fmtInt(p.groups.kept)} / ${fmtInt(p.groups.filtered)}`),
        stat("Library size", fmtInt(v.librarySize)),
        stat("Tokens in / out", `${fmtInt(v.usage.tokensIn)} / ${fmtInt(v.usage.tokensOut)}`),
        stat("LLM calls", fmtInt(v.usage.calls)),
        stat("Cost", fmtUsd(v.usage.costUsd)),
      ),
      // The bar follows the step in progress; a finished run has none.
      running && h("label", { for: "rollout-progress" }, "Rollouts of this step"),
      running && h("progress", { id: "rollout-progress", max: Math.max(1, p.rollouts.total), value: p.rollouts.done }, `${p.rollouts.done} of ${p.rollouts.total}`),
      v.promotion ? h("p", {}, `Promotion: ${v.promotion.promoted ? `promoted as library v${v.promotion.version}` : "not promoted"} — ${v.promotion.reason}`) : null,
      cancel,
    );
  }

  /**
   * The learning curve from the curve route; a Worker without that route answers 404 and the curve
   * comes from the steps (the run itself exists: its view was just read).
   */
  async function curveOf() {
    try {
      return await api(agentApi(`/practice-runs/${enc(runId)}/curve`));
    } catch (err) {
      if (err.status !== 404) throw err;
      const steps = (await api(agentApi(`/practice-runs/${enc(runId)}/steps`))).items;
      return {
        steps: steps.map((s) => ({ epoch: s.epoch, step: s.step, trainReward: s.meanReward, librarySize: s.librarySize, tokens: s.usage.tokensIn + s.usage.tokensOut })),
        epochs: [],
      };
    }
  }

  async function renderCurve(view) {
    const curve = await curveOf();
    const perEpoch = view.progress.stepsPerEpoch || 1;
    if (!curve.steps.length) return fill("curve", empty("No step has finished yet."));
    // Steps numbered from 0, as the API and the CLI number them.
    const xs = curve.steps.map((s) => s.epoch * perEpoch + s.step);
    // An epoch's holdout accuracy sits at its last step.
    const atEpochEnd = (pick) => xs.map((x, i) => {
      const s = curve.steps[i];
      const e = s.step === perEpoch - 1 ? curve.epochs.find((ep) => ep.epoch === s.epoch) : null;
      return e ? pick(e) : null;
    });
    const hasHoldout = curve.epochs.length > 0;
    const data = [xs, curve.steps.map((s) => s.trainReward), curve.steps.map((s) => s.librarySize)];
    const series = [
      { label: "step" },
      line("mean train reward", PALETTE[0], { scale: "r" }),
      line("library size", PALETTE[2], { scale: "n", dash: [6, 4] }),
    ];
    if (hasHoldout) {
      data.push(atEpochEnd((e) => e.holdoutAccuracy), atEpochEnd((e) => e.interval[0]), atEpochEnd((e) => e.interval[1]));
      series.push(line("holdout accuracy", PALETTE[1], { scale: "r" }), line("interval low", "#f87171", { scale: "r", width: 1, dash: [2, 3] }), line("interval high", "#f87171", { scale: "r", width: 1, dash: [2, 3] }));
    }
    const u = chart(
      "curve",
      {
        scales: { x: { time: false }, r: { range: [0, 1] }, n: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{ label: "step", incrs: COUNT_INCRS }, { scale: "r", label: "reward / accuracy" }, { scale: "n", side: 1, label: "library size", grid: { show: false } }],
        series,
      },
      data,
      `Learning curve over ${xs.length} steps`,
    );
    const tokens = curve.steps.reduce((n, s) => n + (s.tokens ?? 0), 0);
    $("curve").append(h("p", { class: "meta" }, `${fmtInt(tokens)} tokens over ${xs.length} finished step${xs.length === 1 ? "" : "s"}.`));
    return u;
  }

  const openSteps = new Set();
  async function renderSteps() {
    const steps = (await api(agentApi(`/practice-runs/${enc(runId)}/steps`))).items;
    if (!steps.length) return fill("steps", empty("No step has started yet."));
    fill(
      "steps",
      ...steps.map((s) => {
        const details = h(
          "details",
          { "data-step": s.n, open: openSteps.has(s.n) },
          h("summary", {}, `Step ${s.n} (epoch ${s.epoch}, step ${s.step}) — ${s.status}, mean reward ${fmtQ(s.meanReward)}, library ${fmtInt(s.librarySize)}, ${fmtInt(s.usage.tokensIn + s.usage.tokensOut)} tokens`),
          h("div", { class: "step-body" }),
        );
        details.addEventListener("toggle", () => {
          if (details.open) openSteps.add(s.n);
          else openSteps.delete(s.n);
          if (details.open) loadStep(details, s.n);
        });
        if (details.open) loadStep(details, s.n);
        return details;
      }),
    );
  }

  const STEP_BASE = new Set(["n", "epoch", "step", "status", "tasks", "meanReward", "librarySize", "usage", "startedAt", "endedAt"]);
  async function loadStep(details, n) {
    const target = details.querySelector(".step-body");
    const s = await api(agentApi(`/practice-runs/${enc(runId)}/steps/${n}`));
    const parts = Object.entries(s).filter(([k]) => !STEP_BASE.has(k));
    target.replaceChildren(...parts.map(([k, v]) => h("section", {}, h("h3", { text: k }), anyValue(v))));
  }

  /**
   * Follows the run's event stream. EventSource cannot send an Authorization header, so the
   * stream is read with fetch; it resumes from the last event id when the server closes it.
   */
  async function followEvents() {
    let last = "0";
    for (let attempt = 0; attempt < 100; attempt++) {
      let ended = false;
      try {
        const res = await fetch(agentApi(`/practice-runs/${enc(runId)}/events`), {
          headers: { authorization: `Bearer ${sessionStorage.getItem(KEY_STORAGE)}`, accept: "text/event-stream", "last-event-id": last },
        });
        if (!res.ok || !res.body) return;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buf += value.replace(/\r\n?/g, "\n");
          let cut;
          while ((cut = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            let type = "message";
            for (const l of block.split("\n")) {
              if (l.startsWith("id:")) last = l.slice(3).trim();
              else if (l.startsWith("event:")) type = l.slice(6).trim();
            }
            if (type === "end") ended = true;
            body.dataset.lastEvent = type;
            refreshRun().catch((err) => setStatus(`Refresh failed: ${err.message}`));
          }
        }
      } catch (err) {
        setStatus(`Event stream interrupted: ${err.message}`);
      }
      const view = await api(agentApi(`/practice-runs/${enc(runId)}`));
      if (ended || TERMINAL.has(view.status)) {
        await refreshRun();
        return;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  async function renderJobs() {
    const jobs = (await api(agentApi("/jobs?limit=200"))).items;
    fill(
      "jobs",
      dataTable(
        `${jobs.length} job${jobs.length === 1 ? "" : "s"}`,
        [
          { label: "Job", cell: (j) => j.id, sort: (j) => j.id, id: true },
          { label: "Type", cell: (j) => j.type, sort: (j) => j.type },
          { label: "Status", cell: (j) => h("span", { class: `badge ${j.status}` }, j.status), sort: (j) => j.status },
          { label: "Reason", cell: (j) => h("span", { class: "text" }, j.reason ?? "—") },
          { label: "Episode", cell: (j) => j.episodeId ?? "—", id: true },
          { label: "Attempts", cell: (j) => fmtInt(j.attempts), sort: (j) => j.attempts, num: true },
          { label: "Created", cell: (j) => fmtTime(j.createdAt), sort: (j) => j.createdAt },
          { label: "Updated", cell: (j) => fmtTime(j.updatedAt), sort: (j) => j.updatedAt },
        ],
        jobs,
        { id: "jobs-table" },
      ),
    );
  }

  async function renderUsage() {
    const byDay = await api("/v1/usage?groupBy=day");
    const days = byDay.groups.filter((g) => g.key).sort((a, b) => (a.key < b.key ? -1 : 1));
    // Every day of the range, days without calls at zero, so the chart's time axis is the range's.
    const span = [];
    for (let ms = Math.floor(byDay.from / DAY_MS) * DAY_MS; ms <= byDay.to; ms += DAY_MS) span.push(ms);
    const at = new Map(days.map((d) => [d.key, d]));
    const series = span.map((ms) => at.get(new Date(ms).toISOString().slice(0, 10)) ?? { tokensIn: 0, tokensOut: 0 });
    if (!days.length) fill("usage-chart", empty("No LLM calls in the last 30 days."));
    else
      chart(
        "usage-chart",
        {
          scales: { x: { time: true } },
          axes: [{}, { label: "tokens" }],
          series: [{ label: "day" }, line("tokens in", PALETTE[0]), line("tokens out", PALETTE[1])],
        },
        [span.map((ms) => ms / 1000), series.map((d) => d.tokensIn), series.map((d) => d.tokensOut)],
        `Tokens per day over the last ${span.length} days`,
      );
    // The ledger groups by one key at a time; purposes per day come from one call per day.
    const recent = days.slice(-7).reverse();
    const rows = (
      await Promise.all(
        recent.map(async (d) => (await api(`/v1/usage?groupBy=purpose&from=${d.key}&to=${d.key}`)).groups.map((g) => ({ day: d.key, ...g }))),
      )
    ).flat();
    fill(
      "usage-table",
      h("p", { class: "meta" }, `Last 30 days: ${fmtInt(byDay.totals.calls)} calls, ${fmtInt(byDay.totals.tokensIn + byDay.totals.tokensOut)} tokens, ${fmtUsd(byDay.totals.costUsd)}.`),
      dataTable(
        "The last 7 days with calls, by purpose",
        [
          { label: "Day (UTC)", cell: (r) => r.day, sort: (r) => r.day },
          { label: "Purpose", cell: (r) => r.key ?? "—", sort: (r) => r.key ?? "" },
          { label: "Calls", cell: (r) => fmtInt(r.calls), sort: (r) => r.calls, num: true },
          { label: "Tokens in", cell: (r) => fmtInt(r.tokensIn), sort: (r) => r.tokensIn, num: true },
          { label: "Tokens out", cell: (r) => fmtInt(r.tokensOut), sort: (r) => r.tokensOut, num: true },
          { label: "Cost", cell: (r) => fmtUsd(r.costUsd), sort: (r) => r.costUsd, num: true },
        ],
        rows,
        { id: "usage-table-rows" },
      ),
    );
  }

  // ------------------------------------------------------------------ session
  const PAGES = { agents: renderAgents, agent: renderAgent, versions: () => renderVersions(), runs: renderRuns, run: renderRun, jobs: renderJobs, usage: renderUsage };

  function signOut(message) {
    sessionStorage.removeItem(KEY_STORAGE);
    me = null;
    $("main").hidden = true;
    $("session").hidden = true;
    $("sign-in").hidden = false;
    $("sign-in-error").textContent = message ?? "";
    $("api-key").focus();
  }

  async function start() {
    try {
      me = await api("/v1/keys/current");
    } catch (err) {
      if (err.status !== 401) signOut(`Could not check the key: ${err.message}`);
      return;
    }
    $("sign-in").hidden = true;
    $("session").hidden = false;
    $("who").textContent = `${me.name} (${me.scope} key${me.agentIds ? ` for ${me.agentIds.join(", ")}` : ""})`;
    $("main").hidden = false;
    body.dataset.scope = me.scope;
    setStatus("Loading…");
    try {
      // The agent first: its pages list empty runs or jobs for an agent that does not exist.
      if (agentId) await api(agentApi());
      await PAGES[page]();
      setStatus("");
      body.dataset.ready = "true";
    } catch (err) {
      if (err.status === 404) return notFound(err);
      setStatus(`Could not load this page: ${err.message}`);
      body.dataset.ready = "error";
    }
  }

  /** What the page was about does not exist: say so, and show none of its cards. */
  function notFound(err) {
    for (const el of $("main").querySelectorAll(".card")) el.hidden = true;
    $("status").replaceChildren(`Not found: ${err.message} `, h("a", { href: "/dashboard" }, "Back to the agents"));
    body.dataset.ready = "not-found";
  }

  $("sign-in-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const key = $("api-key").value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORAGE, key);
    $("api-key").value = "";
    start();
  });
  $("sign-out").addEventListener("click", () => signOut("Signed out."));

  if (sessionStorage.getItem(KEY_STORAGE)) start();
  else signOut();
})();
