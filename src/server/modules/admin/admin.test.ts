import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { count, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { buildTestApp, call, openTestDatabase, signUp, testConfig, trpc, type Client } from '../../../../test/helpers';
import { ConfigError, loadConfig } from '../../config';
import { changeHistory, storedTokens, users } from '../../db/schema';
import { setAdmin } from '../users/admin-grant';
import { open } from './secrets';
import { createAdminService } from './service';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let admin: Awaited<ReturnType<typeof signUp>>;
let otherAdmin: Awaited<ReturnType<typeof signUp>>;
let member: Awaited<ReturnType<typeof signUp>>;

const stamp = Date.now().toString(36);

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  admin = await signUp(app, { username: `adm_${stamp}` });
  otherAdmin = await signUp(app, { username: `adm2_${stamp}` });
  member = await signUp(app, { username: `mem_${stamp}` });
  await setAdmin(database.db, admin.email, true);
  await setAdmin(database.db, otherAdmin.email, true);
  await database.db.update(users).set({ name: 'Ada Console' }).where(eq(users.id, admin.userId));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const get = (who: Client | null, url: string) => call(app, who, { method: 'GET', url });
const post = (who: Client | null, url: string, payload: unknown) => call(app, who, { method: 'POST', url, payload: payload as Record<string, unknown> });
const tokenCount = async () => Number((await database.db.select({ n: count() }).from(storedTokens))[0].n);
const historyText = async () => JSON.stringify(await database.db.select().from(changeHistory));

describe('every admin call is for admins only', () => {
  const id = '00000000-0000-4000-8000-000000000000';
  const rest: [string, string, unknown?][] = [
    ['GET', '/api/admin/tokens'],
    ['POST', '/api/admin/tokens', { name: 'GUARDED', value: 'guarded-value' }],
    ['GET', '/api/admin/users'],
    ['GET', `/api/admin/users/${id}/history`],
    ['POST', `/api/admin/users/${id}/admin`, { admin: true }],
  ];
  const procs: ['query' | 'mutation', string, unknown?][] = [
    ['query', 'admin.tokens'],
    ['mutation', 'admin.storeToken', { name: 'GUARDED', value: 'guarded-value' }],
    ['query', 'admin.users', {}],
    ['query', 'admin.userHistory', { id }],
    ['mutation', 'admin.setAdmin', { id, admin: true }],
  ];

  it('REST: 401 signed out, 403 for a non-admin, nothing stored', async () => {
    for (const [method, url, payload] of rest) {
      const out = await call(app, null, { method: method as 'GET', url, ...(payload ? { payload: payload as object } : {}) });
      expect([url, out.statusCode, out.json()]).toEqual([url, 401, { error: M.signInRequired }]);
      const denied = await call(app, member, { method: method as 'GET', url, ...(payload ? { payload: payload as object } : {}) });
      expect([url, denied.statusCode, denied.json()]).toEqual([url, 403, { error: M.accessDenied }]);
    }
    expect(await tokenCount()).toBe(0);
  });

  it('tRPC: UNAUTHORIZED signed out, FORBIDDEN for a non-admin, nothing stored', async () => {
    for (const [kind, path, input] of procs) {
      const out = await trpc(app, null, kind, path, input);
      expect([path, out.status, out.error?.message]).toEqual([path, 401, M.signInRequired]);
      const denied = await trpc(app, member, kind, path, input);
      expect([path, denied.status, denied.error?.message]).toEqual([path, 403, M.accessDenied]);
    }
    expect(await tokenCount()).toBe(0);
  });
});

describe('stored tokens', () => {
  const VALUE = `sk_live_${stamp}_a-very-secret-value`;
  const VALUE2 = `sk_live_${stamp}_the-replacement`;

  it('stores a secret and lists only its name and dates, on both doors', async () => {
    const res = await post(admin, '/api/admin/tokens', { name: 'STRIPE_KEY', value: VALUE });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'STRIPE_KEY', createdAt: expect.any(String), updatedAt: expect.any(String), replaced: false });
    const viaTrpc = await trpc(app, otherAdmin, 'mutation', 'admin.storeToken', { name: 'MAIL_KEY', value: VALUE2 });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.data).toMatchObject({ name: 'MAIL_KEY', replaced: false });

    const list = await get(admin, '/api/admin/tokens');
    expect(list.json().map((t: { name: string }) => t.name)).toEqual(['MAIL_KEY', 'STRIPE_KEY']);
    for (const t of list.json()) expect(Object.keys(t).sort()).toEqual(['createdAt', 'name', 'updatedAt']);
    const tlist = await trpc(app, admin, 'query', 'admin.tokens');
    expect(tlist.data.map((t: { name: string }) => t.name)).toEqual(['MAIL_KEY', 'STRIPE_KEY']);

    for (const body of [res.body, JSON.stringify(viaTrpc.data), list.body, JSON.stringify(tlist.data)]) {
      expect(body).not.toContain(VALUE);
      expect(body).not.toContain(VALUE2);
    }
    // encrypted at rest: the row holds no plain value, and decrypts with the app's key to it
    const [row] = await database.db.select().from(storedTokens).where(eq(storedTokens.name, 'STRIPE_KEY'));
    expect(JSON.stringify(row)).not.toContain(VALUE);
    expect(await app.services.admin.readSecret('STRIPE_KEY')).toBe(VALUE);
    expect(row.createdBy).toBe(admin.userId);
  });

  it('storing a name again replaces the value (new ciphertext and IV), keeps createdAt, records an update', async () => {
    const first = await post(admin, '/api/admin/tokens', { name: 'REPLACE_ME', value: VALUE });
    const [before] = await database.db.select().from(storedTokens).where(eq(storedTokens.name, 'REPLACE_ME'));
    const again = await post(otherAdmin, '/api/admin/tokens', { name: 'REPLACE_ME', value: VALUE2 });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ name: 'REPLACE_ME', replaced: true, createdAt: first.json().createdAt });
    expect(new Date(again.json().updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(first.json().updatedAt).getTime());
    const rows = await database.db.select().from(storedTokens).where(eq(storedTokens.name, 'REPLACE_ME'));
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(before.id);
    expect(rows[0].ciphertext).not.toBe(before.ciphertext);
    expect(rows[0].iv).not.toBe(before.iv);
    expect(await app.services.admin.readSecret('REPLACE_ME')).toBe(VALUE2);
    // the ciphertext is bound to its name: copied under another name it does not open
    expect(() => open(Buffer.alloc(32, 1), 'REPLACE_ME', rows[0])).toThrow();

    const entries = await database.db.select().from(changeHistory).where(eq(changeHistory.key, before.id));
    expect(entries.map((e) => [e.modelName, e.action, e.fields, e.actorId]).sort()).toEqual([
      ['StoredToken', 'create', ['name', 'value'], admin.userId],
      ['StoredToken', 'update', ['value'], otherAdmin.userId],
    ]);
  });

  it('never puts a value in the change history', async () => {
    const text = await historyText();
    expect(text).toContain('StoredToken');
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain(VALUE2);
    expect(text).not.toContain('sk_live_');
  });

  it('refuses bad input with 400 and stores nothing', async () => {
    const before = await tokenCount();
    const historyBefore = await historyText();
    const cases: [unknown, string][] = [
      [{ value: 'x' }, M.tokenNameRequired],
      [{ name: '   ', value: 'x' }, M.tokenNameRequired],
      [{ name: 'has space', value: 'x' }, M.tokenNameInvalid],
      [{ name: 'N'.repeat(101), value: 'x' }, M.tokenNameTooLong],
      [{ name: 'EMPTY' }, M.tokenValueRequired],
      [{ name: 'EMPTY', value: '' }, M.tokenValueRequired],
      [{ name: 'EMPTY', value: '   ' }, M.tokenValueRequired],
      [{ name: 'EMPTY', value: 42 }, M.tokenValueRequired],
      [{ name: 'LONG', value: 'v'.repeat(10_001) }, M.tokenValueTooLong],
    ];
    for (const [payload, error] of cases) {
      const res = await post(admin, '/api/admin/tokens', payload);
      expect([payload, res.statusCode, res.json()]).toEqual([payload, 400, { error }]);
      const t = await trpc(app, admin, 'mutation', 'admin.storeToken', payload);
      expect([payload, t.status, t.error?.message]).toEqual([payload, 400, error]);
    }
    expect(await tokenCount()).toBe(before);
    expect(await historyText()).toBe(historyBefore);
  });

  it('logs no value, and in development keeps a key made once in the data directory with a warning', async () => {
    const lines: string[] = [];
    const log = {
      level: 'trace',
      fatal: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      error: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      warn: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      info: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      debug: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      trace: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      silent: () => {},
      child: () => log,
    } as unknown as FastifyBaseLogger;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-secrets-'));
    const config = testConfig({ dataDir, secretsKey: undefined });
    const service = createAdminService({ ...app.deps, config, log });
    expect(existsSync(path.join(dataDir, 'secrets.key'))).toBe(true);
    expect(lines.join('\n')).toContain('SECRETS_KEY is not set');
    const actor = { user: { ...(await database.db.select().from(users).where(eq(users.id, admin.userId)))[0] }, session: { id: 's' }, ip: '127.0.0.1' };
    const secret = `dev-only-${stamp}-value`;
    await service.storeToken(actor as never, { name: 'DEV_KEY', value: secret });
    await service.listTokens(actor as never);
    await expect(service.storeToken(actor as never, { name: 'DEV_KEY', value: secret })).resolves.toMatchObject({ replaced: true });
    // another process over the same data directory reads it with the same key
    const again = createAdminService({ ...app.deps, config, log });
    expect(await again.readSecret('DEV_KEY')).toBe(secret);
    // the app's own key (another data directory) cannot
    await expect(app.services.admin.readSecret('DEV_KEY')).rejects.toThrow();
    expect(lines.join('\n')).not.toContain(secret);
    expect(readFileSync(path.join(dataDir, 'secrets.key'), 'utf8')).not.toContain(secret);
  });
});

