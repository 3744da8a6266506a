import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle, startHarness, type Harness } from './harness';

/*
 * The API reference at /api/docs in Chromium: Swagger UI, served from this origin, renders the
 * document's operations under the app's Content-Security-Policy without a single violation, and
 * an operation opens from the keyboard, and the page fits from 320 px to desktop.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the page at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('the API reference page', () => {
  it('renders every tag and operation of the document, with no CSP violation', async () => {
    const { page } = await h.newPage();
    const violations: string[] = [];
    const failed: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    page.on('requestfailed', (r) => failed.push(r.url()));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective} ${e.blockedURI}`));
    });
    const doc = (await (await fetch(`${h.baseUrl}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>>; tags: { name: string }[] };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);

    const res = await page.goto('/api/docs');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.locator('.opblock').count()).toBe(operations);
    await expect.poll(() => page.locator('.opblock-tag').count()).toBe(doc.tags.length);
    await expect.poll(() => page.getByRole('heading', { name: /Kindling API/ }).count()).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    expect(failed).toEqual([]);

    // an operation opens from the keyboard and shows its answers
    const summary = page.locator('#operations-campaigns-getCampaigns .opblock-summary-control');
    await summary.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#operations-campaigns-getCampaigns .responses-wrapper').count()).toBe(1);
    expect(violations).toEqual([]);

    // from 320 px to desktop, the page never scrolls sideways
    for (const width of [320, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${width} px`).toBeLessThanOrEqual(width);
      const dir = process.env.E2E_SCREENSHOT_DIR;
      if (dir) {
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: path.join(dir, `api-docs-${width}.png`) });
      }
    }
  });
});
