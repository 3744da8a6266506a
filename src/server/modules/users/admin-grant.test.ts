import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeHistory } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp } from '../../../../test/helpers';
import { setAdmin } from './admin-grant';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe('admin grant and revoke', () => {
  it('makes an account an admin and back, with history', async () => {
    const u = await signUp(app);
    expect(await setAdmin(database.db, ` ${u.email.toUpperCase()} `, true)).toBe(true);
    const me = await call(app, u, { method: 'GET', url: '/api/auth/me' });
    expect(me.json()).toMatchObject({ isAdmin: true, role: 'admin' });
    expect(await setAdmin(database.db, u.email, false)).toBe(true);
    const after = await call(app, u, { method: 'GET', url: '/api/auth/me' });
    expect(after.json()).toMatchObject({ isAdmin: false, role: 'user' });
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, u.userId));
    expect(history.filter((h) => h.fields.includes('isAdmin'))).toHaveLength(2);
  });

  it('reports an unknown email', async () => {
    expect(await setAdmin(database.db, 'nobody@example.com', true)).toBe(false);
  });
});
