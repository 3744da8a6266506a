import { M } from '../../../shared/messages';

const fmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** "Executes 5 Dec 2026 - 42 supporters", or "Open" when no date is set. */
export function coordinationText(executionDate: Date | null, supporters: number): string {
  if (!executionDate) return M.coordinationOpen;
  return `Executes ${fmt.format(executionDate)} - ${supporters} ${supporters === 1 ? 'supporter' : 'supporters'}`;
}
