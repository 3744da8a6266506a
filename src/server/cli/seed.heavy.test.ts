import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, testConfig } from '../../../test/helpers';
import { verifyPassword } from '../auth/password';
import {
  campaigns,
  campaignTotals,
  changeHistory,
  donations,
  emailOutbox,
  images,
  projectFollows,
  projects,
  sessions,
  subscriptions,
  users,
} from '../db/schema';
import { uploadsDir } from '../storage/storage';
import { seedDemo, seedDeps, type SeedResult } from './seed';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
const config = testConfig();
let result: SeedResult;

beforeAll(async () => {
  database = await openTestDatabase();
  result = await seedDemo(await seedDeps(database.db, config), { password: 'demo-password-for-tests' });
});
afterAll(async () => {
  await database?.close();
});

const rowCount = async (table: Parameters<ReturnType<typeof database.db.select>['from']>[0]) =>
  Number((await database.db.select({ n: count() }).from(table))[0].n);

/** Every file under the uploads directory (relative path and size). */
function storedFiles(): string[] {
  const root = uploadsDir(config.dataDir);
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${path.relative(root, p)}:${statSync(p).size}`);
    }
  };
  walk(root);
  return out.sort();
}

describe('npm run seed (seedDemo)', () => {
  it('creates 12 people, one of them admin and one with adult access, who can sign in', async () => {
    expect(result.seeded).toBe(true);
    const people = await database.db.select().from(users);
    expect(people).toHaveLength(12);
    expect(people.filter((u) => u.isAdmin)).toHaveLength(1);
    expect(people.filter((u) => u.hasAdultAccess)).toHaveLength(1);
    for (const u of people) {
      expect(u.username).toMatch(/^[a-z0-9_.-]{3,32}$/);
      expect(u.name).toBeTruthy();
      expect(u.tags.length).toBeGreaterThan(0);
      expect(u.emailVerifiedAt).not.toBeNull();
      expect(u.imageUrl).toMatch(/^\/uploads\/avatar\//);
    }
    if (!result.seeded) return;
    const admin = people.find((u) => u.isAdmin)!;
    expect(admin.email).toBe(result.admin.email);
    expect(admin.role).toBe('admin');
    expect(await verifyPassword(admin.passwordHash, 'demo-password-for-tests')).toBe(true);
    const regular = result.user.email;
    expect(people.find((u) => u.email === regular)?.isAdmin).toBe(false);
    // no email left the machine, and the seeding sessions were closed
    const outbox = await database.db.select({ status: emailOutbox.status }).from(emailOutbox);
    expect(outbox.length).toBeGreaterThan(0);
    expect(outbox.every((m) => m.status === 'outbox')).toBe(true);
    expect(await rowCount(sessions)).toBe(0);
  });

  it('creates about 30 campaigns and 15 projects across the categories, adult ones owned by the adult-access person', async () => {
    const cs = await database.db.select().from(campaigns);
    const ps = await database.db.select().from(projects);
    expect(cs.length).toBeGreaterThanOrEqual(25);
    expect(ps.length).toBeGreaterThanOrEqual(12);
    expect(new Set(cs.map((c) => c.type)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(ps.map((p) => p.type)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(cs.map((c) => c.currency))).toEqual(new Set(['USD', 'EUR', 'GBP']));
    expect(new Set(cs.map((c) => c.actionMode))).toEqual(new Set(['support', 'donation', 'both']));
    const now = Date.now();
    expect(cs.some((c) => c.executionDate && c.executionDate.getTime() < now)).toBe(true);
    expect(cs.some((c) => c.executionDate && c.executionDate.getTime() > now)).toBe(true);

    const [adultOwner] = await database.db.select({ id: users.id }).from(users).where(eq(users.hasAdultAccess, true));
    const adult = [...cs, ...ps].filter((i) => i.type === 'adult');
    expect(adult.length).toBeGreaterThanOrEqual(2);
    expect(adult.every((i) => i.ownerId === adultOwner.id)).toBe(true);
    expect(await rowCount(projectFollows)).toBeGreaterThan(0);
    // every create went through the service (one history entry each)
    const created = await database.db.select({ key: changeHistory.key }).from(changeHistory).where(eq(changeHistory.action, 'create'));
    const keys = new Set(created.map((h) => h.key));
    expect([...cs, ...ps].every((i) => keys.has(i.id))).toBe(true);
  });

  it('gives donations through the sandbox (some monthly, one refunded), so campaigns show money raised', async () => {
    const ds = await database.db.select().from(donations);
    expect(ds.length).toBeGreaterThanOrEqual(15);
    expect(ds.filter((d) => d.status === 'refunded')).toHaveLength(1);
    expect(ds.filter((d) => d.status === 'succeeded').length).toBe(ds.length - 1);
    expect(ds.some((d) => d.recurring)).toBe(true);
    expect(ds.some((d) => d.donorId === null)).toBe(true);
    expect(await rowCount(subscriptions)).toBeGreaterThan(0);
    const [raised] = await database.db
      .select({ n: sql<string>`count(distinct ${campaignTotals.campaignId})` })
      .from(campaignTotals)
      .where(sql`${campaignTotals.raised} > 0`);
    expect(Number(raised.n)).toBeGreaterThanOrEqual(8);
  });

  it("stores every campaign's and project's pictures as uploaded files", async () => {
    const root = uploadsDir(config.dataDir);
    const uploaded = new Map((await database.db.select().from(images)).map((i) => [i.url, i]));
    const items = [...(await database.db.select().from(campaigns)), ...(await database.db.select().from(projects))];
    for (const item of items) {
      expect(item.imageUrl).toMatch(/^\/uploads\/cover\/[0-9a-f-]+\.webp$/);
      expect(item.images.length).toBeGreaterThanOrEqual(1);
      expect(item.images.length).toBeLessThanOrEqual(3);
      for (const url of [item.imageUrl!, ...item.images.map((i) => i.url)]) {
        const row = uploaded.get(url);
        expect(row, url).toBeDefined();
        expect(row!.ownerId).toBe(item.ownerId);
        expect(row!.contentType).toBe('image/webp');
        const file = path.join(root, ...row!.storageKey.split('/'));
        expect(existsSync(file), file).toBe(true);
        expect(statSync(file).size).toBe(row!.bytes);
      }
    }
  });

  it('refuses a second run and changes nothing', async () => {
    const snapshot = async () => ({
      users: await rowCount(users),
      campaigns: await rowCount(campaigns),
      projects: await rowCount(projects),
      images: await rowCount(images),
      follows: await rowCount(projectFollows),
      donations: await rowCount(donations),
      history: await rowCount(changeHistory),
      outbox: await rowCount(emailOutbox),
      sessions: await rowCount(sessions),
      files: storedFiles(),
    });
    const before = await snapshot();
    const again = await seedDemo(await seedDeps(database.db, config));
    expect(again.seeded).toBe(false);
    expect(again.message).toMatch(/not empty/);
    expect(await snapshot()).toEqual(before);
  });
});
