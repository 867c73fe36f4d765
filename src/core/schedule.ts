/**
 * When a practice schedule is due: a fixed interval (`6h`, `1d`, `7d`, aligned to the Unix epoch in
 * UTC, so `1d` is midnight UTC and `6h` is 00:00, 06:00, 12:00 and 18:00 UTC) or a five-field cron
 * expression evaluated in UTC.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const INTERVALS = { "6h": 6 * HOUR, "1d": DAY, "7d": 7 * DAY } as const;
type IntervalName = keyof typeof INTERVALS;

export interface CronSpec {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Cron's rule: when both day fields are restricted, a day matching either one is due. */
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
}

export type Every = { kind: "interval"; ms: number } | { kind: "cron"; spec: CronSpec };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

interface FieldRange {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldRange[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] },
  // 7 is Sunday as well as 0, as in most crons.
  { name: "day of week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

/** Long enough for the rarest real expression (29 February, up to 8 years apart across 2100). */
const HORIZON_MS = 9 * 366 * DAY;

function value(text: string, f: FieldRange): number | null {
  const named = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (f.name === "month" ? 1 : 0);
  if (!/^\d{1,2}$/.test(text)) return null;
  const n = Number(text);
  return n >= f.min && n <= f.max ? n : null;
}

function field(text: string, f: FieldRange): Parsed<Set<number>> {
  const out = new Set<number>();
  for (const item of text.split(",")) {
    const m = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d{1,2}))?$/i.exec(item);
    if (!m) return { ok: false, message: `${f.name}: '${item}' is not a value, range or step` };
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (step < 1) return { ok: false, message: `${f.name}: the step must be at least 1` };
    let lo = f.min;
    let hi = f.max;
    if (m[1] !== "*") {
      const [a, b] = m[1]!.split("-");
      const from = value(a!, f);
      const to = b === undefined ? (m[2] === undefined ? from : f.max) : value(b, f);
      if (from === null || to === null) return { ok: false, message: `${f.name}: '${item}' is outside ${f.min}-${f.max}` };
      if (from > to) return { ok: false, message: `${f.name}: the range '${item}' runs backwards` };
      lo = from;
      hi = to;
    }
    for (let v = lo; v <= hi; v += step) out.add(f.name === "day of week" ? v % 7 : v);
  }
  return { ok: true, value: out };
}

export function parseCron(text: string): Parsed<CronSpec> {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5)
    return { ok: false, message: `a cron expression has 5 fields (minute hour day-of-month month day-of-week), this has ${parts.length}` };
  const sets: Set<number>[] = [];
  for (let i = 0; i < 5; i++) {
    const r = field(parts[i]!, FIELDS[i]!);
    if (!r.ok) return r;
    sets.push(r.value);
  }
  const [minutes, hours, days, months, weekdays] = sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  const spec = {
    minutes,
    hours,
    days,
    months,
    weekdays,
    daysRestricted: !parts[2]!.startsWith("*"),
    weekdaysRestricted: !parts[4]!.startsWith("*"),
  };
  return { ok: true, value: spec };
}

/** `6h`, `1d`, `7d` or a cron expression; an expression that never comes due is refused too. */
export function parseEvery(text: string): Parsed<Every> {
  if (Object.hasOwn(INTERVALS, text)) return { ok: true, value: { kind: "interval", ms: INTERVALS[text as IntervalName] } };
  if (!/\s/.test(text.trim())) return { ok: false, message: `'${text}' is neither 6h, 1d, 7d nor a cron expression` };
  const cron = parseCron(text);
  if (!cron.ok) return cron;
  const every: Every = { kind: "cron", spec: cron.value };
  if (nextDue(every, 0) === null) return { ok: false, message: "the cron expression never comes due (no such date)" };
  return { ok: true, value: every };
}

function dayMatches(s: CronSpec, d: Date): boolean {
  const dom = s.days.has(d.getUTCDate());
  const dow = s.weekdays.has(d.getUTCDay());
  if (s.daysRestricted && s.weekdaysRestricted) return dom || dow;
  if (s.daysRestricted) return dom;
  if (s.weekdaysRestricted) return dow;
  return true;
}

/** The first due time strictly after `after` (epoch ms), or null when there is none within years. */
export function nextDue(every: Every, after: number): number | null {
  if (every.kind === "interval") return (Math.floor(after / every.ms) + 1) * every.ms;
  const s = every.spec;
  let t = (Math.floor(after / MINUTE) + 1) * MINUTE;
  const end = after + HORIZON_MS;
  while (t <= end) {
    const d = new Date(t);
    const [y, mo, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
    if (!s.months.has(mo + 1)) t = Date.UTC(y, mo + 1, 1);
    else if (!dayMatches(s, d)) t = Date.UTC(y, mo, day + 1);
    else if (!s.hours.has(h)) t = Date.UTC(y, mo, day, h + 1);
    else if (!s.minutes.has(d.getUTCMinutes())) t += MINUTE;
    else return t;
  }
  return null;
}
