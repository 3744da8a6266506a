import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { projects, teamMembers, teams, users } from '../src/server/db/schema';
import { call, PASSWORD, pngImage, signUp } from '../test/helpers';
import { startHarness, type Harness, signInWithCookie } from './harness';

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

/** A person signed in, in a browser profile of their own. */
async function personPage(email: string) {
  const { page } = await h.newPage();
  await logIn(page, email);
  return page;
}

async function createProject(who: { token: string; ip: string }, title: string, tags: string[] = []) {
  const res = await call(h.app, who, { method: 'POST', url: '/api/projects', payload: { title, tags } });
  expect(res.statusCode).toBe(201);
  return (res.json() as { _id: string })._id;
}

/** The row of a table that names this person (or team). */
const rowOf = (scope: Page | Locator, text: string) => scope.getByRole('row').filter({ hasText: text });
/** The texts of a row's data cells (the name is the row header). */
const dataCells = async (row: Locator) => (await row.locator('td').allInnerTexts()).map((c) => c.trim());
/** A member row on the manage page: role, status, then the names of its buttons. */
const memberRow = async (row: Locator) => [...(await dataCells(row)).slice(0, 2), ...(await row.getByRole('button').allInnerTexts()).map((b) => b.trim())];
const membership = (page: Page) => page.getByRole('group', { name: 'Membership' });

