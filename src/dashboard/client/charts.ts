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

/**
 * A vertical axis as wide as its widest tick value (in the axis's font) plus the tick and gap.
 * uPlot's fixed 50 px lets values such as "120,000" run into the axis title beside them.
 */
const fitValues: uPlotType.Axis.Size = (u, values, axisIdx, cycleNum) => {
  const axis = u.axes[axisIdx] as uPlotType.Axis & { _size?: number; font: [string, number] | string };
  // uPlot sizes axes again until the layout settles; after the first pass keep what it found, so it does.
  if (cycleNum > 1 && axis._size !== undefined) return axis._size;
  u.ctx.font = Array.isArray(axis.font) ? axis.font[0] : axis.font;
  const widest = Math.max(0, ...(values ?? []).map((v) => u.ctx.measureText(String(v)).width / devicePixelRatio));
  return Math.ceil((axis.ticks?.size ?? 10) + (axis.gap ?? 5) + widest);
};

/** A uPlot chart sized to its container, resized with the window; drawing again replaces it. */
export function chart(containerId: string, opts: ChartOptions, data: uPlotType.AlignedData, label: string): uPlotType {
  charts.get(containerId)?.u.destroy();
  const box = h("figure", { class: "chart", role: "img", "aria-label": label });
  $(containerId).replaceChildren(box);
  const width = () => Math.max(260, box.clientWidth || $(containerId).clientWidth || 600);
  // Every vertical axis (all but the first, the x axis) fits its values unless the page sized it.
  const axes = opts.axes?.map((a, i) => (i === 0 || a.size !== undefined ? a : { ...a, size: fitValues }));
  const u = new uPlot({ width: width(), height: HEIGHT, ...opts, ...(axes ? { axes } : {}) }, data, box);
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
