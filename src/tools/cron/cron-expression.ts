/**
 * Five-field cron expressions in local time (`M H DoM Mon DoW`), as Claude Code's CronCreate takes them: `*`, values,
 * ranges `a-b`, steps `*\/n`, `a-b/n`, `a/n`, lists `a,b`; month and weekday names (`jan`, `mon`); weekday 7 is
 * Sunday. As in Vixie cron, when both day fields are restricted a day matching either one matches.
 */

export interface CronSchedule {
  readonly expression: string;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  /** The field was `*` or `*\/n`: the other day field alone decides. */
  readonly domStar: boolean;
  readonly dowStar: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** Where the first name counts from (months: 1). */
  readonly nameBase?: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAYS, nameBase: 0 },
];

/** The expression cannot be read; `message` says which field and why. */
export class CronSyntaxError extends Error {
  override readonly name = 'CronSyntaxError';
}

function value(text: string, spec: FieldSpec): number {
  const lower = text.toLowerCase();
  const byName = spec.names?.indexOf(lower) ?? -1;
  if (byName >= 0) return byName + (spec.nameBase ?? 0);
  if (!/^\d+$/.test(text)) throw new CronSyntaxError(`${spec.name}: "${text}" is not a number${spec.names ? ' or a name' : ''}`);
  const n = Number(text);
  if (n < spec.min || n > spec.max) throw new CronSyntaxError(`${spec.name}: ${n} is outside ${spec.min}-${spec.max}`);
  return n;
}

function parseField(text: string, spec: FieldSpec): Set<number> {
  const out = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw new CronSyntaxError(`${spec.name}: an empty list item in "${text}"`);
    const [range, stepText, extra] = item.split('/');
    if (extra !== undefined) throw new CronSyntaxError(`${spec.name}: "${item}" has two steps`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) throw new CronSyntaxError(`${spec.name}: step "${stepText}" must be a positive number`);
      step = Number(stepText);
    }
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [spec.min, spec.max];
    else if (range!.includes('-')) {
      const [a, b, more] = range!.split('-');
      if (more !== undefined || a === '' || b === '') throw new CronSyntaxError(`${spec.name}: "${range}" is not a range`);
      [from, to] = [value(a!, spec), value(b!, spec)];
      if (from > to) throw new CronSyntaxError(`${spec.name}: the range "${range}" runs backwards`);
    } else {
      from = value(range!, spec);
      // `a/n` is `a-max/n`; a bare value is itself.
      to = stepText !== undefined ? spec.max : from;
    }
    for (let n = from; n <= to; n += step) out.add(n);
  }
  return out;
}

export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 || parts[0] === '') {
    throw new CronSyntaxError(`a cron expression has 5 fields (minute hour day-of-month month day-of-week); "${expression}" has ${parts[0] === '' ? 0 : parts.length}`);
  }
  const sets = parts.map((p, i) => parseField(p, FIELDS[i]!));
  const dow = sets[4]!;
  if (dow.delete(7)) dow.add(0);
  return {
    expression: parts.join(' '),
    minutes: sets[0]!,
    hours: sets[1]!,
    daysOfMonth: sets[2]!,
    months: sets[3]!,
    daysOfWeek: dow,
    domStar: parts[2]!.startsWith('*'),
    dowStar: parts[4]!.startsWith('*'),
  };
}

function dayMatches(s: CronSchedule, d: Date): boolean {
  const dom = s.daysOfMonth.has(d.getDate());
  const dow = s.daysOfWeek.has(d.getDay());
  if (s.domStar && s.dowStar) return true;
  if (s.domStar) return dow;
  if (s.dowStar) return dom;
  return dom || dow;
}

/** Searched this far ahead at most: an expression such as `0 0 30 2 *` never matches. */
const HORIZON_MS = 5 * 366 * 24 * 3600_000;

/** The first minute strictly after `after` that the schedule matches (local time), or undefined if none within 5 years. */
export function nextFireAfter(s: CronSchedule, after: Date): Date | undefined {
  const d = new Date(after.getTime());
  d.setSeconds(0, 0);
  d.setMinutes(d.getMinutes() + 1);
  const limit = after.getTime() + HORIZON_MS;
  while (d.getTime() <= limit) {
    if (!s.months.has(d.getMonth() + 1)) {
      d.setMonth(d.getMonth() + 1, 1);
      d.setHours(0, 0, 0, 0);
    } else if (!dayMatches(s, d)) {
      d.setDate(d.getDate() + 1);
      d.setHours(0, 0, 0, 0);
    } else if (!s.hours.has(d.getHours())) {
      d.setHours(d.getHours() + 1, 0, 0, 0);
    } else if (!s.minutes.has(d.getMinutes())) {
      d.setMinutes(d.getMinutes() + 1, 0, 0);
    } else return d;
  }
  return undefined;
}

const pad = (n: number) => String(n).padStart(2, '0');
const single = (set: ReadonlySet<number>) => (set.size === 1 ? [...set][0]! : undefined);

/** The schedule in words, for the common shapes; otherwise the expression itself. */
export function describeCron(s: CronSchedule): string {
  const [m, h, dom, mon, dow] = s.expression.split(' ') as [string, string, string, string, string];
  const daysStar = dom === '*' && mon === '*' && dow === '*';
  const every = /^\*\/(\d+)$/;
  if (m === '*' && h === '*' && daysStar) return 'every minute';
  if (every.test(m) && h === '*' && daysStar) return `every ${every.exec(m)![1]} minutes`;
  const minute = single(s.minutes);
  const hour = single(s.hours);
  if (minute !== undefined && h === '*' && daysStar) return `every hour at minute ${minute}`;
  if (minute !== undefined && every.test(h) && daysStar) return `every ${every.exec(h)![1]} hours at minute ${minute}`;
  if (minute === undefined || hour === undefined) return `cron "${s.expression}" (local time)`;
  const at = `at ${pad(hour)}:${pad(minute)}`;
  if (daysStar) return `every day ${at}`;
  if (dom === '*' && mon === '*') return `every ${[...s.daysOfWeek].sort().map((d) => DAYS[d]).join(', ')} ${at}`;
  const day = single(s.daysOfMonth);
  const month = single(s.months);
  if (day !== undefined && dow === '*' && month !== undefined) return `on ${MONTHS[month - 1]} ${day} ${at}`;
  if (day !== undefined && dow === '*' && mon === '*') return `on day ${day} of every month ${at}`;
  return `cron "${s.expression}" (local time)`;
}
