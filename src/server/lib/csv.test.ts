import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvDocument, csvField, csvFilename, csvRow, defuseFormulas, parseCsvLine } from './csv';

/** Every cell a reader gets that cuts each line on `separator`, quotes ignored: stripped of spaces and quotes around it. */
const cells = (csv: string, separator: string) =>
  csv
    .split(/\r\n|\r|\n/)
    .flatMap((line) => line.split(separator))
    .map((cell) => cell.replace(/^[\s"]+|[\s"]+$/g, ''));
const formulaCells = (csv: string) => [',', ';', '\t'].flatMap((sep) => cells(csv, sep)).filter((cell) => /^[=+\-@]/.test(cell));

describe('a CSV field', () => {
  it('is always quoted, its quotes doubled', () => {
    expect(csvField('plain')).toBe('"plain"');
    expect(csvField('')).toBe('""');
    expect(csvField('say "hi", then\r\nleave')).toBe('"say ""hi"", then\r\nleave"');
    expect(csvRow(['a', 'b,c', ''])).toBe('"a","b,c",""');
  });

  it('gets a quote mark before each character that could start a formula, at its start or after any separator', () => {
    expect(csvField('=1+2')).toBe(`"'=1+2"`);
    expect(csvField('+1')).toBe(`"'+1"`);
    expect(csvField('-1')).toBe(`"'-1"`);
    expect(csvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvField('Ann;=1+2')).toBe(`"Ann;'=1+2"`);
    expect(csvField('Ann; =1')).toBe(`"Ann; '=1"`);
    expect(csvField('Bob\t@x')).toBe(`"Bob\t'@x"`);
    expect(csvField('Cy,-3')).toBe(`"Cy,'-3"`);
    expect(csvField('Di;"+5')).toBe(`"Di;""'+5"`);
    expect(csvField('Ed\n=cmd')).toBe(`"Ed\n'=cmd"`);
    // the same character elsewhere is text, left as it is
    expect(csvField('Anne-Marie = me + you @ home')).toBe('"Anne-Marie = me + you @ home"');
    expect(csvField("'=already")).toBe(`"'=already"`);
  });

  it('is defused once: doing it again changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', ',', ';', '\t', '\r', '\n', ' ', '"', "'", 'a') }), (s) => {
        expect(defuseFormulas(defuseFormulas(s))).toBe(defuseFormulas(s));
      }),
    );
  });

  it('never gives a cell that starts a formula, whatever the text and whichever separator the reader cuts on', () => {
    const unit = fc.oneof(fc.constantFrom('=', '+', '-', '@', ',', ';', '\t', '\r', '\n', ' ', '\u00a0', '"', "'"), fc.string({ maxLength: 1 }));
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 12 }), { minLength: 1, maxLength: 4 }), (fields) => {
        expect(formulaCells(csvDocument(['a', 'b'], [fields]))).toEqual([]);
        // read back as RFC 4180 has it, each field is its text with the quote marks added
        expect(parseCsvLine(csvRow(fields))).toEqual(fields.map(defuseFormulas));
      }),
      { numRuns: 500 },
    );
  });
});

describe('a CSV document', () => {
  it('has a header, CRLF line ends, and every field quoted', () => {
    expect(csvDocument(['date', 'name'], [['2030-01-01', 'Ann;=1']])).toBe(`"date","name"\r\n"2030-01-01","Ann;'=1"\r\n`);
  });

  it('is read back field by field, quotes, commas and line breaks included', () => {
    const fields = ['2030-01-01T00:00:00.000Z', 'Ann, "the" one', '5.00', 'USD', 'two\r\nlines'];
    expect(parseCsvLine(csvRow(fields))).toEqual(fields);
    expect(parseCsvLine('')).toEqual(['']);
    expect(parseCsvLine('a,,b,')).toEqual(['a', '', 'b', '']);
    expect(parseCsvLine('"a\r\nb","c""d"')).toEqual(['a\r\nb', 'c"d']);
  });

  it('is named after its campaign', () => {
    expect(csvFilename('donations', 'Bookkeeping, "quoted"')).toBe('donations-bookkeeping-quoted.csv');
    expect(csvFilename('supporters', '!!!')).toBe('supporters-campaign.csv');
  });
});
