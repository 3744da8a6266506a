/**
 * The formatters are made on first use, not when this module loads: a page's first Intl formatter
 * loads the browser's locale data (tens of milliseconds on a phone), which a page showing no date
 * never needs to pay for.
 */
function lazyFormat(options: Intl.DateTimeFormatOptions): (d: Date) => string {
  let format: Intl.DateTimeFormat | undefined;
  return (d) => {
    format ??= new Intl.DateTimeFormat(undefined, options);
    return format.format(d);
  };
}

/** '5 Dec 2026' (in the reader's locale). */
export const formatDate = lazyFormat({ dateStyle: 'medium' });

/** '5 Dec 2026, 14:05' (in the reader's locale). */
export const formatDateTime = lazyFormat({ dateStyle: 'medium', timeStyle: 'short' });

const formatUtcDate = lazyFormat({ dateStyle: 'medium', timeZone: 'UTC' });

/**
 * A campaign's execution date: a day picked on the form is stored as midnight UTC and reads as
 * that day ('5 Dec 2026', as in the coordination line); one with a time of day reads with it, in
 * the reader's time zone ('5 Dec 2026, 14:05').
 */
export function formatExecutionDate(d: Date): string {
  const dayOnly = d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0;
  return dayOnly ? formatUtcDate(d) : formatDateTime(d);
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const plural = (n: number, unit: string) => `in ${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * The time left until `target` when it is in the next 7 days: 'in 3 days', 'in 5 hours',
 * 'in 12 minutes' (whole units, rounded down; the last minute reads 'in 1 minute'). Null when
 * it has passed or is further away.
 */
export function countdown(target: Date, now: number = Date.now()): string | null {
  const ms = target.getTime() - now;
  if (!(ms > 0) || ms > 7 * DAY_MS) return null;
  if (ms >= DAY_MS) return plural(Math.floor(ms / DAY_MS), 'day');
  if (ms >= HOUR_MS) return plural(Math.floor(ms / HOUR_MS), 'hour');
  return plural(Math.max(1, Math.floor(ms / MINUTE_MS)), 'minute');
}
