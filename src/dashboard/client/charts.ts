import type uPlotType from "uplot";
import { $, h } from "./dom.js";

/** uPlot is loaded by its own script tag (the bundled IIFE asset), before this one. */
declare const uPlot: typeof uPlotType;

export type ChartOptions = Omit<uPlotType.Options, "width" | "height">;
export type Series = uPlotType.Series;

export const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"] as const;
export const color = (i: number) => PALETTE[i % PALETTE.length]!;
export const COUNT_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];
export const bars = (): Series["paths"] => uPlot.paths.bars!({ size: [0.9, 120], align: 0 });

const HEIGHT = 260;
const charts = new Map<string, { u: uPlotType; width: () => number }>();

/** A uPlot chart sized to its container, resized with the window; drawing again replaces it. */
export function chart(containerId: string, opts: ChartOptions, data: uPlotType.AlignedData, label: string): uPlotType {
  charts.get(containerId)?.u.destroy();
  const box = h("figure", { class: "chart", role: "img", "aria-label": label });
  $(containerId).replaceChildren(box);
  const width = () => Math.max(260, box.clientWidth || $(containerId).clientWidth || 600);
  const u = new uPlot({ width: width(), height: HEIGHT, ...opts }, data, box);
  charts.set(containerId, { u, width });
  return u;
}

addEventListener("resize", () => {
  for (const c of charts.values()) c.u.setSize({ width: c.width(), height: HEIGHT });
});

export const line = (label: string, stroke: string, extra: Partial<Series> = {}): Series => ({
  label,
  stroke,
  width: 2,
  spanGaps: true,
  points: { show: true, size: 5 },
  ...extra,
});
