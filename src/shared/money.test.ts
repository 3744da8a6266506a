import { describe, expect, it } from 'vitest';
import { formatMoney, toMajor } from './money';

const intl = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

describe('formatMoney', () => {
  it('writes amounts as en-US does: the symbol, commas between thousands, two decimals', () => {
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(5)).toBe('$5.00');
    expect(formatMoney(1234.5)).toBe('$1,234.50');
    expect(formatMoney(1_000_000, 'EUR')).toBe('€1,000,000.00');
    expect(formatMoney(999.999, 'GBP')).toBe('£1,000.00');
    expect(formatMoney(-12.3)).toBe('-$12.30');
    expect(formatMoney(100_000)).toBe('$100,000.00');
  });

  it('reads the same as Intl.NumberFormat for every amount in cents up to a billion dollars', () => {
    // minor units as the app stores them: a stride through the first $100,000, then a spread up to a billion dollars
    const minors = [...Array.from({ length: 10_000_000 / 997 }, (_, i) => i * 997), ...Array.from({ length: 2000 }, (_, i) => Math.round(1.0093 ** i * 100))];
    for (const minor of minors) {
      const major = toMajor(minor);
      expect(formatMoney(major), String(minor)).toBe(`$${intl.format(major)}`);
      expect(formatMoney(-major), String(-minor)).toBe(`${minor ? '-' : ''}$${intl.format(major)}`);
    }
  });
});
