import type { Command } from "commander";
import { globals } from "./config.js";

const WIDTH = 60;

export const cell = (value: unknown): string =>
  value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);

/** A plain aligned table on stdout; cells wider than 60 characters are cut with "…". */
export function table(rows: readonly object[], columns: string[]): void {
  if (!rows.length) return void console.log("(none)");
  const text = rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c])));
  const widths = columns.map((c, i) => Math.min(WIDTH, Math.max(c.length, ...text.map((t) => (t[i] ?? "").length))));
  const line = (cells: string[]) =>
    cells
      .map((t, i) => (t.length > WIDTH ? `${t.slice(0, WIDTH - 1)}…` : t).padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  console.log(line(columns));
  for (const t of text) console.log(line(t));
}

/** Prints `data` as JSON with --json, else through `human`. */
export function output<T>(cmd: Command, data: T, human: (data: T) => void): void {
  if (globals(cmd).json) console.log(JSON.stringify(data, null, 2));
  else human(data);
}

export const when = (ms: number | null | undefined): string => (ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "");

export const fixed = (x: number | null | undefined, digits = 3): string => (typeof x === "number" ? x.toFixed(digits) : "–");

/** A confidence interval as `[low, high]`, whichever shape the API gave it. */
export function intervalText(i: unknown): string {
  if (Array.isArray(i)) return `[${fixed(i[0] as number)}, ${fixed(i[1] as number)}]`;
  if (i && typeof i === "object" && "low" in i && "high" in i) return `[${fixed(i.low as number)}, ${fixed(i.high as number)}]`;
  return cell(i);
}
