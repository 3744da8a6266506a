import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';
import { settle } from './harness';

/** axe-core's minified build, read once per test file. */
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG tags every axe check of the browser tests runs (2.0 A/AA, 2.1 AA, 2.2 AA), as e2e/a11y-pass.ts. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'];

/**
 * axe-core over the page as it stands, at 1280 and 390 px (back to 1280 after): the violations
 * found, as lines naming the width, the rule and the elements. Used by the files that check one
 * screen in the middle of a path (the a11y pass visits every route on its own).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const found: string[] = [];
  // evaluated by the browser's devtools protocol, which the page's Content-Security-Policy does not govern
  await page.evaluate(AXE_SOURCE);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    const result = await page.evaluate(
      (tags) =>
        (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<AxeResults> } }).axe.run(document, {
          runOnly: { type: 'tag', values: tags },
          resultTypes: ['violations'],
        }),
      AXE_TAGS,
    );
    for (const v of result.violations) found.push(`@${width}px ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}
