import { and, eq, gt, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../shared/constants';
import { campaignDonors, campaigns, campaignUpdates, comments, disputes, donations, payouts, projects, supports, tagUsage, teams, users } from '../db/schema';
import { arrayRunner } from '../db/array-rows';
import type { Actor } from '../deps';
import { textArrayLiteral } from './listing';
import { openTestDatabase } from '../../../test/helpers';
import {
  adminAccountSql,
  backerSql,
  audienceOf,
  canDeleteComment,
  canSeeComment,
  canSeeDispute,
  canSeeDonation,
  canSeeItem,
  canSeePayout,
  canSeeProfile,
  canSeeTeam,
  canSeeTeamProject,
  canSeeUpdate,
  commentVisibleSql,
  disputeVisibleSql,
  donationVisibleSql,
  isAdminAccount,
  itemVisibleSql,
  itemVisibleText,
  mayHoldPayouts,
  payoutVisibleSql,
  profileVisibleSql,
  tagVisibleSql,
  teamProjectVisibleSql,
  teamVisibleSql,
  updateVisibleSql,
  viewerOf,
  viewerOfCategory,
} from './access';

/**
 * The access rule in TypeScript and in SQL, held equal: for every category and every kind of
 * viewer (signed out, signed in, adult access, the owner, an admin), released or draft (scheduled
 * or not), `canSeeItem` and `itemVisibleSql` agree on every item, and the generated column `audience` agrees with
 * `audienceOf`. A new state of an item is added to the module and to the fixtures here.
 */

type Db = Awaited<ReturnType<typeof openTestDatabase>>;
let database: Db;
const ids = { owner: '', other: '', adultUser: '', admin: '' };

function actorOf(id: string | null, extra: { hasAdultAccess?: boolean; isAdmin?: boolean } = {}): Actor {
  if (id === null) return { user: null, session: null, ip: '127.0.0.1' };
  return {
    user: {
      id,
      email: `${id}@example.com`,
      username: null,
      name: null,
      role: 'user',
      isAdmin: extra.isAdmin ?? false,
      hasAdultAccess: extra.hasAdultAccess ?? false,
      emailVerified: true,
    } as never,
    session: { id: 's', userId: id } as never,
    ip: '127.0.0.1',
  };
}

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  for (const key of Object.keys(ids) as (keyof typeof ids)[]) {
    const [u] = await db
      .insert(users)
      .values({
        email: `${key.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`,
        passwordHash: 'x',
        hasAdultAccess: key === 'adultUser',
        isAdmin: key === 'admin',
      })
      .returning({ id: users.id });
    ids[key] = u.id;
  }
  let n = 0;
  for (const type of CATEGORIES) {
    // each item carries a tag of its own category (so a tag of the adult items only exists) and one they all share
    const tags = [`tag-${type}`, 'shared'];
    const [c] = await db
      .insert(campaigns)
      .values({ ownerId: ids.owner, title: `c ${type}`, type, tags })
      .returning({ id: campaigns.id });
    const [p] = await db
      .insert(projects)
      .values({ ownerId: ids.owner, title: `p ${type}`, type, tags })
      .returning({ id: projects.id });
    // what hangs on them: a team of the project, a comment, a donation of an account and a guest's, a payout, a dispute
    await db.insert(teams).values({ ownerId: ids.owner, name: `t ${type}`, projectId: p.id, tags: ['team-tag'] });
    await db.insert(comments).values({ campaignId: c.id, userId: ids.other, text: 'hello' });
    for (const donor of [{ donorId: ids.other }, { donorEmail: 'guest@example.com' }]) {
      n += 1;
      await db
        .insert(donations)
        .values({ campaignId: c.id, ...donor, amount: 500, currency: 'USD', provider: 'sandbox', idempotencyKey: `k${n}`, requestHash: 'h' });
    }
    await db
      .insert(payouts)
      .values({ campaignId: c.id, requestedBy: ids.owner, recipientPaypalEmail: 'o@example.com', gross: 100, platformFee: 5, net: 95, currency: 'USD' });
    await db.insert(disputes).values({ userId: ids.other, campaignId: c.id, reason: 'why' });
  }
  await db.insert(teams).values({ ownerId: ids.other, name: 't without a project' });
  // drafts (not released: audience 'draft'), one of an open category and one adult, one scheduled,
  // each with a tag no released item carries, a team of the project and a comment on the campaign
  for (const [type, releaseAt] of DRAFTS) {
    const values = { ownerId: ids.owner, type, tags: ['tag-draft', 'shared'], releasedAt: null, releaseAt };
    const [c] = await db
      .insert(campaigns)
      .values({ ...values, title: `draft c ${type}` })
      .returning({ id: campaigns.id });
    const [p] = await db
      .insert(projects)
      .values({ ...values, title: `draft p ${type}` })
      .returning({ id: projects.id });
    await db.insert(teams).values({ ownerId: ids.owner, name: `t draft ${type}`, projectId: p.id });
    await db.insert(comments).values({ campaignId: c.id, userId: ids.other, text: 'on a draft' });
  }
});