describe('a team from creation on a project to its members coming and going', () => {
  it('creates a team, invites by username and email, takes a request, accepts, promotes, and a member leaves', async () => {
    const owner = await signUp(h.app, { username: 'synth_owner' });
    const ada = await signUp(h.app, { username: 'ada_invitee' });
    const bo = await signUp(h.app, { username: 'bo_by_email' });
    const cy = await signUp(h.app, { username: 'cy_requester' });
    const dee = await signUp(h.app, { username: 'dee_suggested' });
    await h.database.db
      .update(users)
      .set({ tags: ['synth', 'knitting'] })
      .where(eq(users.id, dee.userId));
    const projectId = await createProject(owner, 'Night synth album', ['synth']);
    await createProject(owner, 'Second project');

    // the owner: project page -> '+ Create Team' -> the form
    const op = await personPage(owner.email);
    await op.goto(`/projects/${projectId}`);
    await op.getByRole('heading', { level: 1, name: 'Night synth album' }).waitFor();
    const teamsRegion = op.getByRole('region', { name: 'Teams' });
    await teamsRegion.getByText('No teams yet.').waitFor();
    await teamsRegion.getByRole('link', { name: '+ Create Team' }).click();
    await op.waitForURL(`${h.baseUrl}/teams/new?projectId=${projectId}`);
    await op.getByRole('heading', { name: 'New team' }).waitFor();
    // the project is preselected, once my projects have loaded
    await expect.poll(() => op.getByLabel('Assign to project').inputValue()).toBe(projectId);
    const choices = (await op.getByLabel('Assign to project').locator('option').allInnerTexts()).map((s) => s.trim());
    expect(choices.sort()).toEqual(['Night synth album', 'None', 'Second project']);

    await op.getByLabel('Name').fill('   ');
    await op.getByRole('button', { name: 'Create Team' }).click();
    await op.getByText('Team name is required').waitFor();
    await op.getByLabel('Name').fill('  Night Synth Crew  ');
    await op.getByLabel('Description').fill('We make the album at night.');
    await op.getByLabel('Looking for').fill('Synth');
    await op.getByLabel('Looking for').press('Enter');
    await op.getByLabel('Looking for').fill('vocals');
    await op.getByLabel('Looking for').press('Enter');
    await op.getByRole('button', { name: 'Create Team' }).click();
    await op.waitForURL(/\/teams\/[0-9a-f-]{36}\/manage$/);
    const teamId = op.url().split('/').slice(-2)[0];
    const teamUrl = `${h.baseUrl}/teams/${teamId}`;

    // manage: the name was trimmed, the project is attached, the owner is the one active member
    await op.getByRole('heading', { level: 1, name: 'Manage Night Synth Crew' }).waitFor();
    await op.getByText('Attached to Night synth album').waitFor();
    expect(await op.getByLabel('Assign to project').inputValue()).toBe(projectId);
    const members = op.getByRole('region', { name: 'Members' });
    expect(await memberRow(rowOf(members, 'synth_owner'))).toEqual(['Manager', 'Active']);
    expect(await op.locator('.tag-chip span').allInnerTexts()).toEqual(['synth', 'vocals']);

    // invite: empty, unknown, by username, by email
    const invite = op.getByRole('region', { name: 'Invite people' });
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByText('Enter an email or username').waitFor();
    await invite.getByLabel('Email or username').fill('nobody_at_all');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByRole('alert').filter({ hasText: 'No user with that email or username' }).waitFor();
    await invite.getByLabel('Email or username').fill('ada_invitee');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByText('Invited ada_invitee.').waitFor();
    expect(await invite.getByLabel('Email or username').inputValue()).toBe('');
    await invite.getByLabel('Email or username').fill(bo.email.toUpperCase());
    expect(await invite.getByLabel('Role').inputValue()).toBe('member');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByText('Invited bo_by_email.').waitFor();
    await expect.poll(() => memberRow(rowOf(members, 'ada_invitee'))).toEqual(['Member', 'Invited', 'Make manager', 'Remove']);
    await expect.poll(() => memberRow(rowOf(members, 'bo_by_email'))).toEqual(['Member', 'Invited', 'Make manager', 'Remove']);
    // inviting the same person twice is refused with the server's words
    await invite.getByLabel('Email or username').fill('ada_invitee');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByRole('alert').filter({ hasText: 'This person has already been invited to this team' }).waitFor();

    // a suggested person (tags match the looking-for tags) is invited with one click
    const suggested = op.getByRole('region', { name: 'Suggested people' });
    await suggested.getByRole('link', { name: 'dee_suggested' }).waitFor();
    await suggested.getByText('Shared tags: synth').waitFor();
    await suggested.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => memberRow(rowOf(members, 'dee_suggested'))).toEqual(['Member', 'Invited', 'Make manager', 'Remove']);
    await suggested.getByText(/No suggestions yet/).waitFor();

    // looking-for tags: one added, one removed, kept after a reload
    const tagBox = op.getByLabel('Looking for');
    await tagBox.fill('Mixing');
    await tagBox.press('Enter');
    await op.getByRole('button', { name: 'Remove tag vocals' }).click();
    await expect.poll(() => op.locator('.tag-chip span').allInnerTexts()).toEqual(['synth', 'mixing']);
    // the cover: uploaded, then saved on the team
    await op.getByLabel('Cover image').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: await pngImage(640, 360) });
    await op.getByText('Cover saved.').waitFor();
    await op.reload();
    await op.getByRole('heading', { level: 1, name: 'Manage Night Synth Crew' }).waitFor();
    await expect.poll(() => op.locator('.tag-chip span').allInnerTexts()).toEqual(['synth', 'mixing']);
    await op.getByRole('list', { name: 'Chosen cover' }).getByRole('img').waitFor();

    // attach: detach, then attach again
    await op.getByLabel('Assign to project').selectOption('');
    await op.getByRole('button', { name: 'Attach' }).click();
    await op.getByText('Not attached to a project.').waitFor();
    await op.getByLabel('Assign to project').selectOption(projectId);
    await op.getByRole('button', { name: 'Attach' }).click();
    await op.getByText('Attached to Night synth album').waitFor();

    // a third person asks to join from the team's page
    const cp = await personPage(cy.email);
    await cp.goto(`/teams/${teamId}`);
    await cp.getByRole('heading', { level: 1, name: 'Night Synth Crew' }).waitFor();
    expect(await membership(cp).getByRole('button', { name: 'Accept invite' }).count()).toBe(0);
    expect(await membership(cp).getByRole('link', { name: 'Manage' }).count()).toBe(0);
    await membership(cp).getByRole('button', { name: 'Request to join' }).click();
    await membership(cp).getByText('Your request to join is waiting for the owner.').waitFor();
    expect(await membership(cp).getByRole('button', { name: 'Request to join' }).count()).toBe(0);
    // and cannot manage the team
    await cp.goto(`/teams/${teamId}/manage`);
    await cp.getByText('Only the team owner can do that').waitFor();
    expect(await cp.getByRole('button', { name: 'Invite' }).count()).toBe(0);

    // the two invited accept on their own screens
    const ap = await personPage(ada.email);
    await ap.goto(`/teams/${teamId}`);
    await membership(ap).getByText('You are invited to join this team.').waitFor();
    expect(await membership(ap).getByRole('button', { name: 'Request to join' }).count()).toBe(0);
    await membership(ap).getByRole('button', { name: 'Accept invite' }).click();
    await membership(ap).getByRole('button', { name: 'Leave team' }).waitFor();
    expect(await membership(ap).getByRole('button', { name: 'Accept invite' }).count()).toBe(0);

    const bp = await personPage(bo.email);
    await bp.goto(`/teams/${teamId}`);
    await membership(bp).getByRole('button', { name: 'Accept invite' }).click();
    await membership(bp).getByRole('button', { name: 'Leave team' }).waitFor();

    // the owner accepts the request and makes one member a manager
    await op.reload();
    await op.getByRole('heading', { level: 1, name: 'Manage Night Synth Crew' }).waitFor();
    await expect.poll(() => memberRow(rowOf(members, 'cy_requester'))).toEqual(['Member', 'Requested', 'Accept', 'Make manager', 'Remove']);
    expect(await memberRow(rowOf(members, 'ada_invitee'))).toEqual(['Member', 'Active', 'Make manager', 'Remove']);
    await rowOf(members, 'cy_requester').getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => memberRow(rowOf(members, 'cy_requester'))).toEqual(['Member', 'Active', 'Make manager', 'Remove']);
    await rowOf(members, 'ada_invitee').getByRole('button', { name: 'Make manager' }).click();
    await expect.poll(() => memberRow(rowOf(members, 'ada_invitee'))).toEqual(['Manager', 'Active', 'Make member', 'Remove']);
    // the owner's row has no actions
    expect(await rowOf(members, 'synth_owner').getByRole('button').count()).toBe(0);
    await op.getByText('4 active members').waitFor();

    // one member leaves
    await bp.reload();
    await membership(bp).getByRole('button', { name: 'Leave team' }).click();
    await membership(bp).getByText('You left the team.').waitFor();
    await membership(bp).getByRole('button', { name: 'Request to join' }).waitFor();

    // ada, now a manager, sees every row, but not Manage
    await ap.reload();
    await ap.getByText('You are a manager of this team.').waitFor();
    expect(await membership(ap).getByRole('link', { name: 'Manage' }).count()).toBe(0);

    // a visitor sees the team and its active members, and none of the membership buttons
    const visitor = (await h.newPage()).page;
    await visitor.goto(`/teams/${teamId}`);
    await visitor.getByRole('heading', { level: 1, name: 'Night Synth Crew' }).waitFor();
    await visitor.getByText('We make the album at night.').waitFor();
    await visitor.getByRole('img', { name: 'Night Synth Crew cover' }).waitFor();
    const details = visitor.getByRole('complementary', { name: 'Team details' });
    expect(await details.getByRole('link', { name: 'Night synth album' }).getAttribute('href')).toBe(`/projects/${projectId}`);
    const visitorMembers = visitor.getByRole('region', { name: 'Members' });
    await expect.poll(() => visitorMembers.locator('tbody tr').count()).toBe(3);
    expect(await dataCells(rowOf(visitorMembers, 'synth_owner'))).toEqual(['Manager', 'Active']);
    expect(await dataCells(rowOf(visitorMembers, 'ada_invitee'))).toEqual(['Manager', 'Active']);
    expect(await dataCells(rowOf(visitorMembers, 'cy_requester'))).toEqual(['Member', 'Active']);
    expect(await visitorMembers.getByRole('link', { name: 'ada_invitee' }).getAttribute('href')).toBe(`/profiles/${ada.userId}`);
    for (const name of ['Request to join', 'Accept invite', 'Leave team']) {
      expect(await visitor.getByRole('button', { name }).count()).toBe(0);
    }
    expect(await visitor.getByRole('link', { name: 'Manage' }).count()).toBe(0);

    // /teams lists it with its looking-for tags and active member count; the tag filter finds it
    await visitor.goto('/teams');
    const listRow = rowOf(visitor.locator('table'), 'Night Synth Crew');
    await listRow.waitFor();
    expect(await dataCells(listRow)).toEqual(['', 'synth\nmixing', '3']);
    expect(await listRow.getByRole('link', { name: 'Night Synth Crew' }).getAttribute('href')).toBe(`/teams/${teamId}`);
    await visitor.getByLabel('Filter by tag').fill('vocals');
    await visitor.getByLabel('Filter by tag').press('Enter');
    await visitor.getByText('No teams found.').waitFor();
    await visitor.getByRole('button', { name: 'Remove tag vocals' }).click();
    await visitor.getByLabel('Filter by tag').fill('mixing');
    await visitor.getByLabel('Filter by tag').press('Enter');
    await visitor.waitForURL(`${h.baseUrl}/teams?tags=mixing`);
    await listRow.waitFor();
    await visitor.getByLabel('Search').fill('nothing like it');
    await visitor.getByLabel('Search').press('Enter');
    await visitor.getByText('No teams found.').waitFor();

    // the project page's Teams table: member count and the first three roles, Manage for the owner
    await op.goto(`/projects/${projectId}`);
    const projectTeams = op.getByRole('region', { name: 'Teams' });
    const teamRow = rowOf(projectTeams, 'Night Synth Crew');
    await expect.poll(() => dataCells(teamRow)).toEqual(['3', 'Manager, Manager, Member', 'Manage']);
    expect(await teamRow.getByRole('link', { name: 'Night Synth Crew' }).getAttribute('href')).toBe(`/teams/${teamId}`);
    expect(await teamRow.getByRole('link', { name: 'Manage' }).getAttribute('href')).toBe(`/teams/${teamId}/manage`);
    // another signed-in person sees the table and '+ Create Team', not Manage
    await cp.goto(`/projects/${projectId}`);
    const theirRow = rowOf(cp.getByRole('region', { name: 'Teams' }), 'Night Synth Crew');
    await expect.poll(() => dataCells(theirRow)).toEqual(['3', 'Manager, Manager, Member', '']);
    await cp.getByRole('region', { name: 'Teams' }).getByRole('link', { name: '+ Create Team' }).waitFor();
    // a visitor sees no '+ Create Team'
    await visitor.goto(`/projects/${projectId}`);
    await rowOf(visitor.getByRole('region', { name: 'Teams' }), 'Night Synth Crew').waitFor();
    expect(await visitor.getByRole('link', { name: '+ Create Team' }).count()).toBe(0);
    expect(teamUrl).toContain(teamId);
  });

  it('offers only my own projects, and Cancel goes back', async () => {
    const someone = await signUp(h.app, { username: 'kite_maker' });
    const other = await signUp(h.app, { username: 'kite_fan' });
    const theirs = await createProject(someone, 'Kite festival');
    const page = await personPage(other.email);
    await page.goto(`/projects/${theirs}`);
    await page.getByRole('region', { name: 'Teams' }).getByRole('link', { name: '+ Create Team' }).click();
    await page.waitForURL(`${h.baseUrl}/teams/new?projectId=${theirs}`);
    await page.getByText('A team can only be assigned to a project you own.').waitFor();
    expect(await page.getByLabel('Assign to project').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${h.baseUrl}/projects/${theirs}`);

    // created without a project, it is on /teams and not on the project
    await page.goto('/teams/new');
    await page.getByLabel('Name').fill('Kite fans');
    await page.getByRole('button', { name: 'Create Team' }).click();
    await page.waitForURL(/\/teams\/[0-9a-f-]{36}\/manage$/);
    await page.getByText('Not attached to a project.').waitFor();
    await page.goto(`/projects/${theirs}`);
    await page.getByRole('region', { name: 'Teams' }).getByText('No teams yet.').waitFor();
    await page.goto('/teams/00000000-0000-4000-8000-000000000000');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
  });
});

describe('long lists of teams and members', () => {
  it('shows 50 members with Load more members, and scrolls through a project’s, my and a person’s teams', async () => {
    const owner = await signUp(h.app, { username: 'big_band_owner' });
    const { db } = h.database;
    // straight into the tables: 54 members (Member 00 .. Member 53, oldest first) and 24 more teams
    const people = await db
      .insert(users)
      .values(
        Array.from({ length: 54 }, (_, i) => ({
          email: `big.band.${i}@example.com`,
          username: `member_${String(i).padStart(2, '0')}`,
          passwordHash: 'not-a-hash',
        })),
      )
      .returning({ id: users.id, username: users.username });
    const [project] = await db.insert(projects).values({ ownerId: owner.userId, title: 'Big band project' }).returning();
    const base = Date.now() - 3600_000;
    const made = await db
      .insert(teams)
      .values(
        Array.from({ length: 25 }, (_, i) => ({
          ownerId: owner.userId,
          name: `Band ${String(i).padStart(2, '0')}`,
          projectId: project.id,
          createdAt: new Date(base - i * 1000),
        })),
      )
      .returning({ id: teams.id, name: teams.name });
    await db
      .insert(teamMembers)
      .values(
        made.map((t) => ({ teamId: t.id, userId: owner.userId, role: 'manager' as const, status: 'active' as const, createdAt: new Date(base - 10_000_000) })),
      );
    const bigTeam = made[0];
    await db
      .insert(teamMembers)
      .values(people.map((p, i) => ({ teamId: bigTeam.id, userId: p.id, status: 'active' as const, createdAt: new Date(base + i * 1000) })));
    const everyone = ['big_band_owner', ...people.map((p) => p.username!)];
    const teamNames = made.map((t) => t.name);

    // a visitor: the first 50 members, then the rest with the button, which then goes away
    const visitor = (await h.newPage()).page;
    await visitor.goto(`/teams/${bigTeam.id}`);
    const members = visitor.getByRole('region', { name: 'Members' });
    // each row's name (the avatar's initial and the Owner mark left out)
    const memberNames = () => members.locator('tbody th .owner-link > span:last-child').allInnerTexts();
    await expect.poll(memberNames).toEqual(everyone.slice(0, 50));
    await members.getByRole('button', { name: 'Load more members' }).click();
    await expect.poll(memberNames).toEqual(everyone);
    await members.getByRole('button', { name: 'Load more members' }).waitFor({ state: 'detached' });

    // the owner's manage page: the same, and a member of the second page can be changed
    const op = await personPage(owner.email);
    await op.goto(`/teams/${bigTeam.id}/manage`);
    const manageMembers = op.getByRole('region', { name: 'Members' });
    await op.getByText('55 active members').waitFor();
    await expect.poll(() => manageMembers.locator('tbody tr').count()).toBe(50);
    await manageMembers.getByRole('button', { name: 'Load more members' }).click();
    await expect.poll(() => manageMembers.locator('tbody tr').count()).toBe(55);
    await rowOf(manageMembers, 'member_53').getByRole('button', { name: 'Make manager' }).click();
    await expect.poll(() => memberRow(rowOf(manageMembers, 'member_53'))).toEqual(['Manager', 'Active', 'Make member', 'Remove']);
    await expect.poll(() => manageMembers.locator('tbody tr').count()).toBe(55);

    // the project's Teams table: 20 first, the rest as it scrolls into view
    await op.goto(`/projects/${project.id}`);
    const projectTeams = op.getByRole('region', { name: 'Teams' });
    const rowNames = () => projectTeams.locator('tbody th').allInnerTexts();
    await expect.poll(async () => (await rowNames()).slice(0, 20)).toEqual(teamNames.slice(0, 20));
    await projectTeams.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await expect.poll(rowNames).toEqual(teamNames);
    expect(await dataCells(rowOf(projectTeams, 'Band 00'))).toEqual(['55', 'Manager, Member, Member', 'Manage']);

    // my teams (/my, Teams tab) and the owner's profile (Teams tab)
    for (const [path, listName] of [
      ['/my?tab=teams', 'My teams'],
      [`/profiles/${owner.userId}?tab=teams`, 'Teams of big_band_owner'],
    ] as const) {
      await op.goto(path);
      const list = op.getByRole('list', { name: listName });
      const titles = () => list.locator('.compact-title').allInnerTexts();
      await expect.poll(async () => (await titles()).slice(0, 20)).toEqual(teamNames.slice(0, 20));
      await op.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
      await expect.poll(titles).toEqual(teamNames);
    }
  });
});
