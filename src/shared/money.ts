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

/**
 * '$1,234.50': two decimals and the currency's symbol, digits grouped by threes with commas (as
 * en-US writes them). Written out rather than with Intl.NumberFormat: a page's first Intl
 * formatter loads the browser's locale data, tens of milliseconds of a phone's main thread
 * before the first amount can show, for a format that never changes with the reader's locale.
 */
export function formatMoney(major: number, currency: Currency = 'USD'): string {
  const sign = major < 0 ? '-' : '';
  // toFixed rounds the exact value half up, as Intl's default (halfExpand) does for a magnitude
  const [whole, cents] = Math.abs(major).toFixed(2).split('.');
  const abs = `${whole.replace(/\B(?=(\d{3})+$)/g, ',')}.${cents}`;
  return `${sign}${CURRENCY_SYMBOL[currency] ?? ''}${abs}`;
}