/** The drafts of the fixtures: their category and release time (null: not scheduled). */
const DRAFTS: [(typeof CATEGORIES)[number], Date | null][] = [
  ['art', null],
  ['adult', new Date(Date.now() + 86_400_000)],
];
const ITEMS = CATEGORIES.length + DRAFTS.length;

function viewers(): Record<string, Actor> {
  return {
    signedOut: actorOf(null),
    other: actorOf(ids.other),
    adultUser: actorOf(ids.adultUser, { hasAdultAccess: true }),
    owner: actorOf(ids.owner),
    admin: actorOf(ids.admin, { isAdmin: true }),
  };
}

afterAll(() => database?.close());

describe('the access rule', () => {
  it('keeps the generated audience column equal to audienceOf', async () => {
    for (const table of [campaigns, projects]) {
      const rows = await database.db.select({ type: table.type, releasedAt: table.releasedAt, audience: table.audience }).from(table);
      expect(rows.length).toBe(ITEMS);
      for (const r of rows) expect(r.audience).toBe(audienceOf(r));
      expect(rows.filter((r) => r.audience === 'draft').length).toBe(DRAFTS.length);
    }
  });

  it('answers the same in TypeScript and in SQL for every viewer and item', async () => {
    for (const [name, actor] of Object.entries(viewers())) {
      for (const table of [campaigns, projects]) {
        const rows = await database.db
          .select({
            id: table.id,
            type: table.type,
            ownerId: table.ownerId,
            releasedAt: table.releasedAt,
            seen: sql<boolean>`${itemVisibleSql(viewerOf(actor), table)}`,
          })
          .from(table);
        for (const r of rows)
          expect({ name, type: r.type, draft: r.releasedAt === null, seen: r.seen }).toEqual({
            name,
            type: r.type,
            draft: r.releasedAt === null,
            seen: canSeeItem(actor, r),
          });
        const seen = rows.filter((r) => r.seen && r.releasedAt !== null).map((r) => r.type);
        // what each viewer sees, spelled out: the adult category only with adult access or as its owner
        expect(seen.includes('adult')).toBe(name === 'adultUser' || name === 'owner');
        expect(seen.length).toBe(CATEGORIES.length - (seen.includes('adult') ? 0 : 1));
        // drafts: their owner only (an admin or adult access sees none)
        expect({ name, drafts: rows.filter((r) => r.seen && r.releasedAt === null).length }).toEqual({ name, drafts: name === 'owner' ? DRAFTS.length : 0 });
      }
    }
  });

  it("answers the same for a list of one category (viewerOfCategory), and a visitor's adult list is false without reading a row", async () => {
    for (const [name, actor] of Object.entries(viewers())) {
      for (const table of [campaigns, projects]) {
        for (const type of CATEGORIES) {
          const rows = await database.db
            .select({ id: table.id, type: table.type, ownerId: table.ownerId, releasedAt: table.releasedAt })
            .from(table)
            .where(and(eq(table.type, type), itemVisibleSql(viewerOfCategory(viewerOf(actor), type), table)));
          const all = await database.db
            .select({ id: table.id, type: table.type, ownerId: table.ownerId, releasedAt: table.releasedAt })
            .from(table)
            .where(eq(table.type, type));
          expect({ name, type, seen: rows.map((r) => r.id).sort() }).toEqual({
            name,
            type,
            seen: all
              .filter((r) => canSeeItem(actor, r))
              .map((r) => r.id)
              .sort(),
          });
        }
      }
    }
    // a visitor can see no adult item: the condition is false as written, and PostgreSQL reads nothing
    const visitor = viewerOfCategory(viewerOf(actorOf(null)), 'adult');
    expect(visitor.audiences).toEqual([]);
    const q = database.db
      .select({ id: campaigns.id })
      .from(campaigns)
      .where(and(eq(campaigns.type, 'adult'), itemVisibleSql(visitor, campaigns)))
      .toSQL();
    const plan = (await arrayRunner(database.db)({ sql: `explain (costs off) ${q.sql}`, params: q.params }, false)).map((r) => String(r[0]));
    expect(plan).toContain('  One-Time Filter: false');
  });

  it('answers the same in the hand-written statement form (itemVisibleText) for every viewer and campaign', async () => {
    for (const [name, actor] of Object.entries(viewers())) {
      const v = viewerOf(actor);
      const text = `select c.type, c.owner_id, c.released_at, ${itemVisibleText('c', '$1', '$2')} as seen from campaigns c`;
      const found = (await arrayRunner(database.db)({ sql: text, params: [textArrayLiteral(v.audiences), v.userId ?? null] }, false)).map(
        ([type, ownerId, releasedAt, seen]) => ({
          type: String(type),
          ownerId: String(ownerId),
          releasedAt: releasedAt === null ? null : new Date(releasedAt as string),
          seen: seen === true,
        }),
      );
      expect(found.length).toBe(ITEMS);
      for (const r of found) expect({ name, type: r.type, seen: r.seen }).toEqual({ name, type: r.type, seen: canSeeItem(actor, r) });
    }
  });

  it("shows every team, and a team's project only where the project is visible, alike in both forms", async () => {
    for (const [name, actor] of Object.entries(viewers())) {
      const rows = await database.db
        .select({
          ownerId: teams.ownerId,
          project: { type: projects.type, ownerId: projects.ownerId, releasedAt: projects.releasedAt },
          seen: sql<boolean>`${teamVisibleSql(viewerOf(actor))}`,
          projectSeen: sql<boolean>`${teamProjectVisibleSql(viewerOf(actor), projects)}`,
        })
        .from(teams)
        .leftJoin(projects, eq(projects.id, teams.projectId));
      expect(rows.length).toBe(ITEMS + 1);
      for (const r of rows) {
        expect({ name, seen: r.seen, projectSeen: r.projectSeen }).toEqual({
          name,
          seen: canSeeTeam(actor, r),
          projectSeen: canSeeTeamProject(actor, r.project),
        });
      }
      // the teams of the adult project show it only to adult access and its owner, those of drafts only to the owner; the team without a project shows none
      const shown = CATEGORIES.length - (name === 'adultUser' || name === 'owner' ? 0 : 1) + (name === 'owner' ? DRAFTS.length : 0);
      expect({ name, shown: rows.filter((r) => r.projectSeen).length }).toEqual({ name, shown });
    }
  });

  it('shows every profile alike in both forms', async () => {
    for (const [name, actor] of Object.entries(viewers())) {
      const rows = await database.db.select({ id: users.id, seen: sql<boolean>`${profileVisibleSql(viewerOf(actor))}` }).from(users);
      for (const r of rows) expect({ name, seen: r.seen }).toEqual({ name, seen: canSeeProfile(actor, r) });
    }
  });

  it('shows a comment where its campaign is seen, alike in both forms; its author, the owner and admins delete it', async () => {
    for (const [name, actor] of Object.entries(viewers())) {
      const rows = await database.db
        .select({
          userId: comments.userId,
          type: campaigns.type,
          ownerId: campaigns.ownerId,
          releasedAt: campaigns.releasedAt,
          seen: sql<boolean>`${commentVisibleSql(viewerOf(actor), comments)}`,
        })
        .from(comments)
        .innerJoin(campaigns, eq(campaigns.id, comments.campaignId));
      expect(rows.length).toBe(ITEMS);
      expect({ name, draftComments: rows.filter((r) => r.seen && r.releasedAt === null).length }).toEqual({
        name,
        draftComments: name === 'owner' ? DRAFTS.length : 0,
      });
      for (const r of rows) {
        expect({ name, type: r.type, seen: r.seen }).toEqual({ name, type: r.type, seen: canSeeComment(actor, r) });
        if (actor.user)
          expect({ name, del: canDeleteComment(actor.user, r.userId, r.ownerId) }).toEqual({ name, del: ['other', 'owner', 'admin'].includes(name) });
      }
    }
  });

  it("shows a donation to its donor, the campaign's owner and admins, a payout to the owner and admins, a dispute to its author and admins, alike in both forms", async () => {
    const expected: Record<string, { donations: number; payouts: number; disputes: number }> = {
      signedOut: { donations: 0, payouts: 0, disputes: 0 },
      // the donor of one donation per campaign, the author of every dispute
      other: { donations: CATEGORIES.length, payouts: 0, disputes: CATEGORIES.length },
      adultUser: { donations: 0, payouts: 0, disputes: 0 },
      owner: { donations: 2 * CATEGORIES.length, payouts: CATEGORIES.length, disputes: 0 },
      admin: { donations: 2 * CATEGORIES.length, payouts: CATEGORIES.length, disputes: CATEGORIES.length },
    };
    for (const [name, actor] of Object.entries(viewers())) {
      const viewer = viewerOf(actor);
      const d = await database.db
        .select({ donorId: donations.donorId, campaignOwnerId: campaigns.ownerId, seen: sql<boolean>`${donationVisibleSql(viewer, donations)}` })
        .from(donations)
        .innerJoin(campaigns, eq(campaigns.id, donations.campaignId));
      for (const r of d) expect({ name, seen: r.seen }).toEqual({ name, seen: canSeeDonation(actor, r) });
      const p = await database.db
        .select({ campaignOwnerId: campaigns.ownerId, seen: sql<boolean>`${payoutVisibleSql(viewer, payouts)}` })
        .from(payouts)
        .innerJoin(campaigns, eq(campaigns.id, payouts.campaignId));
      for (const r of p) expect({ name, seen: r.seen }).toEqual({ name, seen: canSeePayout(actor, r) });
      const q = await database.db.select({ userId: disputes.userId, seen: sql<boolean>`${disputeVisibleSql(viewer, disputes)}` }).from(disputes);
      for (const r of q) expect({ name, seen: r.seen }).toEqual({ name, seen: canSeeDispute(actor, r) });
      const count = (rows: { seen: boolean }[]) => rows.filter((r) => r.seen).length;
      expect({ name, donations: count(d), payouts: count(p), disputes: count(q) }).toEqual({ name, ...expected[name] });
    }
  });

  it('lets the owner, admins and those with a stake hold payouts', async () => {
    const all = viewers();
    const ask = (actor: Actor, stake: boolean) => mayHoldPayouts(actor, ids.owner, () => Promise.resolve(stake));
    expect(await ask(all.owner, false)).toBe(true);
    expect(await ask(all.admin, false)).toBe(true);
    expect(await ask(all.other, false)).toBe(false);
    expect(await ask(all.other, true)).toBe(true);
  });

  it('spells an admin account alike in both forms', async () => {
    const rows = await database.db.select({ isAdmin: users.isAdmin, role: users.role, admin: sql<boolean>`${adminAccountSql(users)}` }).from(users);
    for (const r of rows) expect(r.admin).toBe(isAdminAccount(r));
    expect(rows.filter((r) => r.admin).length).toBe(1);
  });

  it('suggests a tag only when something the viewer may see carries it', async () => {
    // what carries each tag, and who sees it, in TypeScript
    const items = [
      ...(await database.db
        .select({ type: campaigns.type, ownerId: campaigns.ownerId, releasedAt: campaigns.releasedAt, tags: campaigns.tags })
        .from(campaigns)),
      ...(await database.db.select({ type: projects.type, ownerId: projects.ownerId, releasedAt: projects.releasedAt, tags: projects.tags }).from(projects)),
    ];
    const open = [...(await database.db.select({ tags: teams.tags }).from(teams)), ...(await database.db.select({ tags: users.tags }).from(users))];
    for (const [name, actor] of Object.entries(viewers())) {
      const cond = tagVisibleSql(viewerOf(actor), tagUsage.tag);
      const rows = await database.db
        .select({ tag: tagUsage.tag })
        .from(tagUsage)
        .where(and(gt(tagUsage.uses, 0), cond));
      const expectedTags = new Set([...items.filter((i) => canSeeItem(actor, i)).flatMap((i) => i.tags), ...open.flatMap((o) => o.tags)]);
      expect({ name, tags: rows.map((r) => r.tag).sort() }).toEqual({ name, tags: [...expectedTags].sort() });
      expect({ name, adultTag: expectedTags.has('tag-adult') }).toEqual({ name, adultTag: name === 'adultUser' || name === 'owner' });
      // a tag only drafts carry is suggested to their owner alone
      expect({ name, draftTag: expectedTags.has('tag-draft') }).toEqual({ name, draftTag: name === 'owner' });
    }
  });
});

