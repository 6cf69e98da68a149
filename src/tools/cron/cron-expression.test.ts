import { describe, expect, it } from 'vitest';
import { CronSyntaxError, describeCron, nextFireAfter, parseCron } from './cron-expression.js';

const at = (y: number, mo: number, d: number, h = 0, mi = 0) => new Date(y, mo - 1, d, h, mi);
const next = (expr: string, from: Date) => nextFireAfter(parseCron(expr), from);

describe('cron expressions', () => {
  it('read values, ranges, steps, lists and names; weekday 7 is Sunday', () => {
    const s = parseCron('*/15 9-17/4 1,15 jan-mar Sun,7');
    expect([...s.minutes]).toEqual([0, 15, 30, 45]);
    expect([...s.hours]).toEqual([9, 13, 17]);
    expect([...s.daysOfMonth]).toEqual([1, 15]);
    expect([...s.months]).toEqual([1, 2, 3]);
    expect([...s.daysOfWeek]).toEqual([0]);
    expect([...parseCron('5/20 * * * *').minutes]).toEqual([5, 25, 45]);
  });

  it('refuse what cron would not read, saying which field', () => {
    for (const [expr, problem] of [
      ['* * * *', /5 fields/],
      ['60 * * * *', /minute: 60 is outside 0-59/],
      ['* 24 * * *', /hour/],
      ['* * 0 * *', /day of month/],
      ['* * * 13 *', /month/],
      ['*/0 * * * *', /step/],
      ['5-1 * * * *', /backwards/],
      ['a * * * *', /not a number/],
      ['1,,2 * * * *', /empty/],
    ] as const) {
      expect(() => parseCron(expr), expr).toThrow(CronSyntaxError);
      expect(() => parseCron(expr), expr).toThrow(problem);
    }
  });

  it('find the next matching minute in local time, strictly after the given time', () => {
    expect(next('*/5 * * * *', at(2026, 3, 10, 12, 3))).toEqual(at(2026, 3, 10, 12, 5));
    expect(next('*/5 * * * *', at(2026, 3, 10, 12, 5))).toEqual(at(2026, 3, 10, 12, 10));
    expect(next('30 14 28 2 *', at(2026, 3, 1))).toEqual(at(2027, 2, 28, 14, 30));
    expect(next('0 9 * * 1-5', at(2026, 3, 14, 10))).toEqual(at(2026, 3, 16, 9)); // Saturday → Monday
    expect(next('0 0 29 2 *', at(2026, 1, 1))).toEqual(at(2028, 2, 29));
    expect(next('0 0 30 2 *', at(2026, 1, 1))).toBeUndefined();
  });

  it('match either day field when both are restricted, as Vixie cron does', () => {
    // The 13th (a Friday in March 2026 is the 13th too) or any Monday: the next after 2026-03-10 is Friday the 13th.
    expect(next('0 0 13 * 1', at(2026, 3, 10))).toEqual(at(2026, 3, 13));
    expect(next('0 0 20 * 1', at(2026, 3, 10))).toEqual(at(2026, 3, 16));
    // A starred day of month leaves the weekday alone to decide.
    expect(next('0 0 * * 1', at(2026, 3, 10))).toEqual(at(2026, 3, 16));
  });

  it('describe common schedules in words', () => {
    const d = (e: string) => describeCron(parseCron(e));
    expect(d('* * * * *')).toBe('every minute');
    expect(d('*/5 * * * *')).toBe('every 5 minutes');
    expect(d('7 * * * *')).toBe('every hour at minute 7');
    expect(d('0 */2 * * *')).toBe('every 2 hours at minute 0');
    expect(d('30 9 * * *')).toBe('every day at 09:30');
    expect(d('0 9 * * 1-5')).toBe('every mon, tue, wed, thu, fri at 09:00');
    expect(d('30 14 28 2 *')).toBe('on feb 28 at 14:30');
    expect(d('0 8 1 * *')).toBe('on day 1 of every month at 08:00');
    expect(d('1,2 3 * * *')).toBe('cron "1,2 3 * * *" (local time)');
  });
});
