import { api, call } from "../api.js";
import { chart, color, line } from "../charts.js";
import { empty, fill, fmtInt, fmtUsd, h } from "../dom.js";
import { dataTable } from "../table.js";

const DAY_MS = 86_400_000;

export async function renderUsage(): Promise<void> {
  const byDay = await call(api().GET("/v1/usage", { params: { query: { groupBy: "day" } } }));
  const days = byDay.groups.filter((g) => g.key).sort((a, b) => ((a.key ?? "") < (b.key ?? "") ? -1 : 1));
  // Every day of the range, days without calls at zero, so the chart's time axis is the range's.
  const span: number[] = [];
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
        series: [{ label: "day" }, line("tokens in", color(0)), line("tokens out", color(1))],
      },
      [span.map((ms) => ms / 1000), series.map((d) => d.tokensIn), series.map((d) => d.tokensOut)],
      `Tokens per day over the last ${span.length} days`,
    );
  // The ledger groups by one key at a time; purposes per day come from one call per day.
  const recent = days.slice(-7).reverse();
  const rows = (
    await Promise.all(
      recent.map(async (d) => {
        const day = d.key ?? "";
        const r = await call(api().GET("/v1/usage", { params: { query: { groupBy: "purpose", from: day, to: day } } }));
        return r.groups.map((g) => ({ day, ...g }));
      }),
    )
  ).flat();
  fill(
    "usage-table",
    h(
      "p",
      { class: "meta" },
      `Last 30 days: ${fmtInt(byDay.totals.calls)} calls, ${fmtInt(byDay.totals.tokensIn + byDay.totals.tokensOut)} tokens, ${fmtUsd(byDay.totals.costUsd)}.`,
    ),
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
