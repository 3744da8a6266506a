import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { M } from '../src/shared/messages';
import { PASSWORD, signUp } from '../test/helpers';
import { settle, startHarness, type Harness, signInWithCookie } from './harness';

/*
 * A draft through the screens (issue #30, "States"): "Save as draft" on the create form, the
 * owner's banner, a stranger who gets "Not found", the schedule picker (set and cancelled), then
 * "Release now", after which the stranger sees the campaign and the list shows it.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const main = (page: Page) => page.locator('main');

async function logIn(page: Page, email: string) {
  await signInWithCookie(h, page, email, PASSWORD);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

describe('a draft campaign', () => {
  it('is saved as a draft, hidden from a stranger, scheduled and unscheduled, then released into the list', async () => {
    const owner = await signUp(h.app, { username: 'draft_owner' });
    const stranger = await signUp(h.app, { username: 'draft_stranger' });
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    await page.goto('/campaigns/new');
    await page.getByRole('textbox', { name: 'Title' }).fill('Lanterns for the winter market');
    await page.getByRole('button', { name: M.saveAsDraft }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    const url = page.url();
    const banner = main(page).getByRole('region', { name: M.draftBanner });
    await banner.waitFor();
    // no donations or support on a draft
    expect(
      await main(page)
        .getByRole('button', { name: /donate/i })
        .count(),
    ).toBe(0);

    // a stranger: exactly a missing campaign
    const other = await h.newPage();
    await logIn(other.page, stranger.email);
    await other.page.goto(url);
    await other.page.getByRole('heading', { level: 1, name: M.notFound }).waitFor();

    // schedule it three days ahead, in the owner's zone, then cancel the schedule
    const at = new Date(Date.now() + 3 * 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const local = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
    await banner.getByLabel('Release date and time').fill(local);
    expect(await banner.getByText('Your time zone:').count()).toBe(1);
    await banner.getByRole('button', { name: M.scheduleRelease }).click();
    await banner.getByText(/in 3 days/).waitFor();
    await banner.getByRole('button', { name: M.cancelSchedule }).click();
    await banner.getByText('Nobody else can find it').waitFor();

    // released: the banner goes, the stranger sees it and the list shows it
    await banner.getByRole('button', { name: M.releaseNow }).click();
    await banner.waitFor({ state: 'detached' });
    await other.page.reload();
    await other.page.getByRole('heading', { level: 1, name: 'Lanterns for the winter market' }).waitFor();
    await other.page.goto('/campaigns');
    await main(other.page).getByRole('link', { name: 'Lanterns for the winter market' }).first().waitFor();
    await settle(other.page);
  });
});