describe('updates to backers (#33)', () => {
  /** Who backs every campaign (or seems to): the names of the fixtures below, and whether each is a backer. */
  const people = { backer: true, supporter: true, guestBacker: true, refunded: false, unconfirmed: false, unverifiedGuest: false } as const;
  const pid: Record<keyof typeof people, string> = { backer: '', supporter: '', guestBacker: '', refunded: '', unconfirmed: '', unverifiedGuest: '' };

  beforeAll(async () => {
    const { db } = database;
    const stamp = Math.random().toString(36).slice(2);
    for (const key of Object.keys(pid) as (keyof typeof pid)[]) {
      // the guest backer's account has the address they gave with as a guest, verified; the unverified one has a guest's address too
      const email =
        key === 'guestBacker'
          ? `guest-${stamp}@example.com`
          : key === 'unverifiedGuest'
            ? `unverified-${stamp}@example.com`
            : `${key.toLowerCase()}-${stamp}@example.com`;
      const [u] = await db
        .insert(users)
        .values({ email, passwordHash: 'x', emailVerifiedAt: key === 'unverifiedGuest' ? null : new Date() })
        .returning({ id: users.id });
      pid[key] = u.id;
    }
    for (const c of await db.select({ id: campaigns.id }).from(campaigns)) {
      await db.insert(campaignDonors).values([
        { campaignId: c.id, donorKey: `u:${pid.backer}`, userId: pid.backer, currency: 'USD', gifts: 1, donated: 500 },
        { campaignId: c.id, donorKey: `e:guest-${stamp}@example.com`, currency: 'USD', gifts: 1, donated: 500 },
        { campaignId: c.id, donorKey: `e:unverified-${stamp}@example.com`, currency: 'USD', gifts: 1, donated: 500 },
        // a gift refunded in full: no standing gift
        { campaignId: c.id, donorKey: `u:${pid.refunded}`, userId: pid.refunded, currency: 'USD', gifts: 0, donated: 0 },
      ]);
      await db.insert(supports).values([
        { campaignId: c.id, userId: pid.supporter, confirmedAt: new Date() },
        { campaignId: c.id, userId: pid.unconfirmed, confirmedAt: null },
      ]);
      for (const audience of ['public', 'backers'] as const)
        await db.insert(campaignUpdates).values({ campaignId: c.id, title: audience, body: 'b', audience });
    }
  });

  it("shows an update's text where its campaign is seen when public, else to the owner, admins and backers, alike in both forms", async () => {
    const all: Record<string, [Actor, boolean]> = Object.fromEntries([
      ...Object.entries(viewers()).map(([name, actor]) => [name, [actor, false]]),
      ...(Object.keys(people) as (keyof typeof people)[]).map((name) => [name, [actorOf(pid[name]), people[name]]]),
    ]);
    const totals: Record<string, number> = {};
    for (const [name, [actor, backer]] of Object.entries(all)) {
      const viewer = viewerOf(actor);
      const rows = await database.db
        .select({
          type: campaigns.type,
          ownerId: campaigns.ownerId,
          releasedAt: campaigns.releasedAt,
          audience: campaignUpdates.audience,
          seen: sql<boolean>`${updateVisibleSql(viewer, campaignUpdates)}`,
          backer: sql<boolean>`${backerSql(viewer, campaignUpdates.campaignId)}`,
        })
        .from(campaignUpdates)
        .innerJoin(campaigns, eq(campaigns.id, campaignUpdates.campaignId));
      expect(rows.length).toBe(2 * ITEMS);
      for (const r of rows) {
        expect({ name, backer: r.backer }).toEqual({ name, backer });
        expect({ name, type: r.type, draft: r.releasedAt === null, audience: r.audience, seen: r.seen }).toEqual({
          name,
          type: r.type,
          draft: r.releasedAt === null,
          audience: r.audience,
          seen: canSeeUpdate(actor, r, r, backer),
        });
      }
      totals[name] = rows.filter((r) => r.seen).length;
    }
    const released = CATEGORIES.length - 1; // the adult category is for adult access
    expect(totals).toEqual({
      signedOut: released,
      other: released,
      adultUser: CATEGORIES.length,
      // the owner reads every update of theirs, drafts included; an admin those of the campaigns they see
      owner: 2 * ITEMS,
      admin: 2 * released,
      backer: 2 * released,
      supporter: 2 * released,
      guestBacker: 2 * released,
      refunded: released,
      unconfirmed: released,
      unverifiedGuest: released,
    });
  });
});
