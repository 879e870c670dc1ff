import { describe, expect, it } from 'vitest';
import { clockTime, dateTime, fullDate, monthDay } from './dates';

describe('dates as en-US writes them', () => {
  it('writes days and times in the local time zone, noon and midnight as 12', () => {
    const at = (h: number, m: number) => new Date(2026, 11, 3, h, m);
    expect(monthDay(at(9, 5))).toBe('Dec 3');
    expect(fullDate(new Date(2027, 0, 31))).toBe('Jan 31, 2027');
    expect([at(0, 0), at(0, 7), at(11, 59), at(12, 0), at(15, 5), at(23, 59)].map(clockTime)).toEqual(['12:00 AM', '12:07 AM', '11:59 AM', '12:00 PM', '3:05 PM', '11:59 PM']);
    expect(dateTime(at(15, 5))).toBe('Dec 3, 2026, 3:05 PM');
    // The same words as toLocale*String gives en-US (its spaces aside).
    const space = (s: string) => s.replace(/\s/g, ' ');
    for (const date of [at(0, 7), at(12, 0), at(15, 5)]) {
      expect(clockTime(date)).toBe(space(date.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' })));
      expect(fullDate(date)).toBe(date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' }));
    }
  });
});
