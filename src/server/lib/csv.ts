/** One CSV field: quoted when it holds a quote, comma or line break; a leading =, +, - or @ is kept from becoming a spreadsheet formula. */
export function csvField(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV document of header and rows (CRLF line ends, as RFC 4180 has them). */
export function csvDocument(header: string, rows: string[]): string {
  return `${[header, ...rows].join('\r\n')}\r\n`;
}

/** `<prefix>-<the title as a slug>.csv` (a campaign's export). */
export function csvFilename(prefix: string, title: string): string {
  const slug =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'campaign';
  return `${prefix}-${slug}.csv`;
}
