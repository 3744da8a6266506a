import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { ensureClientBuilt } from '../src/server/build-client';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

/**
 * Where a Chromium can be found: CHROMIUM_PATH, the system's headless shell, the system's browser,
 * or one Playwright downloaded. The headless shell (Debian: `chromium-headless-shell`, the same
 * Chromium build without the browser's windows; Playwright's own choice for headless runs) takes
 * about a third less CPU time for the same pages than the full browser in its headless mode, and
 * Chromium is most of the browser lane's CPU time.
 */
async function findChromium(): Promise<string | null> {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium-headless-shell',
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    const { chromium } = await import('playwright-core');
    const p = chromium.executablePath();
    if (p && existsSync(p)) return p;
  } catch {
    // no bundled browser
  }
  return null;
}

/** Browser tests need the built client and a Chromium; both are checked once per run. */
export default async function setup(project: TestProject) {
  const chromium = await findChromium();
  if (!chromium) {
    throw new Error(
      'Browser tests need Chromium. Install it (Debian/Ubuntu: `apt-get install chromium`; elsewhere `npx playwright-core install chromium`) or set CHROMIUM_PATH.',
    );
  }
  project.provide('chromiumPath', chromium);
  await ensureClientBuilt();
}
