import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { M } from '../src/shared/messages';
import { call, PASSWORD, signUp } from '../test/helpers';
import { startHarness, type Harness, signInWithCookie } from './harness';

/*
 * Nothing lost, everyone told (issue #33, item 7): leaving a campaign form with changes asks
 * first (Stay keeps the page, Leave goes), the text typed is kept for when the person comes back,
 * a reload keeps it too, and a sent form leaves without a question and forgets what it kept; a
 * team invite can be declined; a submitted dispute says where to follow it.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

describe('a form left by mistake', () => {
  it('asks before leaving with changes, keeps what was typed, and lets a sent form go', async () => {
    const owner = await signUp(h.app, { username: 'kept_owner' });
    const { page } = await h.newPage();
    await signInWithCookie(h, page, owner.email, PASSWORD);
    await page.goto('/campaigns/new');
    const title = page.getByRole('textbox', { name: 'Title' });
    await title.fill('Paper boats for the river festival');
    // the Mode and Execution date say what they mean
    await page.getByText('people give money, once or monthly').waitFor();

    await nav(page).getByRole('link', { name: 'Campaigns', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave this page?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Stay' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe('/campaigns/new');
    expect(await title.inputValue()).toBe('Paper boats for the river festival');

    await nav(page).getByRole('link', { name: 'Campaigns', exact: true }).click();
    await dialog.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL((u) => u.pathname === '/campaigns');
    // back on the form: the text is there; after a reload too
    await page.goto('/campaigns/new');
    expect(await page.getByRole('textbox', { name: 'Title' }).inputValue()).toBe('Paper boats for the river festival');
    await page.reload();
    expect(await page.getByRole('textbox', { name: 'Title' }).inputValue()).toBe('Paper boats for the river festival');

    // sent: no question on the way to the new campaign, and the next new form is empty
    await page.getByRole('button', { name: M.publishNow }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.goto('/campaigns/new');
    expect(await page.getByRole('textbox', { name: 'Title' }).inputValue()).toBe('');
  });
});

describe('people told', () => {
  it('lets an invitee decline a team invite, and tells whoever raised a dispute where to follow it', async () => {
    const owner = await signUp(h.app, { username: 'told_team_owner' });
    const invitee = await signUp(h.app, { username: 'told_invitee' });
    const team = (await call(h.app, owner, { method: 'POST', url: '/api/teams', payload: { name: 'Lantern makers' } })).json() as { _id: string };
    await call(h.app, owner, { method: 'POST', url: `/api/teams/${team._id}/members`, payload: { username: 'told_invitee' } });
    const campaign = (await call(h.app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Lanterns for everyone' } })).json() as {
      _id: string;
    };

    const { page } = await h.newPage();
    await signInWithCookie(h, page, invitee.email, PASSWORD);
    await page.goto(`/teams/${team._id}`);
    const membership = page.getByRole('group', { name: 'Membership' });
    await membership.getByText('You are invited to join this team.').waitFor();
    await membership.getByRole('button', { name: 'Decline' }).click();
    await membership.getByText('You declined the invite.').waitFor();
    expect(await membership.getByRole('button', { name: 'Accept invite' }).count()).toBe(0);

    await page.goto(`/campaigns/${campaign._id}`);
    await page.getByRole('button', { name: 'Raise a dispute' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: /Reason/ }).fill('The pictures are from another project');
    await dialog.getByRole('button', { name: /Submit/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    const note = page.getByRole('status').filter({ hasText: 'Your dispute was submitted' });
    await note.getByRole('link', { name: 'My disputes' }).click();
    await page.waitForURL((u) => u.pathname === '/myDisputes');
    await page.getByText('The pictures are from another project').waitFor();
  });
});
