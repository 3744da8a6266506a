import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { teamMembers, users } from '../src/server/db/schema';
import { PASSWORD, signUp } from '../test/helpers';
import { settle, startHarness, type Harness, signInWithCookie } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

const rows = (page: Page) => page.locator('table tbody tr');
const details = (page: Page) => page.getByRole('complementary', { name: 'Project details' });

describe('a project from creation to deletion', () => {
  it('creates a project, follows it, edits its title, deletes it, and it is gone from /projects', async () => {
    const owner = await signUp(h.app, { username: 'tide_keeper' });
    const { page } = await h.newPage();
    await logIn(page, owner.email);

    await nav(page).getByRole('link', { name: 'Projects' }).click();
    await page.waitForURL(`${h.baseUrl}/projects`);
    await page.getByText('No projects found.').waitFor();
    await page.getByRole('link', { name: '+ New project' }).click();
    await page.waitForURL(`${h.baseUrl}/projects/new`);

    await page.getByLabel('Title').fill('Tide pool field guide');
    await page.getByLabel('Type', { exact: true }).selectOption('research');
    expect(await page.getByLabel('Target type').inputValue()).toBe('amount');
    await page.getByLabel('Target type').selectOption('supporters');
    await page.getByLabel('Goal').fill('12');
    expect(await page.getByLabel('Currency').inputValue()).toBe('USD');
    expect(await page.getByLabel('Mode').inputValue()).toBe('donation');
    // projects have no execution date
    expect(await page.getByLabel('Execution date').count()).toBe(0);
    await page.getByLabel('Description').fill('Every creature in the pools below the lighthouse.\nDrawn at low tide.');
    await page.getByLabel('Tags').fill('TidePools');
    await page.getByLabel('Tags').press('Enter');
    await page.getByLabel('Tags').fill('marine');
    await page.getByLabel('Tags').press(',');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
    // created: said once, with the offer to share it
    await page.getByRole('status').filter({ hasText: 'Project created.' }).waitFor();
    await page.locator('.share-notice').getByRole('button', { name: 'Share it' }).waitFor();
    const detailUrl = page.url();
    const id = detailUrl.split('/').pop()!;

    // the detail page: a placeholder with the title's first letter where the image would be
    await page.getByRole('heading', { level: 1, name: 'Tide pool field guide' }).waitFor();
    const placeholder = page.getByRole('img', { name: 'Tide pool field guide (no image)' });
    expect((await placeholder.innerText()).trim()).toBe('T');
    const facts = await details(page).locator('dl').innerText();
    expect(facts).toContain('Research');
    expect(facts).toContain('12 supporters');
    expect(facts).toContain('0 followers');
    expect(await details(page).getByRole('link', { name: 'tide_keeper' }).getAttribute('href')).toBe(`/profiles/${owner.userId}`);
    expect(await page.locator('.description p').innerText()).toBe('Every creature in the pools below the lighthouse.\nDrawn at low tide.');
    const pill = page.getByRole('list', { name: 'Tags' }).getByRole('link', { name: 'tidepools' });
    expect(await pill.getAttribute('href')).toBe('/projects?q=tidepools');

    // the owner's panel of people to invite
    const panel = page.getByRole('region', { name: 'Suggested people to invite' });
    await panel.getByText('No suggestions yet.').waitFor();
    const diver = await signUp(h.app, { username: 'diver_dana' });
    await h.database.db
      .update(users)
      .set({ tags: ['marine', 'tidepools', 'knitting'] })
      .where(eq(users.id, diver.userId));
    await page.reload();
    const person = panel.getByRole('link', { name: 'diver_dana' });
    await person.waitFor();
    expect(await person.getAttribute('href')).toBe(`/profiles/${diver.userId}`);
    await panel.getByText('Shared tags: marine, tidepools').waitFor();

    // follow and unfollow, with the count
    await details(page).getByRole('button', { name: 'Follow', exact: true }).click();
    await details(page).getByRole('button', { name: 'Unfollow' }).waitFor();
    await expect.poll(() => details(page).locator('dl').innerText()).toContain('1 follower');
    await details(page).getByRole('button', { name: 'Unfollow' }).click();
    await details(page).getByRole('button', { name: 'Follow', exact: true }).waitFor();
    await expect.poll(() => details(page).locator('dl').innerText()).toContain('0 followers');

    // a visitor sees the project, but no Follow, Edit, Delete or suggestions
    const visitor = await h.newPage();
    await visitor.page.goto(detailUrl);
    await visitor.page.getByRole('heading', { level: 1, name: 'Tide pool field guide' }).waitFor();
    expect(await visitor.page.getByRole('button', { name: 'Follow', exact: true }).count()).toBe(0);
    expect(await visitor.page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await visitor.page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await visitor.page.getByRole('region', { name: 'Suggested people to invite' }).count()).toBe(0);

    // the tag pill finds it on /projects
    await pill.click();
    await page.waitForURL(`${h.baseUrl}/projects?q=tidepools`);
    expect(await page.getByLabel('Search').inputValue()).toBe('tidepools');
    // a card: the placeholder letter, the description's first line, the followers toward the goal of people
    const cards = page.getByRole('list', { name: 'Projects' }).locator(':scope > li');
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().locator('.item-card-placeholder').innerText()).toBe('T');
    expect(await cards.first().locator('.item-card-summary').innerText()).toBe('Every creature in the pools below the lighthouse.');
    expect(await cards.first().locator('.item-card-goal').innerText()).toMatch(/^0% of the goal\s+0 of 12 people$/);
    expect(await cards.first().innerText()).toContain('0 followers');
    // a project takes no money
    expect(await cards.first().innerText()).not.toContain('raised');
    // the spec's table, one click away
    await page.getByRole('group', { name: 'View' }).getByRole('link', { name: 'Table' }).click();
    await page.waitForURL(`${h.baseUrl}/projects?q=tidepools&view=table`);
    await expect.poll(() => rows(page).count()).toBe(1);
    const cells = (await rows(page).first().locator('th, td').allInnerTexts()).map((c) => c.trim());
    expect(cells).toEqual(['T', 'Tide pool field guide', 'tide_keeper', 'Research', 'Open', '$0.00', '0', expect.stringMatching(/^Open\s+☆ Favorite$/)]);
    await rows(page).getByRole('link', { name: 'Tide pool field guide', exact: true }).click();
    await page.waitForURL(detailUrl);

    // edit: the same form, prefilled
    await details(page).getByRole('link', { name: 'Edit' }).click();
    await page.waitForURL(`${detailUrl}/edit`);
    await page.getByRole('heading', { name: 'Edit project' }).waitFor();
    expect(await page.getByLabel('Title').inputValue()).toBe('Tide pool field guide');
    expect(await page.getByLabel('Type', { exact: true }).inputValue()).toBe('research');
    expect(await page.getByLabel('Target type').inputValue()).toBe('supporters');
    expect(await page.getByLabel('Goal').inputValue()).toBe('12');
    expect(await page.locator('.tag-chip span').allInnerTexts()).toEqual(['tidepools', 'marine']);
    await page.getByLabel('Title').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Title is required').waitFor();
    await page.getByLabel('Title').fill('Tide pool field guide, second edition');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(detailUrl);
    await page.getByRole('heading', { level: 1, name: 'Tide pool field guide, second edition' }).waitFor();
    // and after a reload, from the server
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Tide pool field guide, second edition' }).waitFor();

    // delete, after a confirmation
    await details(page).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm delete' });
    await confirm.getByText('Delete this project? This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    await details(page).getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(`${h.baseUrl}/projects`);
    await page.getByText('No projects found.').waitFor();
    expect(await page.getByText('Tide pool field guide', { exact: false }).count()).toBe(0);
    await page.getByLabel('Search').fill('tidepools');
    await page.getByLabel('Search').press('Enter');
    await page.getByText('No projects found.').waitFor();

    await page.goto(detailUrl);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not let another person edit a project', async () => {
    const owner = await signUp(h.app);
    const project = await h.app.inject({
      method: 'POST',
      url: '/api/projects',
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { title: 'Someone else’s kite', tags: ['kites'] },
    });
    expect(project.statusCode).toBe(201);
    const { _id } = project.json() as { _id: string };

    const other = await signUp(h.app);
    const { page } = await h.newPage();
    await logIn(page, other.email);
    await page.goto(`/projects/${_id}`);
    await page.getByRole('heading', { level: 1, name: 'Someone else’s kite' }).waitFor();
    // a signed-in person who is not the owner may follow, not edit
    await details(page).getByRole('button', { name: 'Follow', exact: true }).click();
    await expect.poll(() => details(page).locator('dl').innerText()).toContain('1 follower');
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await page.goto(`/projects/${_id}/edit`);
    await page.getByText('Only the owner can do that').waitFor();
    expect(await page.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
  });
});

describe("the owner's suggested people", () => {
  it('leaves out people blocked either way, and invites one into the chosen team of the project, by keyboard, from 320 px up', async () => {
    const owner = await signUp(h.app, { username: 'kelp_owner' });
    const as = (who: { token: string }) => ({ authorization: `Bearer ${who.token}` });
    const post = async (who: { token: string }, url: string, payload: Record<string, unknown>) => {
      const res = await h.app.inject({ method: 'POST', url, headers: as(who), payload });
      expect(res.statusCode).toBe(201);
      return res.json() as { _id: string };
    };
    const project = await post(owner, '/api/projects', { title: 'Kelp forest survey', tags: ['kelp'] });
    const ann = await signUp(h.app, { username: 'kelp_ann' });
    const bo = await signUp(h.app, { username: 'kelp_bo' });
    const cy = await signUp(h.app, { username: 'kelp_cy' });
    for (const who of [ann, bo, cy])
      await h.database.db
        .update(users)
        .set({ tags: ['kelp'] })
        .where(eq(users.id, who.userId));
    // the owner blocked one, another blocked the owner
    await post(owner, '/api/blocks', { userId: bo.userId });
    await post(cy, '/api/blocks', { userId: owner.userId });

    const { page } = await h.newPage();
    await logIn(page, owner.email);
    await page.goto(`/projects/${project._id}`);
    const panel = page.getByRole('region', { name: 'Suggested people to invite' });
    await panel.getByRole('link', { name: 'kelp_ann' }).waitFor();
    expect(await panel.getByRole('listitem').count()).toBe(1);
    expect(await panel.getByRole('link', { name: 'kelp_bo' }).count()).toBe(0);
    expect(await panel.getByRole('link', { name: 'kelp_cy' }).count()).toBe(0);
    // no team yet: nothing to invite into, and a way to make one
    await panel.getByText('To invite people, create a team for this project first.').waitFor();
    expect(await panel.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    expect(await panel.getByRole('link', { name: 'Create a team' }).getAttribute('href')).toBe(`/teams/new?projectId=${project._id}`);

    const crew = await post(owner, '/api/teams', { name: 'Kelp crew', projectId: project._id });
    const divers = await post(owner, '/api/teams', { name: 'Kelp divers', projectId: project._id });
    await page.reload();
    const team = panel.getByLabel('Team');
    await team.waitFor();
    expect(await team.locator('option').allInnerTexts()).toEqual(['Kelp divers', 'Kelp crew']);

    // at 320 px the panel fits without scrolling sideways
    await page.setViewportSize({ width: 320, height: 900 });
    await settle(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

    // by keyboard: pick the team, then Invite on the person
    await team.focus();
    await team.selectOption('Kelp crew');
    const invite = panel.getByRole('button', { name: 'Invite' });
    expect(await invite.getAttribute('aria-describedby')).toBe(`suggested-person-${ann.userId}`);
    await invite.focus();
    await page.keyboard.press('Enter');
    await panel.getByText('Invited kelp_ann to Kelp crew.').waitFor();
    const rowsOf = (teamId: string) =>
      h.database.db
        .select({ status: teamMembers.status, role: teamMembers.role })
        .from(teamMembers)
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, ann.userId)));
    expect(await rowsOf(crew._id)).toEqual([{ status: 'invited', role: 'member' }]);
    expect(await rowsOf(divers._id)).toEqual([]);

    // inviting again is the team's own answer
    await invite.press('Enter');
    await panel.getByText('This person has already been invited to this team').waitFor();
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
