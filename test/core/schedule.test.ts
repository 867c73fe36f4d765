import { describe, expect, it } from "vitest";
import { nextDue, parseEvery, type Every } from "../../src/core/schedule";

const at = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

function every(text: string): Every {
  const r = parseEvery(text);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe("schedule times", () => {
  it("intervals are aligned to UTC and strictly after the given time", () => {
    expect(iso(nextDue(every("6h"), at("2030-03-04T05:59:59.000Z")))).toBe("2030-03-04T06:00:00.000Z");
    expect(iso(nextDue(every("6h"), at("2030-03-04T06:00:00.000Z")))).toBe("2030-03-04T12:00:00.000Z");
    expect(iso(nextDue(every("1d"), at("2030-03-04T23:10:00.000Z")))).toBe("2030-03-05T00:00:00.000Z");
    const week = nextDue(every("7d"), at("2030-03-04T00:00:00.000Z"))!;
    expect(week - at("2030-03-04T00:00:00.000Z")).toBeLessThanOrEqual(7 * 86_400_000);
    expect(nextDue(every("7d"), week)! - week).toBe(7 * 86_400_000);
  });

  it("cron expressions: lists, ranges, steps, names and the next minute boundary", () => {
    expect(iso(nextDue(every("*/15 * * * *"), at("2030-03-04T10:07:30.000Z")))).toBe("2030-03-04T10:15:00.000Z");
    expect(iso(nextDue(every("0 3 * * *"), at("2030-03-04T03:00:00.000Z")))).toBe("2030-03-05T03:00:00.000Z");
    expect(iso(nextDue(every("30 9-17/4 * * mon-fri"), at("2030-03-08T17:31:00.000Z")))).toBe("2030-03-11T09:30:00.000Z");
    expect(iso(nextDue(every("0 0 1 jan,jul *"), at("2030-03-04T00:00:00.000Z")))).toBe("2030-07-01T00:00:00.000Z");
    expect(iso(nextDue(every("0 12 * * 7"), at("2030-03-04T00:00:00.000Z")))).toBe("2030-03-10T12:00:00.000Z");
    expect(iso(nextDue(every("0 0 29 2 *"), at("2030-03-04T00:00:00.000Z")))).toBe("2032-02-29T00:00:00.000Z");
  });

  it("when both day fields are restricted, either one makes a day due", () => {
    // 2030-03-04 is a Monday; the 15th is a Friday.
    expect(iso(nextDue(every("0 0 15 * mon"), at("2030-03-04T01:00:00.000Z")))).toBe("2030-03-11T00:00:00.000Z");
    expect(iso(nextDue(every("0 0 15 * mon"), at("2030-03-11T01:00:00.000Z")))).toBe("2030-03-15T00:00:00.000Z");
  });

  it("refuses what is not a schedule, saying why", () => {
    const message = (text: string) => {
      const r = parseEvery(text);
      return r.ok ? null : r.message;
    };
    expect(message("12h")).toMatch(/neither 6h, 1d, 7d nor a cron expression/);
    expect(message("* * * *")).toMatch(/5 fields/);
    expect(message("61 * * * *")).toMatch(/minute: '61' is outside 0-59/);
    expect(message("0 5-2 * * *")).toMatch(/runs backwards/);
    expect(message("*/0 * * * *")).toMatch(/step must be at least 1/);
    expect(message("0 0 * foo *")).toMatch(/month/);
    expect(message("0 0 30 2 *")).toMatch(/never comes due/);
    expect(message("0 0 * * 1")).toBeNull();
  });
});
