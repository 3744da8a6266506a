import type { AnyProcedure } from '@trpc/server';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { users } from '../db/schema';
import type { Actor } from '../deps';
import { adminProcedure, authedProcedure } from '../trpc/init';
import { appRouter } from '../trpc/router';
import { buildTestApp, call, freshIp, openTestDatabase, signUp, trpc, type Client } from '../../../test/helpers';

/**
 * Who may call, enforced by the doors and by the services alike. REST: every route declared
 * `auth: 'required'` or `'admin'` (the declarations the API document is built from, app.apiRoutes)
 * answers 401 'Sign in required' to a signed-out call before its handler or its input parsing
 * runs, and every `'admin'` route 403 'Access denied' to a signed-in non-admin. tRPC: every
 * procedure built on authedProcedure answers 401 signed out, every one built on adminProcedure 403
 * to a non-admin. The services keep their own checks: called directly, they refuse alike.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let member: Client & { userId: string };
let admin: Client & { userId: string };

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  member = await signUp(app, { username: 'al_member' });
  admin = await signUp(app, { username: 'al_admin' });
  await database.db.update(users).set({ isAdmin: true, role: 'admin' }).where(eq(users.id, admin.userId));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const SOME_ID = '00000000-0000-4000-8000-000000000001';

/** A declared route's URL with each path parameter filled (a well-formed id no row has). */
function urlOf(url: string): string {
  return url.replace(/:[A-Za-z]+/g, SOME_ID);
}

function declared(level: 'required' | 'admin') {
  return app.apiRoutes.filter((r) => r.rest?.auth === level);
}

/** Each tRPC procedure by its path, flat (`campaigns.list`). */
function procedures(): [string, AnyProcedure][] {
  return Object.entries((appRouter._def as unknown as { procedures: Record<string, AnyProcedure> }).procedures);
}

/** Whether a procedure is built on `base` (its middlewares start with all of base's). */
function builtOn(proc: AnyProcedure, base: { _def: { middlewares: unknown[] } }): boolean {
  const own = (proc._def as unknown as { middlewares: unknown[] }).middlewares;
  return base._def.middlewares.every((m, i) => own[i] === m);
}

describe('the REST door enforces auth', () => {
  it('answers 401 to a signed-out call of every route declared required or admin, before reading its input', async () => {
    const routes = [...declared('required'), ...declared('admin')];
    expect(declared('required').length).toBeGreaterThan(40);
    expect(declared('admin').length).toBeGreaterThanOrEqual(5);
    for (const r of routes) {
      // a body that no schema accepts: the answer is still the 401, so nothing was parsed first
      const res = await call(
        app,
        { ip: freshIp() },
        { method: r.method as 'GET', url: urlOf(r.url), ...(r.method === 'GET' ? {} : { payload: { nonsense: true } }) },
      );
      expect({ route: `${r.method} ${r.url}`, status: res.statusCode, body: res.json() }).toEqual({
        route: `${r.method} ${r.url}`,
        status: 401,
        body: { error: M.signInRequired },
      });
    }
  });

  it('answers 403 to a signed-in non-admin on every admin route, and lets an admin through', async () => {
    for (const r of declared('admin')) {
      const res = await call(
        app,
        { ...member, ip: freshIp() },
        { method: r.method as 'GET', url: urlOf(r.url), ...(r.method === 'GET' ? {} : { payload: {} }) },
      );
      expect({ route: `${r.method} ${r.url}`, status: res.statusCode, body: res.json() }).toEqual({
        route: `${r.method} ${r.url}`,
        status: 403,
        body: { error: M.accessDenied },
      });
    }
    expect((await call(app, admin, { method: 'GET', url: '/api/admin/tokens' })).statusCode).toBe(200);
  });

  it('lets a signed-in caller through to the route', async () => {
    expect((await call(app, member, { method: 'GET', url: '/api/auth/me' })).statusCode).toBe(200);
    expect((await call(app, member, { method: 'GET', url: '/api/favorites' })).statusCode).toBe(200);
  });
});

describe('the tRPC door enforces auth', () => {
  it('answers 401 to a signed-out call of every procedure built on authedProcedure, and 403 to a non-admin on adminProcedure', async () => {
    const authed = procedures().filter(([, p]) => builtOn(p, authedProcedure as never));
    const admins = authed.filter(([, p]) => builtOn(p, adminProcedure as never));
    expect(authed.length).toBeGreaterThan(40);
    // the admin console's procedures at least (the cron's and the payment problems' too)
    for (const path of ['admin.tokens', 'admin.storeToken', 'admin.users', 'admin.userHistory', 'admin.setAdmin'])
      expect(admins.map(([p]) => p)).toContain(path);
    for (const [path, p] of authed) {
      const kind = (p._def as unknown as { type: 'query' | 'mutation' }).type;
      const res = await trpc(app, { ip: freshIp() }, kind, path);
      expect({ path, status: res.status, message: res.error?.message }).toEqual({ path, status: 401, message: M.signInRequired });
    }
    for (const [path, p] of admins) {
      const kind = (p._def as unknown as { type: 'query' | 'mutation' }).type;
      const res = await trpc(app, { ...member, ip: freshIp() }, kind, path);
      expect({ path, status: res.status, message: res.error?.message }).toEqual({ path, status: 403, message: M.accessDenied });
    }
  });
});

describe('the services keep their own checks', () => {
  const signedOut: Actor = { user: null, session: null, ip: '127.0.0.1' };
  async function actorOf(who: { userId: string }): Promise<Actor> {
    const [user] = await database.db.select().from(users).where(eq(users.id, who.userId));
    return { user, session: { id: 's', userId: who.userId } as never, ip: '127.0.0.1' } as Actor;
  }

  it('refuses signed-out callers and non-admins when called past the doors', async () => {
    const { services } = app;
    const me = await actorOf(member);
    await expect(services.admin.listTokens(signedOut)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: M.signInRequired });
    await expect(services.admin.listTokens(me)).rejects.toMatchObject({ code: 'FORBIDDEN', message: M.accessDenied });
    await expect(services.admin.listUsers(me, { limit: 10 } as never)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(services.favorites.list(signedOut, { limit: 10 } as never)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: M.signInRequired });
    await expect(services.blocks.list(signedOut, { limit: 10 } as never)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(services.teams.mine(signedOut, { limit: 10 } as never)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await services.admin.listTokens(await actorOf(admin))).toEqual([]);
  });
});
