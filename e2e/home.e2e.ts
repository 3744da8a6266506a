import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { M } from '../src/shared/messages';
import { call, PASSWORD, signUp, uploadImages } from '../test/helpers';
import { settle, startHarness, type Harness, signInWithCookie, shoot } from './harness';

/*
 * The home page a first visitor meets: the highlights, each with its sentence; on an empty
 * instance the next step (sign up, or start the first campaign); then the newest campaigns as
 * cards with a link to all of them, without the page moving as they load.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the home page, empty and with campaigns, at 390 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const newest = (page: Page) => page.getByRole('region', { name: M.newestCampaigns });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

/** The page's layout shifts so far that no input caused (Cumulative Layout Shift). */
function layoutShift(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let cls = 0;
        const add = (entries: PerformanceEntry[]) => {
          for (const e of entries as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!e.hadRecentInput) cls += e.value;
        };
        const observer = new PerformanceObserver((list) => add(list.getEntries()));
        observer.observe({ type: 'layout-shift', buffered: true });
        requestAnimationFrame(() =>
          requestAnimationFrame(() =>
            setTimeout(() => {
              add(observer.takeRecords());
              observer.disconnect();
              resolve(cls);
            }, 0),
          ),
        );
      }),
  );
}

describe('the home page', () => {
  it('explains each highlight in a sentence and, with no campaigns yet, offers the next step', async () => {
    const { page } = await h.newPage();
    await page.goto('/');
    await page.getByText(M.tagline).first().waitFor();
    const highlights = page.getByRole('region', { name: 'Highlights' });
    // the spec's titles, each with what it means here
    for (const [title, text] of [
      [M.highlightSecure, M.highlightSecureText],
      [M.highlightCoordinated, M.highlightCoordinatedText],
      [M.highlightFunded, M.highlightFundedText],
    ]) {
      const card = highlights.getByRole('article').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
      expect(await card.getByText(text).isVisible()).toBe(true);
    }
    expect(await highlights.getByRole('heading').allInnerTexts()).toEqual(['Secure', 'Coordinated', 'Funded']);

    // signed out on an empty instance: what campaigns are, and Sign up to start one
    await newest(page).getByText(M.homeEmpty).waitFor();
    expect(await newest(page).getByRole('link', { name: M.seeAllCampaigns }).count()).toBe(0);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await shoot(page, 'home-empty');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await newest(page).getByRole('link', { name: M.signUpToStart }).click();
    await page.waitForURL(`${h.baseUrl}/register`);

    // signed in: Start the first campaign
    const person = await signUp(h.app, { username: 'first_maker' });
    await logIn(page, person.email);
    await newest(page).getByText(M.homeEmpty).waitFor();
    expect(await newest(page).getByRole('link', { name: M.signUpToStart }).count()).toBe(0);
    await newest(page).getByRole('link', { name: M.startFirstCampaign }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns/new`);
  });

  it('shows the three newest campaigns as cards with a link to all, and does not move as they load', async () => {
    const maker = await signUp(h.app, { username: 'card_maker' });
    const [cover] = await uploadImages(h.app, maker, 1, 'cover');
    const titles = ['Oldest of four', 'Seed library', 'Community kiln', 'Night market lanterns'];
    for (const [i, title] of titles.entries()) {
      const res = await call(h.app, maker, {
        method: 'POST',
        url: '/api/campaigns',
        payload: { title, type: i === 2 ? 'art' : 'other', goalAmount: 100, imageUrl: i === 3 ? cover.url : null },
      });
      expect(res.statusCode).toBe(201);
    }

    for (const width of [1280, 390]) {
      const { context, page } = await h.newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/');
      const cards = newest(page).getByRole('listitem');
      await expect.poll(() => cards.count()).toBe(3);
      // newest first; the oldest is one click away under "See all campaigns"
      expect(await cards.getByRole('heading', { level: 3 }).allInnerTexts()).toEqual(['Night market lanterns', 'Community kiln', 'Seed library']);
      const kiln = cards.filter({ hasText: 'Community kiln' });
      expect(await kiln.innerText()).toContain('Art');
      expect(await kiln.innerText()).toContain('card_maker');
      expect(await kiln.innerText()).toContain('$0.00 raised');
      await expect
        .poll(() =>
          cards
            .first()
            .locator('img')
            .evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
        )
        .toBe(true);
      await settle(page);
      expect(await layoutShift(page)).toBeLessThan(0.02);
      await shoot(page, 'home');
      await context.close();
    }

    const { page } = await h.newPage();
    await page.goto('/');
    await newest(page).getByRole('link', { name: 'Community kiln' }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1, name: 'Community kiln' }).waitFor();
    await page.goBack();
    await newest(page).getByRole('link', { name: M.seeAllCampaigns }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns`);
    await page.getByRole('link', { name: 'Oldest of four', exact: true }).waitFor();
  });
});
