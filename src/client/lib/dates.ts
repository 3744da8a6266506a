const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** '5 Dec 2026' (in the reader's locale). */
export function formatDate(d: Date): string {
  return dateFormat.format(d);
}

/** '5 Dec 2026, 14:05' (in the reader's locale). */
export function formatDateTime(d: Date): string {
  return dateTimeFormat.format(d);
}
