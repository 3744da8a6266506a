import { eq, like } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { rateLimits } from '../db/schema';
import type { Actor } from '../deps';
import { createAuthService } from '../modules/auth/service';
import { accountDelayMs, addressBucket, createLoginThrottle, loginThrottleDefaults } from './login-throttle';
import { buildTestApp, call, freshIp, openTestDatabase, PASSWORD, register, trpc, uniqueEmail } from '../../../test/helpers';

// RATE_LIMIT_PER_MINUTE is 10 in tests: 10 failures a pair, 30 an address, an account slowed after 10.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const restLogin = (ip: string, email: string, password: string) => call(app, { ip }, { method: 'POST', url: '/api/auth/login', payload: { email, password } });
const anonymous = (ip: string): Actor => ({ user: null, session: null, ip });

/** The same service both doors call, with a sleep that records instead of waiting. */
function recordingAuth() {
  const slept: number[] = [];
  const auth = createAuthService(app.deps, {
    loginThrottle: {
      sleep: async (ms) => {
        slept.push(ms);
      },
    },
  });
  return { auth, slept };
}

describe('login throttling', () => {
  it('ten wrong passwords from other addresses do not stop the owner signing in, on either door', async () => {
    const email = await register(app);
    for (let i = 0; i < 10; i++) {
      const r = await restLogin(freshIp(), email, 'wrong password');
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual({ error: M.invalidCredentials });
    }
    const owner = freshIp();
    const rest = await restLogin(owner, email, PASSWORD);
    expect(rest.statusCode).toBe(200);
    expect(rest.json().user.email).toBe(email);
    const viaTrpc = await trpc(app, { ip: freshIp() }, 'mutation', 'auth.login', { email, password: PASSWORD });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.data.user.email).toBe(email);
  });

  it('answers 429 with Retry-After to one address guessing one account; the owner elsewhere still signs in', async () => {
    const email = await register(app);
    const attacker = freshIp();
    for (let i = 0; i < 10; i++) expect((await restLogin(attacker, email, `guess number ${i}`)).statusCode).toBe(401);
    // over the pair's budget: refused before the password is even checked, right or wrong
    for (const password of ['guess number 10', PASSWORD]) {
      const blocked = await restLogin(attacker, email, password);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toEqual({ error: M.tooManyRequests });
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    const viaTrpc = await trpc(app, { ip: attacker }, 'mutation', 'auth.login', { email, password: PASSWORD });
    expect(viaTrpc.status).toBe(429);
    expect(viaTrpc.error?.message).toBe(M.tooManyRequests);
    expect((await restLogin(freshIp(), email, PASSWORD)).statusCode).toBe(200);
  });

  it('answers 429 to one address trying many accounts once it has 30 failures', async () => {
    const ip = freshIp();
    for (let i = 0; i < 30; i++) expect((await restLogin(ip, uniqueEmail('spray'), 'wrong password')).statusCode).toBe(401);
    const email = await register(app);
    const blocked = await restLogin(ip, email, PASSWORD);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const viaTrpc = await trpc(app, { ip }, 'mutation', 'auth.login', { email: uniqueEmail(), password: 'wrong password' });
    expect(viaTrpc.status).toBe(429);
    // another address is not affected
    expect((await restLogin(freshIp(), email, PASSWORD)).statusCode).toBe(200);
  });

  it("counts only failures: a success clears the pair's failures and does not count against the address", async () => {
    const { auth } = recordingAuth();
    const email = await register(app);
    const ip = freshIp();
    const pairKey = `login-fail:pair:${ip}:${email}`;
    const counter = async (key: string) => (await database.db.select().from(rateLimits).where(eq(rateLimits.key, key)))[0]?.count ?? 0;

    for (let i = 0; i < 9; i++) await expect(auth.login({ email, password: 'wrong password' }, anonymous(ip))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await counter(pairKey)).toBe(9);
    expect(await counter(`login-fail:ip:${ip}`)).toBe(9);
    await expect(auth.login({ email, password: PASSWORD }, anonymous(ip))).resolves.toMatchObject({ user: { email } });
    expect(await counter(pairKey)).toBe(0);
    expect(await counter(`login-fail:ip:${ip}`)).toBe(9);
    expect(await counter(`login-fail:account:${email}`)).toBe(9);

    // the pair starts again from zero: ten more failures before a 429
    for (let i = 0; i < 10; i++) await expect(auth.login({ email, password: 'wrong password' }, anonymous(ip))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(auth.login({ email, password: PASSWORD }, anonymous(ip))).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  });

  it('slows down an account guessed at from many addresses (a recorded, bounded delay) without locking it', async () => {
    const { auth, slept } = recordingAuth();
    const email = await register(app);
    for (let i = 0; i < 10; i++)
      await expect(auth.login({ email, password: 'wrong password' }, anonymous(freshIp()))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // ten failures: the budget, no delay yet
    expect(slept).toEqual([]);
    for (let i = 0; i < 6; i++)
      await expect(auth.login({ email, password: 'wrong password' }, anonymous(freshIp()))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // the 11th failure is counted; from then on each attempt waits longer, up to 2 s
    expect(slept).toEqual([250, 500, 1000, 2000, 2000]);
    // the owner, from a fresh address with the right password, waits the same bounded delay and signs in
    const grant = await auth.login({ email, password: PASSWORD }, anonymous(freshIp()));
    expect(grant.user.email).toBe(email);
    expect(slept.at(-1)).toBe(2000);
    expect(Math.max(...slept)).toBeLessThanOrEqual(2000);
  });

  it('slows an unknown email exactly like a known one, so the delay does not tell which accounts exist', async () => {
    const known = recordingAuth();
    const unknown = recordingAuth();
    const email = await register(app);
    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 12; i++) {
      await expect(known.auth.login({ email, password: 'wrong password' }, anonymous(freshIp()))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      await expect(unknown.auth.login({ email: ghost, password: 'wrong password' }, anonymous(freshIp()))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    }
    expect(known.slept).toEqual([250]);
    expect(unknown.slept).toEqual(known.slept);
  });

  it('is off when RATE_LIMIT_PER_MINUTE is 0', async () => {
    const slept: number[] = [];
    const throttle = createLoginThrottle(database.db, { ...loginThrottleDefaults(0), sleep: async (ms) => void slept.push(ms) });
    const ip = freshIp();
    for (let i = 0; i < 40; i++) await throttle.begin('off@example.com', ip);
    expect(slept).toEqual([]);
    expect(
      await database.db
        .select()
        .from(rateLimits)
        .where(like(rateLimits.key, `login-fail:%${ip}%`)),
    ).toEqual([]);
  });

  it('counts an IPv6 address as its /64, an IPv4 one (mapped or not) as itself', async () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('not an address')).toBe('not an address');

    // guesses from addresses of one /64 share one budget
    const { auth } = recordingAuth();
    const email = await register(app);
    for (let i = 1; i <= 10; i++) {
      await expect(auth.login({ email, password: 'wrong password' }, anonymous(`2001:db8:77:1::${i.toString(16)}`))).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
    }
    await expect(auth.login({ email, password: PASSWORD }, anonymous('2001:db8:77:1::ff'))).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    await expect(auth.login({ email, password: PASSWORD }, anonymous('2001:db8:77:2::1'))).resolves.toMatchObject({ user: { email } });
  });

  it('computes the account delay: none up to the budget, then doubling, capped', () => {
    const o = loginThrottleDefaults(10);
    expect([0, 5, 10, 11, 12, 13, 14, 15, 100, 10_000].map((f) => accountDelayMs(f, o))).toEqual([0, 0, 0, 250, 500, 1000, 2000, 2000, 2000, 2000]);
  });
});
