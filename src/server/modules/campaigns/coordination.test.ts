import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coordinationText, formatDay } from './coordination';

const intl = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

describe('coordination line', () => {
  it('writes the day exactly as Intl does, for any date', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(formatDay(d)).toBe(intl.format(d));
      }),
      { numRuns: 2000 },
    );
  });

  it('names the date and the supporters, or says Open', () => {
    expect(coordinationText(new Date('2026-09-05T23:30:00Z'), 1)).toBe(`Executes ${intl.format(new Date('2026-09-05T12:00:00Z'))} - 1 supporter`);
    expect(coordinationText(new Date('2026-12-05T00:00:00Z'), 42)).toBe('Executes 5 Dec 2026 - 42 supporters');
    expect(coordinationText(null, 3)).toBe('Open');
  });
});
