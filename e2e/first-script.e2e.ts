import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness';

/*
 * What every page's first script holds (issue #33: "the chart's code is not in the first page's
 * script"). The build writes, beside Vite's manifest, the npm packages whose code each chunk holds
 * and how much of it (vite.config.ts, chunkPackages). The first script is the entry chunk and every chunk it imports
 * statically: a page's first paint waits for all of them. The chart library (uPlot) belongs to the
 * dashboard's charts only, and zod to the forms' schemas, loaded when a form is first used
 * (b487097 once pulled zod into every page's entry by one import of a constant: 445 -> 529 kB;
 * its CSP setting kept 18 kB of zod's source there until it moved to src/shared/schemas/zod.ts).
 * The global setup of this lane has built the client (dist/client).
 */

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'client');
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<
  string,
  { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] }
>;
const packages = JSON.parse(readFileSync(path.join(dist, '.vite', 'chunk-packages.json'), 'utf8')) as Record<string, Record<string, number>>;

/** The manifest keys of a chunk and of every chunk it imports statically. */
function closure(key: string, into = new Set<string>()): Set<string> {
  if (into.has(key) || !manifest[key]) return into;
  into.add(key);
  for (const dep of manifest[key].imports ?? []) closure(dep, into);
  return into;
}

function packagesOf(keys: Iterable<string>): Set<string> {
  return new Set([...keys].flatMap((k) => Object.keys(packages[manifest[k].file] ?? {})));
}

const HEAVY = ['uplot', 'zod'];

describe('the first page’s script', () => {
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);

  it('holds React and the router but neither the chart library nor zod', () => {
    expect(entry).toBeDefined();
    const first = packagesOf(closure(entry as string));
    // the list is read from the build: the packages every page needs are there
    expect(first).toContain('react-dom');
    expect(first).toContain('react-router');
    for (const heavy of HEAVY) expect(first, `${heavy} is in the first page's script`).not.toContain(heavy);
  });

  it('leaves the chart library to the dashboard’s charts, loaded after the dashboard’s figures', () => {
    const page = Object.keys(manifest).find((k) => k.endsWith('src/client/pages/campaigns/DashboardPage.tsx'));
    const charts = Object.keys(manifest).find((k) => k.endsWith('src/client/pages/campaigns/DashboardCharts.tsx'));
    expect(charts, 'the dashboard charts are a chunk of their own').toBeDefined();
    expect(packagesOf(closure(charts as string))).toContain('uplot');
    // no chunk but the charts' own holds it
    const holders = Object.entries(packages)
      .filter(([, pkgs]) => 'uplot' in pkgs)
      .map(([file]) => file);
    expect(holders.every((file) => closure(charts as string).has(Object.keys(manifest).find((k) => manifest[k].file === file) ?? ''))).toBe(true);
    // the dashboard's own script (its figures and the owner's panels) needs neither: the payout form loads its schema when used
    expect(page).toBeDefined();
    const dashboard = packagesOf(closure(page as string));
    for (const heavy of HEAVY) expect(dashboard, `${heavy} is in the dashboard's first script`).not.toContain(heavy);
  });
});

describe('the forms’ schemas in the browser', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('check what a person typed without anything the page’s CSP forbids (zod is loaded with the form, jitless)', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto('/register');
    await page.getByLabel('Email').fill('not an address');
    await page.getByLabel('Username').fill('someone');
    await page.getByLabel('Password').fill('long enough password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    // the form's schema ran in the page: the field says what is wrong
    await expect.poll(() => page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  });
});
