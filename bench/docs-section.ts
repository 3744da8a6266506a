import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes a generated part of docs/benchmarks.md: `body` between the part's markers
 * (`<!-- results NAME -->` ... `<!-- /results NAME -->`), in place of what they held; without the
 * markers, right after the text under `heading`; without the heading, at the end under it.
 */
export function writeDocsSection(docs: string, header: string, part: { heading: string; name: string }, body: string): void {
  const start = `<!-- results ${part.name} -->`;
  const end = `<!-- /results ${part.name} -->`;
  let doc = existsSync(docs) ? readFileSync(docs, 'utf8') : header;
  const section = `${start}\n${body.trim()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i >= 0 && j > i) doc = doc.slice(0, i) + section + doc.slice(j + end.length);
  else if (doc.includes(part.heading)) {
    const at = doc.indexOf(part.heading);
    const next = doc.indexOf('\n## ', at + part.heading.length);
    const stop = next < 0 ? doc.length : next;
    doc = `${doc.slice(0, stop).trimEnd()}\n\n${section}\n${next < 0 ? '' : `\n${doc.slice(stop + 1)}`}`;
  } else doc = `${doc.trimEnd()}\n\n${part.heading}\n\n${section}\n`;
  writeFileSync(docs, doc);
}