describe('SECRETS_KEY', () => {
  const key = Buffer.alloc(32, 7).toString('base64');
  it('is required in production, and must be 32 bytes of base64 anywhere', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEY is required in production/);
    for (const bad of ['short', Buffer.alloc(16).toString('base64'), Buffer.alloc(33).toString('base64'), `${key.slice(0, -1)}!`]) {
      for (const env of ['production', 'development', 'test']) {
        expect(() => loadConfig({ NODE_ENV: env, SECRETS_KEY: bad })).toThrow(/SECRETS_KEY must be 32 random bytes in base64/);
      }
    }
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: key }).secretsKey).toEqual(Buffer.alloc(32, 7));
    expect(loadConfig({ NODE_ENV: 'development' }).secretsKey).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'test', SECRETS_KEY: ' ' }).secretsKey).toBeUndefined();
  });

  it('encrypts with the configured key', async () => {
    const keyed = await buildTestApp(database, { secretsKey: Buffer.alloc(32, 7) });
    try {
      const res = await post(admin, '/api/admin/tokens', { name: 'KEYED', value: 'keyed-value' });
      expect(res.statusCode).toBe(200);
      const [row] = await database.db.select().from(storedTokens).where(eq(storedTokens.name, 'KEYED'));
      // stored through the other app (its dev key): the configured key does not open it ...
      expect(() => open(Buffer.alloc(32, 7), 'KEYED', row)).toThrow();
      // ... and what the keyed app stores opens with exactly that key
      const again = await call(keyed, admin, { method: 'POST', url: '/api/admin/tokens', payload: { name: 'KEYED', value: 'keyed-value-2' } });
      expect(again.statusCode).toBe(200);
      const [row2] = await database.db.select().from(storedTokens).where(eq(storedTokens.name, 'KEYED'));
      expect(open(Buffer.alloc(32, 7), 'KEYED', row2)).toBe('keyed-value-2');
    } finally {
      await keyed.close();
    }
  });
});

