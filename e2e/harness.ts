import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { buildApp } from '../src/server/app';
import { checkContract } from '../test/contract';
import { login, openTestDatabase, PASSWORD, testConfig } from '../test/helpers';
import { CONDITION_WAIT_MS } from '../test/limits';
import { freePort } from '../test/free-port';

export type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

export interface Harness {
  baseUrl: string;
  app: FastifyInstance;
  database: TestDatabase;
  browser: Browser;
  /** A fresh browser profile (cookies and storage of its own), like a second person. */
  newPage(): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/**
 * A real server on a database of this file's own, serving the built client, and a headless
 * Chromium. Tests read the outbox straight from the database.
 */
export async function startHarness(): Promise<Harness> {
  const database = await openTestDatabase();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // the tests' own REST calls (app.inject) are held against the API document too
  const app = checkContract(
    await buildApp({
      config: testConfig({ appUrl: baseUrl, port, rateLimitPerMinute: 100 }),
      db: database.db,
      client: 'built',
      logger: false,
    }),
  );
  await app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: inject('chromiumPath'),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  const contexts: BrowserContext[] = [];
  return {
    baseUrl,
    app,
    database,
    browser,
    async newPage() {
      const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(CONDITION_WAIT_MS);
      contexts.push(context);
      const page = await context.newPage();
      return { context, page };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await app.close();
      await database.close();
    },
  };
}

/**
 * Signs the page's browser profile in with the session cookie a login answers: what the login
 * form leaves behind, without loading the form (auth.e2e.ts and keyboard.e2e.ts log in through it).
 */
export async function signInWithCookie(h: Harness, page: Page, email: string, password = PASSWORD): Promise<void> {
  const session = await login(h.app, email, password);
  const at = session.cookie.indexOf('=');
  await page.context().addCookies([{ name: session.cookie.slice(0, at), value: session.cookie.slice(at + 1), url: h.baseUrl }]);
}

/**
 * Resolves once the page has rendered two more frames and run the tasks queued before them:
 * whatever a render just scheduled (an IntersectionObserver callback, an effect's fetch) has
 * started by then. Lets a test say "nothing more happened" without waiting a fixed time.
 */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));
}

/** Counts the requests whose URL contains `part` until `stop()` is called. */
export function countRequests(page: Page, part: string): { readonly count: number; stop(): void } {
  let count = 0;
  const listener = (req: { url(): string }) => {
    if (req.url().includes(part)) count++;
  };
  page.on('request', listener);
  return {
    get count() {
      return count;
    },
    stop: () => page.off('request', listener),
  };
}

let textWatchers = 0;

/**
 * Starts watching the page for a text that shows only for a moment (a message before the page
 * reloads, navigates or closes a dialog by itself): the promise resolves once the text has been in
 * the page, however briefly. A MutationObserver sees every change of the document as it happens,
 * so a busy machine cannot make the test miss the moment, as polling for it could. Call it before
 * the action that shows the text, and await what it answers after the action; it watches the
 * current document only. (It answers a function, not the promise itself, which an async function
 * would wait for before answering.)
 */
export async function watchText(page: Page, text: string): Promise<() => Promise<void>> {
  const name = `__kindlingSawText${++textWatchers}`;
  let resolve!: () => void;
  const seen = new Promise<void>((r) => (resolve = r));
  await page.exposeFunction(name, () => resolve());
  await page.evaluate(
    ({ name, text }) => {
      const report = (window as unknown as Record<string, () => void>)[name];
      const observer = new MutationObserver(() => {
        if (document.body.textContent?.includes(text)) {
          observer.disconnect();
          report();
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    { name, text },
  );
  return () => seen;
}

/**
 * The page's requests still waiting for their answer, from now on: a page has loaded what it
 * asked for when this is 0 (unlike Playwright's `networkidle`, which waits half a second of
 * silence each time).
 */
export function requestsInFlight(page: Page): () => number {
  const open = new Set<unknown>();
  page.on('request', (r) => open.add(r));
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  return () => open.size;
}

/**
 * The page never scrolls sideways at its width; with E2E_SCREENSHOT_DIR set, a full-page
 * screenshot `<name>-<width>.png` is saved there to look at.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()!.width;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
}

/** `shoot` at 320 and 1280 px (back to 1280 after). */
export async function shootBoth(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 320, height: 900 });
  await settle(page);
  await shoot(page, name);
  await page.setViewportSize({ width: 1280, height: 900 });
  await settle(page);
  await shoot(page, name);
}
