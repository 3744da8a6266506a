/**
 * The app's CSV exports (a campaign's donations, its supporters): RFC 4180, with CRLF line ends
 * and every field in double quotes (a quote inside doubled).
 *
 * No field can start a formula in a spreadsheet, whatever separator the reader splits on: a
 * comma, or the `;` or tab of German, French or Dutch settings, which may ignore the quotes and
 * cut a field in the middle. So wherever a cell could begin in a field's text (its start, and
 * after each `,`, `;`, tab or line break inside it), if the first character past any spaces and
 * quotes there is `=`, `+`, `-` or `@`, a `'` goes before it: `Ann;=HYPERLINK(…)` is written
 * `"Ann;'=HYPERLINK(…)"`, and a reader splitting on `;` gets a cell `'=HYPERLINK(…)`, text.
 *
 * The app's own values (dates, amounts with 2 decimals, currency codes, statuses, ids) never
 * start with one of those: no export writes a negative amount (a refund is a status, not a minus
 * sign). One that did would read `'-5.00`: legible, though a spreadsheet would take it as text.
 */

/** Where a cell may begin in a field's text and the next non-blank character starts a formula. */
const FORMULA_START = /(^|[,;\t\r\n])([\s"]*)(?=[=+\-@])/g;

/** The text of a field with a `'` before each character that could start a formula (see above). */
export function defuseFormulas(text: string): string {
  return text.replace(FORMULA_START, "$1$2'");
}

/** One CSV field: quoted, its quotes doubled, kept from starting a formula. */
export function csvField(value: string): string {
  return `"${defuseFormulas(value).replace(/"/g, '""')}"`;
}

/** One CSV line of fields (no line end). */
export function csvRow(fields: readonly string[]): string {
  return fields.map(csvField).join(',');
}

/**
 * The fields of one CSV line as RFC 4180 reads them (quoted fields may hold commas, quotes and
 * line breaks): a line joined by hand from `csvField`s and plain values.
 */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) {
          field += line.slice(i);
          i = line.length;
          break;
        }
        field += line.slice(i, q);
        i = q + 1;
        if (line[i] !== '"') break;
        field += '"';
        i++;
      }
      // anything between the closing quote and the next comma belongs to the field
      const comma = line.indexOf(',', i);
      field += line.slice(i, comma < 0 ? line.length : comma);
      i = comma < 0 ? line.length : comma;
    } else {
      const comma = line.indexOf(',', i);
      field = line.slice(i, comma < 0 ? line.length : comma);
      i = comma < 0 ? line.length : comma;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++;
  }
}

/** A CSV document: the header and the rows, each a list of its fields' texts (CRLF line ends, as RFC 4180 has them). */
export function csvDocument(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return `${[header, ...rows].map(csvRow).join('\r\n')}\r\n`;
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
