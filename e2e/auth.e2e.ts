import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { lastEmail, uniqueEmail } from '../test/helpers';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const navNames = async (page: Page) => (await nav(page).getByRole('link').or(nav(page).getByRole('button')).allInnerTexts()).map((s) => s.trim());
/** The navigation settles once the session check answers. */
const expectNav = (page: Page, names: string[]) => expect.poll(() => navNames(page)).toEqual(names);

async function logIn(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  // a full page load to / follows a successful login
  await page.waitForURL(`${h.baseUrl}/`);
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

describe('an account from registration to a changed password', () => {
  it('registers, verifies the email from the outbox link, logs out and in, and changes the password', async () => {
    const { page } = await h.newPage();
    const email = uniqueEmail('browser');

    await page.goto('/');
    await expectNav(page, ['Campaigns', 'Projects', 'Teams', 'Profiles', 'Login']);
    await page.locator('#main').getByText('Make cool things, show a small group of people before releasing it to the public.').waitFor();

    await page.getByRole('link', { name: 'Sign up', exact: true }).click();
    await page.waitForURL('**/register');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Username').fill('browser_person');
    await page.getByLabel('Password').fill('first password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Account created. Please check your email to verify your address.').waitFor();

    // the verification link arrives in the outbox
    const mail = await lastEmail(h.database, email, 'verify_email');
    const link = mail.text.match(/https?:\/\/\S+verify-email\?token=\S+/)![0];
    expect(link.startsWith(h.baseUrl)).toBe(true);

    await logIn(page, email, 'first password 1');
    await expectNav(page, ['Campaigns', 'Projects', 'Teams', 'Profiles', 'Favorites', 'My', 'Account', 'Logout']);
    // an unverified person sees the reminder
    await page.getByRole('region', { name: 'Email verification' }).waitFor();

    await page.goto(link);
    await page.getByText('Email verified!').waitFor();
    await page.goto('/');
    await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
    expect(await page.getByRole('region', { name: 'Email verification' }).count()).toBe(0);

    // the same link again says the address is verified already (it does not verify twice)
    await page.goto(link);
    await page.getByText('Your email is already verified.').waitFor();

    await nav(page).getByRole('button', { name: 'Logout' }).click();
    await nav(page).getByRole('link', { name: 'Login' }).waitFor();
    await expectNav(page, ['Campaigns', 'Projects', 'Teams', 'Profiles', 'Login']);

    // a wrong password is refused with the server's message
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();

    await logIn(page, email, 'first password 1');

    await nav(page).getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Current password').fill('wrong current pw');
    await page.getByLabel('New password').fill('second password 2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'Current password is incorrect' }).waitFor();
    await page.getByLabel('Current password').fill('first password 1');
    await page.getByLabel('New password').fill('second password 2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed.' }).waitFor();

    // still signed in here, with the fresh session
    await page.reload();
    await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
    await nav(page).getByRole('button', { name: 'Logout' }).click();
    await nav(page).getByRole('link', { name: 'Login' }).waitFor();

    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('first password 1');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
    await logIn(page, email, 'second password 2');
  });

  it('resets a forgotten password through the emailed link', async () => {
    const { page } = await h.newPage();
    const email = uniqueEmail('forgot');
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('forgotten password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Account created. Please check your email to verify your address.').waitFor();

    await page.goto('/forgot');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('Email sent if account exists.').waitFor();
    // the reset email is sent after the answer (the answer takes the same time for any address)
    await expect.poll(() => lastEmail(h.database, email, 'reset_password')).toBeTruthy();
    const mail = (await lastEmail(h.database, email, 'reset_password'))!;
    const link = mail.text.match(/https?:\/\/\S+\/reset\/[a-z0-9]+/)![0];
    await page.goto(link);
    await page.getByLabel('New password').fill('remembered password');
    await page.getByRole('button', { name: 'Update password' }).click();
    await page.getByText('Password reset').waitFor();
    await logIn(page, email, 'remembered password');
  });
});

describe('navigation by role', () => {
  it('shows Admin only to admins, and the Access denied page to everyone else', async () => {
    const { page } = await h.newPage();
    const email = uniqueEmail('admin');
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('admin password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Account created. Please check your email to verify your address.').waitFor();

    // a visitor and a signed-in non-admin are refused
    await page.goto('/admin');
    await page.getByText('You don’t have permission to view this page.').waitFor();
    await logIn(page, email, 'admin password 1');
    expect(await navNames(page)).not.toContain('Admin');
    await page.goto('/admin/cron');
    await page.getByText('You don’t have permission to view this page.').waitFor();

    await setAdmin(h.database.db, email, true);
    await page.goto('/');
    await nav(page).getByRole('link', { name: 'Admin' }).waitFor();
    await expectNav(page, ['Campaigns', 'Projects', 'Teams', 'Profiles', 'Favorites', 'My', 'Account', 'Admin', 'Logout']);
    await nav(page).getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL('**/admin');
    expect(await page.getByText('You don’t have permission to view this page.').count()).toBe(0);
  });

  it('shows "Page not found" for unknown paths and signs out when the session check is refused', async () => {
    const { page, context } = await h.newPage();
    const unknown = await page.goto('/no/such/page');
    expect(unknown?.status()).toBe(404);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();

    const email = uniqueEmail('expired');
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('expired password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Account created. Please check your email to verify your address.').waitFor();
    await logIn(page, email, 'expired password');
    // the session ends elsewhere (for example a password reset): the next check signs this browser out
    await context.clearCookies();
    await page.reload();
    await nav(page).getByRole('link', { name: 'Login' }).waitFor();
  });
});
