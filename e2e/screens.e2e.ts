import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { call, signUp, signUpVerified } from '../test/helpers';
import { requestsInFlight, settle, signInWithCookie, startHarness, type Harness } from './harness';
import { sideways } from './sideways';

/*
 * Every screen from 320 px up (that no page scrolls sideways is checked with axe, a11y-pass.ts): lists
 * are cards below 640 px and tables from 640 px with the same facts and actions, the navigation
 * folds into a Menu button that works by keyboard, nothing moves when a list's data arrives,
 * and an empty list offers the next step.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves each list page at 320, 390 and 1280 px and the open
 * menu at 320 and 390 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Person = Awaited<ReturnType<typeof signUp>>;

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const menuButton = (page: Page) => nav(page).getByRole('button', { name: 'Menu' });

const logIn = (page: Page, email: string) => signInWithCookie(h, page, email);

async function post(who: Person, url: string, payload: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await call(h.app, who, { method: 'POST', url, payload: payload as object, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBeOneOf([200, 201]);
  return (res.json() as { _id: string })._id;
}

/** Waits until no list or page is loading any more, then two frames. */
async function loaded(page: Page) {
  await expect.poll(() => page.locator('.loading, .list-skeleton').count()).toBe(0);
  await settle(page);
}

async function shoot(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}-${page.viewportSize()!.width}.png`), fullPage: true });
}

describe('an empty instance', () => {
  it('says what each list is for and offers the next step: sign up when signed out, start one when signed in', async () => {
    const { page } = await h.newPage();
    for (const [route, text, purpose] of [
      ['/campaigns', 'No campaigns found.', 'Campaigns collect donations'],
      ['/projects', 'No projects found.', 'Projects gather people and teams'],
      ['/teams', 'No teams found.', 'Teams gather people around a project'],
    ] as const) {
      await page.goto(route);
      await page.getByText(text, { exact: true }).waitFor();
      await page.getByText(purpose).waitFor();
      const signUpLink = page.getByRole('link', { name: 'Sign up to start one' });
      expect(await signUpLink.getAttribute('href')).toBe('/register');
    }
    for (const width of [320, 390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto('/campaigns');
      await page.getByText('No campaigns found.', { exact: true }).waitFor();
      await shoot(page, 'empty-campaigns');
    }

    const first = await signUp(h.app, { username: 'first_maker' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await logIn(page, first.email);
    await page.goto('/campaigns');
    await page.getByText('No campaigns found.', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Start the first campaign' }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns/new`);
    await page.goto('/projects');
    await page.getByRole('link', { name: 'Start the first project' }).click();
    await page.waitForURL(`${h.baseUrl}/projects/new`);
    await page.goto('/teams');
    await page.getByRole('link', { name: 'Create the first team' }).click();
    await page.waitForURL(`${h.baseUrl}/teams/new`);

    // a search with no match keeps the spec's text and offers to clear it
    await page.goto('/campaigns?q=nothingmatches');
    await page.getByText('No campaigns found.', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Show all' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('');

    // the signed-in person's own lists: the spec's placeholder, then the next step
    await page.goto('/myProjects');
    await page.getByText('Your projects will appear here.', { exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Start your first project' }).getAttribute('href')).toBe('/projects/new');
    await page.goto('/favorites');
    await page.getByText('No favorites in this tab.', { exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Browse campaigns' }).getAttribute('href')).toBe('/campaigns');
  });
});

describe('with data', () => {
  let owner: Person;
  let admin: Person;
  let campaignId: string;
  let projectId: string;
  const CAMPAIGN = 'Night market lanterns for the whole riverside street';
  const PROJECT = 'Riverside mural with the neighbours';
  const TEAM = 'Lantern builders';

  beforeAll(async () => {
    owner = await signUpVerified(h.app, h.database, { username: 'lantern_keeper' });
    admin = await signUp(h.app, { username: 'screens_admin' });
    expect(await setAdmin(h.database.db, admin.email, true)).toBe(true);
    campaignId = await post(owner, '/api/campaigns', {
      title: CAMPAIGN,
      description: 'Paper lanterns along the river for the night market.',
      tags: ['lanterns', 'market'],
      goalAmount: 500,
      currency: 'USD',
      actionMode: 'donation',
    });
    for (let i = 1; i <= 3; i++) {
      await post(owner, '/api/campaigns', { title: `Small campaign ${i}`, goalAmount: 10 * i, currency: 'EUR', actionMode: 'donation' });
    }
    projectId = await post(owner, '/api/projects', { title: PROJECT, tags: ['mural', 'paint'], goalAmount: 30 });
    await post(owner, '/api/teams', { name: TEAM, projectId, tags: ['carpentry', 'paper', 'lighting'] });
    // the owner gives monthly to their own campaign, favorites it and follows the project
    await post(
      owner,
      `/api/campaigns/${campaignId}/donations`,
      { amount: 1500, card: '4242424242424242', monthly: true },
      { 'idempotency-key': 'screens-monthly-1' },
    );
    await post(owner, '/api/favorites', { targetType: 'campaign', targetId: campaignId });
    await post(owner, '/api/favorites', { targetType: 'project', targetId: projectId });
    await post(owner, '/api/favorites', { targetType: 'profile', targetId: admin.userId });
  });

  /** A table row's facts: its title, then the texts of its data cells that hold one. */
  const rowFacts = async (row: Locator) => [
    (await row.getByRole('rowheader').innerText()).trim(),
    ...(await row.locator('td:not(.thumb-cell):not(.actions-cell)').allInnerTexts()).map((t) => t.trim().replace(/\s+/g, ' ')).filter(Boolean),
  ];
  /** A card's facts: its title, then each fact's value. */
  const cardFacts = async (card: Locator) => [
    (await card.getByRole('heading').innerText()).trim(),
    ...(await card.locator('dd').allInnerTexts()).map((t) => t.trim().replace(/\s+/g, ' ')).filter(Boolean),
  ];
  const actionNames = async (scope: Locator) =>
    (
      await scope
        .getByRole('link')
        .or(scope.getByRole('button'))
        .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent?.trim() ?? ''))
    ).filter((n) => n.startsWith('Open') || n.includes('Favorite') || n.startsWith('Cancel'));

  it('lists are cards below 640 px and tables from 640 px, with the same facts and actions', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    const cases = [
      // the spec's table view (the default view is image-first cards: discover.e2e.ts)
      {
        route: '/campaigns?view=table',
        list: 'Campaigns',
        title: CAMPAIGN,
        columns: ['Title', 'Creator', 'Type', 'Coordination', 'Raised', 'Support'],
        favorite: true,
      },
      {
        route: '/projects?view=table',
        list: 'Projects',
        title: PROJECT,
        columns: ['Title', 'Creator', 'Type', 'Coordination', 'Raised', 'Support'],
        favorite: true,
      },
      { route: '/teams', list: 'Teams', title: TEAM, columns: ['Name', 'Looking for', 'Members'], favorite: false },
      { route: '/my?tab=supported', list: 'Monthly donations', title: CAMPAIGN, columns: ['Campaign', 'Amount', 'Status', 'Next charge'], favorite: false },
    ];
    for (const c of cases) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(c.route);
      await loaded(page);
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: c.title, exact: true }) });
      await row.waitFor();
      // the table's column names (shown in capitals) are the card's fact names
      const headers = (await row.locator('xpath=ancestor::table').locator('thead th').allInnerTexts()).map((t) => t.trim().toLowerCase());
      for (const col of c.columns) expect(headers).toContain(col.toLowerCase());
      if (c.favorite) await row.getByRole('button', { name: `★ Favorited: ${c.title}` }).waitFor();
      const fromTable = await rowFacts(row);
      const tableActions = await actionNames(row);
      await shoot(page, `list${c.route.replace(/[/?=]/g, '-')}`);
      // at 640 px the table stays in its box (it scrolls inside; its hidden column names too)
      await page.setViewportSize({ width: 640, height: 900 });
      await row.waitFor();
      expect(await sideways(page)).toBeLessThanOrEqual(0);

      for (const width of [390, 320]) {
        await page.setViewportSize({ width, height: 800 });
        await loaded(page);
        expect(
          await page
            .locator('table')
            .filter({ has: page.getByRole('rowheader', { name: c.title, exact: true }) })
            .count(),
        ).toBe(0);
        const card = page
          .getByRole('list', { name: c.list, exact: true })
          .getByRole('listitem')
          .filter({ has: page.getByRole('heading', { name: c.title, exact: true }) });
        await card.waitFor();
        if (c.favorite) await card.getByRole('button', { name: `★ Favorited: ${c.title}` }).waitFor();
        // each fact under its column's name
        const names = (await card.locator('dt').allInnerTexts()).map((t) => t.trim().toLowerCase());
        expect(names).toEqual(c.columns.slice(1).map((t) => t.toLowerCase()));
        expect(await cardFacts(card)).toEqual(fromTable);
        expect(await actionNames(card)).toEqual(tableActions);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        await shoot(page, `list${c.route.replace(/[/?=]/g, '-')}`);
      }
    }
    // the other lists are cards at every width; their pages fit too (screenshots to look at)
    for (const route of [
      '/profiles',
      '/favorites',
      '/favorites?tab=project',
      '/favorites?tab=profile',
      '/my',
      '/my?tab=teams',
      '/myCampaigns',
      '/myProjects',
      `/profiles/${owner.userId}`,
    ]) {
      // loaded once, at the narrowest width, then widened (as the lists above are narrowed)
      await page.setViewportSize({ width: 320, height: 800 });
      await page.goto(route);
      for (const width of [320, 390, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        await loaded(page);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        await shoot(page, `list${route.replace(/[/?=]/g, '-')}`);
      }
    }
  });

  it('below 640 px the navigation is a Menu button: open, Tab through, Escape closes and the focus returns', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    for (const width of [320, 390]) {
      await page.setViewportSize({ width, height: 700 });
      await page.goto('/campaigns');
      await loaded(page);
      const button = menuButton(page);
      expect(await button.getAttribute('aria-expanded')).toBe('false');
      const menu = page.locator(`[id="${await button.getAttribute('aria-controls')}"]`);
      expect(await menu.isVisible()).toBe(false);

      // by keyboard: Tab from the top of the page reaches the button (skip link, brand, Menu)
      await page.locator('body').focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
      expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('true');
      expect(await menu.isVisible()).toBe(true);
      await shoot(page, 'nav-open');

      const names = ['Campaigns', 'Projects', 'Teams', 'Profiles', 'Favorites', 'My', 'Account', 'Logout'];
      for (const name of names) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
        expect(focused).toBe(name);
        // every item is on screen, none runs off the right edge
        const box = await page.evaluate(() => document.activeElement!.getBoundingClientRect().toJSON() as DOMRect);
        expect(box.right).toBeLessThanOrEqual(width);
        expect(box.left).toBeGreaterThanOrEqual(0);
      }
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await page.keyboard.press('Escape');
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
      expect(await menu.isVisible()).toBe(false);
      expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);

      // the focus moving on past the last link closes the menu (it would cover the page)
      await page.keyboard.press('Enter');
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('true');
      for (let i = 0; i <= names.length; i++) await page.keyboard.press('Tab');
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
      expect(await menu.isVisible()).toBe(false);

      // a link followed closes the menu
      await button.click();
      await nav(page).getByRole('link', { name: 'Teams' }).click();
      await page.waitForURL(`${h.baseUrl}/teams`);
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
    }
    // from 640 px the links are in the bar and there is no Menu button
    await page.setViewportSize({ width: 640, height: 700 });
    await expect.poll(() => menuButton(page).count()).toBe(0);
    await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
    const right = await nav(page)
      .getByRole('button', { name: 'Logout' })
      .evaluate((el) => el.getBoundingClientRect().right);
    expect(right).toBeLessThanOrEqual(640);
    await shoot(page, 'nav-bar');
    await page.setViewportSize({ width: 1280, height: 700 });
    await shoot(page, 'nav-bar');
  });

  it('a list that fails to load says so and loads on Try again', async () => {
    const { page } = await h.newPage();
    // every answer to the campaigns list fails until the route is lifted; the page is reached
    // from another one (a first visit of /campaigns gets its first page inside the page itself)
    await page.route(/\/trpc\/[^?]*campaigns\.list/, (route) => route.fulfill({ status: 500, contentType: 'text/plain', body: 'down' }));
    await page.goto('/login');
    await nav(page).getByRole('link', { name: 'Campaigns' }).click();
    const retry = page.locator('.infinite-list').getByRole('button', { name: 'Try again' });
    await retry.waitFor();
    expect(await page.getByRole('link', { name: CAMPAIGN, exact: true }).count()).toBe(0);
    await page.unrouteAll();
    await retry.click();
    await page.getByRole('link', { name: CAMPAIGN, exact: true }).waitFor();
    expect(await retry.count()).toBe(0);
  });

  it('nothing moves when the data replaces the loading state (CLS under 0.02)', async () => {
    const { page, context } = await h.newPage();
    // every layout shift from the first paint on, as Lighthouse counts them (none right after an input)
    await context.addInitScript(() => {
      const w = window as unknown as { __cls: number };
      w.__cls = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
          if (!e.hadRecentInput) w.__cls += e.value;
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const shifts: string[] = [];
    const pending = requestsInFlight(page);
    for (const signedIn of [false, true]) {
      if (signedIn) await logIn(page, owner.email);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        for (const route of ['/campaigns', '/projects', '/teams', '/profiles', ...(signedIn ? ['/favorites', '/my', '/myProjects'] : [])]) {
          await page.goto(route);
          await loaded(page);
          // the pictures, the favorite answers: whatever the list asked for has arrived, and
          // nothing more was asked for once it was drawn (not networkidle: half a second idle each time)
          await expect.poll(pending).toBe(0);
          await settle(page);
          await expect.poll(pending).toBe(0);
          const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
          if (cls >= 0.02) shifts.push(`${signedIn ? 'signed in' : 'visitor'} ${route} at ${width} px: ${cls.toFixed(3)}`);
        }
      }
    }
    expect(shifts).toEqual([]);
  });
});
