import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { M } from '../src/shared/messages';
import { PASSWORD, signUp, uniqueEmail } from '../test/helpers';
import { settle, startHarness, type Harness } from './harness';

/*
 * The keyboard alone (Tab, Shift+Tab, Enter, Space and typing; no clicks): register, log in,
 * create a campaign and comment on it, with the error path of each form (the focus lands on the
 * first invalid field, whose error is in a live region); the guard's Log in button brings a
 * signed-out person back to the page they opened, and never to another site.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the forms and the guard page at 390 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** At most this many key presses to reach a control: a page with more is a page to fix. */
const MAX_TABS = 80;

const isFocused = (target: Locator) => target.evaluate((el) => el === document.activeElement);

/** Presses Tab (Shift+Tab with `back`) until `target` has the focus. */
async function tabTo(page: Page, target: Locator, back = false) {
  await target.waitFor();
  for (let i = 0; i < MAX_TABS; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  expect(await isFocused(target), `reached by ${back ? 'Shift+Tab' : 'Tab'}`).toBe(true);
}

/** The focused control's name attribute. */
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('name') ?? null);

/**
 * After a failed submit: the focus is on the field `name`, which is marked invalid and described
 * by `error`, and that text sits in a live region.
 */
async function expectFocusedError(page: Page, name: string, error: string) {
  await expect.poll(() => focusedName(page)).toBe(name);
  const field = page.locator(`[name="${name}"]`);
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  // the descriptions the field points at, each with the live region it sits in
  const described = await field.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id))
      .map((d) => ({ text: d?.textContent ?? '', live: d?.closest('[aria-live]')?.getAttribute('aria-live') ?? null })),
  );
  expect(described).toContainEqual({ text: error, live: 'polite' });
}

async function shoot(page: Page, name: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    // nothing scrolls sideways
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const dir = process.env.E2E_SCREENSHOT_DIR;
    if (!dir) continue;
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the keyboard alone', () => {
  it('registers, logs in, creates a campaign and comments, through each form’s error path', async () => {
    const { page } = await h.newPage();
    const email = uniqueEmail('keys');
    const main = page.locator('#main');

    // registration: an empty submit puts the focus on the email field, the first invalid one
    await page.goto('/register');
    const create = main.getByRole('button', { name: 'Create account' });
    await tabTo(page, create);
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'email', M.emailRequired);
    await main.getByText(M.passwordRequired).waitFor();
    expect(await page.locator('[name="email"]').getAttribute('required')).not.toBeNull();
    await shoot(page, 'register-errors');
    await page.keyboard.type(email);
    await tabTo(page, page.locator('[name="password"]'));
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await main.getByText(M.registered).waitFor();
    // the page says what comes next, and its Log in button is the next stop
    await shoot(page, 'register-done');
    await tabTo(page, main.getByRole('link', { name: 'Log in' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/login`);

    // log in: a wrong password is refused, then the right one signs in and loads /
    await tabTo(page, page.locator('[name="email"]'));
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    await main.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
    await tabTo(page, page.locator('[name="password"]'), true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('button', { name: 'Logout' }).waitFor();

    // the home page's button to a new campaign
    await tabTo(page, main.locator('a[href="/campaigns/new"]').first());
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/campaigns/new`);
    const submit = main.getByRole('button', { name: 'Publish now' });
    await tabTo(page, submit);
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'title', M.titleRequired);
    await shoot(page, 'new-campaign-errors');
    await page.keyboard.type('Keyboard campaign');
    await tabTo(page, submit);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/campaigns\/[^/]+$/);
    await main.getByRole('heading', { level: 1, name: 'Keyboard campaign' }).waitFor();

    // a comment, posted with Space on the button
    const box = main.getByLabel('Write a comment');
    await tabTo(page, box);
    await page.keyboard.type('Typed without a mouse.');
    await tabTo(page, main.getByRole('button', { name: 'Post', exact: true }));
    await page.keyboard.press('Space');
    await main.locator('.comments').getByText('Typed without a mouse.').waitFor();
    await expect.poll(() => box.inputValue()).toBe('');
  });

  it('the guard’s Log in button comes back to the page a signed-out person opened', async () => {
    const person = await signUp(h.app);
    const { page } = await h.newPage();
    const main = page.locator('#main');

    await page.goto('/myCampaigns?tab=past');
    await main.getByRole('heading', { level: 1, name: 'Log in to continue' }).waitFor();
    await main.getByText(M.signInRequired).waitFor();
    await shoot(page, 'guard');
    await tabTo(page, main.getByRole('link', { name: 'Log in' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/login?next=${encodeURIComponent('/myCampaigns?tab=past')}`);
    await shoot(page, 'login');
    await tabTo(page, page.locator('[name="email"]'));
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/myCampaigns?tab=past`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Logout' }).waitFor();
    expect(await main.getByRole('heading', { name: 'Log in to continue' }).count()).toBe(0);
  });

  it('a login never sends anyone to another site', async () => {
    const person = await signUp(h.app);
    for (const next of ['https://evil.example/account', '//evil.example/account', '/\\evil.example']) {
      const { page, context } = await h.newPage();
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      await tabTo(page, page.locator('[name="email"]'));
      await page.keyboard.type(person.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${h.baseUrl}/`);
      await context.close();
    }
  });

  it('the account, recovery and team forms: errors focus the first invalid field', async () => {
    const person = await signUp(h.app);
    const { page } = await h.newPage();
    const main = page.locator('#main');

    await page.goto('/forgot');
    await tabTo(page, main.getByRole('button', { name: M.sendResetLink }));
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'email', M.emailRequired);
    await shoot(page, 'forgot-errors');

    await page.goto('/reset/some-token');
    await tabTo(page, main.getByRole('button', { name: M.updatePassword }));
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'password', M.passwordRequired);
    await shoot(page, 'reset-errors');

    await page.goto('/login');
    await tabTo(page, page.locator('[name="email"]'));
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/`);

    await page.goto('/account');
    await tabTo(page, main.getByRole('button', { name: 'Change password' }));
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'currentPassword', M.passwordRequired);
    await shoot(page, 'account-errors');

    await page.goto('/teams/new');
    await tabTo(page, main.getByRole('button', { name: 'Create Team' }));
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'name', M.teamNameRequired);
    await shoot(page, 'new-team-errors');

    await page.goto('/disputes/new');
    await tabTo(page, main.getByRole('button', { name: 'Submit' }));
    await page.keyboard.press('Enter');
    await expectFocusedError(page, 'campaign', M.campaignRequired);
    await shoot(page, 'new-dispute-errors');
  });
});
