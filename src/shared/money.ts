import type { Currency } from './constants';

/**
 * Money is integer minor units (cents) everywhere but the API's documented number fields,
 * which are major units with at most two decimals.
 */
export function toMinor(major: number): number {
  // via the decimal string, so 0.29 becomes 29 and not 28.999...
  const [whole, frac = ''] = Math.abs(major).toFixed(2).split('.');
  const minor = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  return major < 0 ? -minor : minor;
}

export function toMajor(minor: number): number {
  return minor / 100;
}

export const CURRENCY_SYMBOL: Record<Currency, string> = { USD: '$', EUR: '€', GBP: '£' };

/** '$1,234.50': two decimals and the currency's symbol. */
/** Built once: a formatter per call costs more than the formatting. */
const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatMoney(major: number, currency: Currency = 'USD'): string {
  const sign = major < 0 ? '-' : '';
  const abs = TWO_DECIMALS.format(Math.abs(major));
  return `${sign}${CURRENCY_SYMBOL[currency] ?? ''}${abs}`;
}