describe('user search', () => {
  const people: { id: string; email: string; username: string }[] = [];
  beforeAll(async () => {
    for (const [i, [name, phone]] of (
      [
        ['Zelda Quartz', '+1 555 0101 777'],
        ['Yannick Quartz', '+44 20 7946 0958'],
        ['Xavier Plain', null],
      ] as const
    ).entries()) {
      const u = await signUp(app, { username: `srch${i}_${stamp}` });
      await database.db.update(users).set({ name, phone }).where(eq(users.id, u.userId));
      people.push({ id: u.userId, email: u.email, username: `srch${i}_${stamp}` });
    }
    await setAdmin(database.db, people[1].email, true);
  });
  const search = async (query: string) => {
    const res = await get(admin, `/api/admin/users?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json() as { items: { _id: string; name: string; role: string; isAdmin: boolean }[]; total: number; page: number; limit: number };
  };

  it('finds people by name, username, email and phone, in any case', async () => {
    expect((await search('q=quartz')).items.map((u) => u.name).sort()).toEqual(['Yannick Quartz', 'Zelda Quartz']);
    expect((await search(`q=${encodeURIComponent(people[2].username.toUpperCase())}`)).items.map((u) => u._id)).toEqual([people[2].id]);
    expect((await search(`q=${encodeURIComponent(people[0].email.toUpperCase())}`)).items.map((u) => u._id)).toEqual([people[0].id]);
    expect((await search(`q=${encodeURIComponent('0101 777')}`)).items.map((u) => u._id)).toEqual([people[0].id]);
    // the digits, however they are spaced
    expect((await search(`q=${encodeURIComponent('2079460958')}`)).items.map((u) => u._id)).toEqual([people[1].id]);
    expect((await search('q=%25')).total).toBe(0); // LIKE characters are text
  });

  it('answers the console columns and nothing else (no password hash)', async () => {
    const res = await get(admin, `/api/admin/users?q=${people[1].username}`);
    expect(res.json()).toEqual({
      items: [
        {
          _id: people[1].id,
          name: 'Yannick Quartz',
          username: people[1].username,
          email: people[1].email,
          phone: '+44 20 7946 0958',
          role: 'admin',
          isAdmin: true,
          createdAt: expect.any(String),
        },
      ],
      total: 1,
      page: 1,
      limit: 20,
    });
    expect(res.body).not.toMatch(/argon|passwordHash/i);
  });

  it('filters by role and pages with a total', async () => {
    const all = await search(`q=${stamp}&role=all`);
    const admins = await search(`q=${stamp}&role=ADMIN`);
    const plain = await search(`q=${stamp}&role=user`);
    expect(admins.items.every((u) => u.role === 'admin' && u.isAdmin)).toBe(true);
    expect(plain.items.every((u) => u.role === 'user' && !u.isAdmin)).toBe(true);
    expect(admins.items.map((u) => u._id)).toContain(people[1].id);
    expect(admins.total + plain.total).toBe(all.total);
    expect(all.total).toBe(6); // adm, adm2, mem and the three people: their usernames carry the stamp
    const p1 = await search(`q=${stamp}&limit=4&page=1`);
    const p2 = await search(`q=${stamp}&limit=4&page=2`);
    expect([p1.items.length, p2.items.length, p1.total, p2.total]).toEqual([4, all.total - 4, all.total, all.total]);
    expect(new Set([...p1.items, ...p2.items].map((u) => u._id)).size).toBe(all.total);
    const t = await trpc(app, admin, 'query', 'admin.users', { q: stamp, role: 'admin' });
    expect(t.data.total).toBe(admins.total);
    for (const bad of ['role=root', 'page=0', 'limit=abc']) expect((await get(admin, `/api/admin/users?${bad}`)).statusCode).toBe(400);
    expect((await get(admin, '/api/admin/users?role=root')).json()).toEqual({ error: M.adminRoleFilterInvalid });
  });
});

describe('change history and admin rights', () => {
  it('grants and revokes admin from the console, recorded with the admin who did it; never one’s own', async () => {
    const target = await signUp(app, { username: `tgt_${stamp}` });
    const grant = await post(admin, `/api/admin/users/${target.userId}/admin`, { admin: true });
    expect([grant.statusCode, grant.json()]).toEqual([200, expect.objectContaining({ _id: target.userId, role: 'admin', isAdmin: true })]);
    expect((await get(target, '/api/admin/tokens')).statusCode).toBe(200);
    const revoke = await trpc(app, otherAdmin, 'mutation', 'admin.setAdmin', { id: target.userId, admin: false });
    expect(revoke.data).toMatchObject({ role: 'user', isAdmin: false });
    expect((await get(target, '/api/admin/tokens')).statusCode).toBe(403);
    // revoking again changes nothing and records nothing
    await post(admin, `/api/admin/users/${target.userId}/admin`, { admin: false });

    const history = await get(admin, `/api/admin/users/${target.userId}/history`);
    expect(history.statusCode).toBe(200);
    const items = history.json().items as {
      modelName: string;
      action: string;
      fields: string[];
      actor: { username: string; name: string | null } | null;
      createdAt: string;
    }[];
    const adminChanges = items.filter((e) => e.fields.includes('isAdmin'));
    expect(adminChanges.map((e) => [e.modelName, e.action, e.fields, e.actor?.username])).toEqual([
      ['User', 'update', ['isAdmin', 'role'], `adm2_${stamp}`],
      ['User', 'update', ['isAdmin', 'role'], `adm_${stamp}`],
    ]);
    expect(adminChanges[1].actor?.name).toBe('Ada Console');
    // newest first, registration (by the person themselves) last
    const times = items.map((e) => new Date(e.createdAt).getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(items[items.length - 1]).toMatchObject({ modelName: 'User', action: 'create', actor: { username: `tgt_${stamp}` } });

    const tItems = (await trpc(app, admin, 'query', 'admin.userHistory', { id: target.userId })).data.items;
    expect(tItems.map((e: { _id: string }) => e._id)).toEqual(history.json().items.map((e: { _id: string }) => e._id));

    for (const flag of [false, true]) {
      const self = await post(admin, `/api/admin/users/${admin.userId}/admin`, { admin: flag });
      expect([self.statusCode, self.json()]).toEqual([409, { error: M.cannotChangeOwnAdmin }]);
    }
    const selfTrpc = await trpc(app, admin, 'mutation', 'admin.setAdmin', { id: admin.userId, admin: false });
    expect([selfTrpc.status, selfTrpc.error?.message]).toEqual([409, M.cannotChangeOwnAdmin]);
    expect((await get(admin, '/api/admin/tokens')).statusCode).toBe(200);
  });

  it('pages the history by cursor; unknown people are 404, bad input 400', async () => {
    const target = await signUp(app, { username: `pg_${stamp}` });
    for (let i = 0; i < 3; i++) {
      await post(admin, `/api/admin/users/${target.userId}/admin`, { admin: true });
      await post(admin, `/api/admin/users/${target.userId}/admin`, { admin: false });
    }
    const all = (await get(admin, `/api/admin/users/${target.userId}/history?limit=100`)).json().items as { _id: string }[];
    expect(all.length).toBe(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(admin, `/api/admin/users/${target.userId}/history?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      const body = res.json() as { items: { _id: string }[]; nextCursor: string | null };
      seen.push(...body.items.map((e) => e._id));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e._id));

    for (const id of ['nope', '00000000-0000-4000-8000-000000000000']) {
      expect((await get(admin, `/api/admin/users/${id}/history`)).json()).toEqual({ error: M.userNotFound });
      expect((await post(admin, `/api/admin/users/${id}/admin`, { admin: true })).statusCode).toBe(404);
    }
    expect((await get(admin, `/api/admin/users/${target.userId}/history?cursor=garbage`)).statusCode).toBe(400);
    const before = await historyText();
    for (const body of [{}, { admin: 'yes' }, { admin: null }]) {
      const res = await post(admin, `/api/admin/users/${target.userId}/admin`, body);
      expect([res.statusCode, res.json()]).toEqual([400, { error: M.adminFlagRequired }]);
    }
    expect(await historyText()).toBe(before);
  });

  it('is append-only in the database itself: UPDATE and DELETE are refused, an account deletion still nulls its references', async () => {
    const [row] = await database.db.select().from(changeHistory).limit(1);
    const refused = async (q: ReturnType<typeof sql>) => {
      const err = await database.db.execute(q).then(
        () => null,
        (e: unknown) => e as { message?: string; cause?: { message?: string } },
      );
      expect(err).not.toBeNull();
      expect(`${err?.message} ${err?.cause?.message}`).toContain('append-only');
    };
    await refused(sql`update change_history set model_name = 'Tampered' where id = ${row.id}`);
    await refused(sql`update change_history set fields = array['x'] where id = ${row.id}`);
    await refused(sql`update change_history set actor_id = null where id = ${row.id}`);
    await refused(sql`delete from change_history where id = ${row.id}`);
    await refused(sql`delete from change_history`);
    expect((await database.db.select().from(changeHistory).where(eq(changeHistory.id, row.id)))[0]).toEqual(row);

    // an account can still be deleted: the foreign keys set its references in the history to null
    const gone = await signUp(app, { username: `gone_${stamp}` });
    await post(admin, `/api/admin/users/${gone.userId}/admin`, { admin: true });
    const mine = await database.db.select().from(changeHistory).where(eq(changeHistory.subjectUserId, gone.userId));
    expect(mine.length).toBe(2);
    await database.db.delete(users).where(eq(users.id, gone.userId));
    const after = await database.db
      .select()
      .from(changeHistory)
      .where(sql`${changeHistory.id} in ${mine.map((m) => m.id)}`);
    expect(after.map((h) => [h.subjectUserId, h.modelName, h.fields]).sort()).toEqual(mine.map((h) => [null, h.modelName, h.fields]).sort());
  });
});
