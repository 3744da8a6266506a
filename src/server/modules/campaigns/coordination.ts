import { M } from '../../../shared/messages';

const fmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
/**
 * The month names `fmt` writes ("Jan" ... "Sept" ... "Dec"), taken from `fmt` itself: a list
 * answers every campaign's line without calling Intl for each (a hot path of the lists).
 */
const MONTHS = Array.from({ length: 12 }, (_, m) => fmt.formatToParts(Date.UTC(2000, m, 15)).find((p) => p.type === 'month')!.value);

/** "5 Dec 2026", as `fmt` writes it (coordination.test.ts checks that for any date). */
export function formatDay(d: Date): string {
  const year = d.getUTCFullYear();
  if (year < 1 || year > 9999) return fmt.format(d);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${year}`;
}

/** "Executes 5 Dec 2026 - 42 supporters", or "Open" when no date is set. */
export function coordinationText(executionDate: Date | null, supporters: number): string {
  if (!executionDate) return M.coordinationOpen;
  return `Executes ${formatDay(executionDate)} - ${supporters} ${supporters === 1 ? 'supporter' : 'supporters'}`;
}
