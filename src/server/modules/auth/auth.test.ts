import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { changeHistory, emailOutbox, oneTimeTokens, sessions, users } from '../../db/schema';
import {
  buildTestApp,
  call,
  freshIp,
  lastEmail,
  login,
  openTestDatabase,
  ORIGIN,
  PASSWORD,
  register,
  signUp,
  tokenFromEmail,
  trpc,
  uniqueEmail,
} from '../../../../test/helpers';

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

const userCount = async () => (await database.db.select({ n: count() }).from(users))[0].n;
const me = (who: Parameters<typeof call>[1]) => call(app, who, { method: 'GET', url: '/api/auth/me' });
/** Asks for a reset link and waits until the work done after the answer (the email) has finished. */
const forgot = async (email: string) => {
  const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } });
  await app.services.auth.settle();
  return res;
};

describe('POST /api/auth/register', () => {
  it('creates the account, stores only an argon2id hash and emails a verification link', async () => {
    const email = uniqueEmail('Reg');
    const res = await call(
      app,
      { ip: freshIp() },
      {
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: `  ${email.toUpperCase()} `, password: PASSWORD, username: 'New_Person', phone: '+44 20 7946 0958' },
      },
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ message: 'Account created. Please check your email to verify your address.' });
    const [row] = await database.db.select().from(users).where(eq(users.email, email.toLowerCase()));
    expect(row.username).toBe('new_person');
    expect(row.phone).toBe('+44 20 7946 0958');
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.passwordHash).not.toContain(PASSWORD);
    expect(row.emailVerifiedAt).toBeNull();
    const mail = await lastEmail(database, email.toLowerCase(), 'verify_email');
    expect(mail.text).toMatch(new RegExp(`^[\\s\\S]*${ORIGIN}/verify-email\\?token=[a-z0-9]{32}`));
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, row.id));
    expect(history).toEqual([expect.objectContaining({ modelName: 'User', action: 'create', actorId: row.id })]);
    expect(history[0].fields).toContain('email');
    // the token is stored only as a hash
    const token = await tokenFromEmail(database, email.toLowerCase(), 'verify_email');
    const tokens = await database.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.userId, row.id));
    expect(tokens).toHaveLength(1);
    expect(tokens[0].tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokens[0].tokenHash).not.toBe(token);
  });

  it.each([
    [{ password: PASSWORD }, 'Email is required'],
    [{ email: '', password: PASSWORD }, 'Email is required'],
    [{ email: 'not-an-email', password: PASSWORD }, 'Enter a valid email address'],
    [{ email: 'x@example.com' }, 'Password is required'],
    [{ email: 'x@example.com', password: 'short' }, 'Password must be at least 8 characters'],
    [{ email: 'x@example.com', password: 'x'.repeat(257) }, 'Password must be at most 256 characters'],
    [{ email: 'x@example.com', password: PASSWORD, username: 'no spaces' }, M.usernameInvalid],
    [{ email: 'x@example.com', password: PASSWORD, username: 'ab' }, M.usernameInvalid],
    [{ email: 'x@example.com', password: PASSWORD, phone: 'call me' }, 'Enter a valid phone number'],
  ])('refuses %j with a clear 400 and stores nothing', async (payload, message) => {
    const before = await userCount();
    const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/register', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
    expect(await userCount()).toBe(before);
  });

  it('answers an already registered email exactly like a new one, and tells the owner by email', async () => {
    const email = await register(app);
    const before = await userCount();
    const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/register', payload: { email, password: 'another password' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ message: M.registered });
    expect(await userCount()).toBe(before);
    expect((await lastEmail(database, email))?.kind).toBe('already_registered');
    // the original password still works
    await expect(login(app, email)).resolves.toBeTruthy();
  });

  it('refuses a username that is taken (case-insensitively) with 409', async () => {
    await register(app, { username: 'taken_name' });
    const before = await userCount();
    const res = await call(
      app,
      { ip: freshIp() },
      {
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: uniqueEmail(), password: PASSWORD, username: 'Taken_Name' },
      },
    );
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: M.usernameTaken });
    expect(await userCount()).toBe(before);
  });
});

describe('POST /api/auth/login and GET /api/auth/me', () => {
  it('answers {token, user}, sets an httpOnly SameSite=Lax cookie, and never shows the password hash', async () => {
    const email = await register(app, { username: 'login_person' });
    const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.token).toMatch(/^[a-z0-9]+\.[a-z0-9]+$/);
    expect(body.user).toMatchObject({ email, username: 'login_person', role: 'user', isAdmin: false, emailVerified: false, tags: [] });
    expect(JSON.stringify(body)).not.toMatch(/argon2|passwordHash|password_hash/);
    const cookie = res.cookies.find((c) => c.name === 'session')!;
    expect(cookie.value).toBe(body.token);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // only a hash of the token's secret is stored
    const [stored] = await database.db
      .select()
      .from(sessions)
      .where(eq(sessions.id, body.token.split('.')[0]));
    expect(stored.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.token).not.toContain(stored.secretHash);

    const viaBearer = await me({ token: body.token, ip: freshIp() });
    expect(viaBearer.statusCode).toBe(200);
    expect(viaBearer.json()).toMatchObject({ _id: body.user._id, email });
    const viaCookie = await me({ cookie: `session=${body.token}`, ip: freshIp() });
    expect(viaCookie.json()._id).toBe(body.user._id);
  });

  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const email = await register(app);
    const wrong = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login', payload: { email, password: 'wrong password' } });
    const unknown = await call(
      app,
      { ip: freshIp() },
      {
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: uniqueEmail('nobody'), password: 'wrong password' },
      },
    );
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Invalid email or password' });
    expect(unknown.json()).toEqual(wrong.json());
    expect(wrong.cookies).toHaveLength(0);
  });

  it('refuses a login without email or password with 400', async () => {
    const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login', payload: { email: 'a@example.com' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Password is required' });
    const noBody = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login' });
    expect(noBody.statusCode).toBe(400);
  });

  it('answers 401 to /me when signed out or with a forged, malformed or expired token', async () => {
    expect((await me(null)).statusCode).toBe(401);
    expect((await me(null)).json()).toEqual({ error: M.signInRequired });
    const { token, userId } = await signUp(app);
    const [id] = token.split('.');
    expect((await me({ token: `${id}.forgedsecretforgedsecretforgedsecr`, ip: freshIp() })).statusCode).toBe(401);
    expect((await me({ token: 'garbage', ip: freshIp() })).statusCode).toBe(401);
    await database.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.userId, userId));
    const expired = await me({ cookie: `session=${token}`, ip: freshIp() });
    expect(expired.statusCode).toBe(401);
    // the dead cookie is cleared, and the expired session row is gone
    expect(expired.cookies.find((c) => c.name === 'session')?.maxAge).toBe(0);
    expect(await database.db.select().from(sessions).where(eq(sessions.id, id))).toHaveLength(0);
  });

  it('slides an idle session forward when it is used', async () => {
    const { token } = await signUp(app);
    const [id] = token.split('.');
    const soon = new Date(Date.now() + 60_000);
    await database.db
      .update(sessions)
      .set({ expiresAt: soon, lastUsedAt: new Date(Date.now() - 2 * 3600_000) })
      .where(eq(sessions.id, id));
    const res = await me({ cookie: `session=${token}`, ip: freshIp() });
    expect(res.statusCode).toBe(200);
    const [s] = await database.db.select().from(sessions).where(eq(sessions.id, id));
    expect(s.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600_000);
    expect(res.cookies.find((c) => c.name === 'session')?.value).toBe(token);
  });
});

describe('POST /api/auth/logout', () => {
  it('ends the session for the bearer token and for the cookie', async () => {
    const email = await register(app);
    const a = await login(app, email);
    const b = await login(app, email);
    const out = await call(app, { token: a.token, ip: a.ip }, { method: 'POST', url: '/api/auth/logout' });
    expect(out.statusCode).toBe(200);
    expect(out.cookies.find((c) => c.name === 'session')?.maxAge).toBe(0);
    expect((await me({ token: a.token, ip: a.ip })).statusCode).toBe(401);
    // another device stays signed in
    expect((await me({ token: b.token, ip: b.ip })).statusCode).toBe(200);
    const viaCookie = await call(app, { cookie: b.cookie, ip: b.ip }, { method: 'POST', url: '/api/auth/logout' });
    expect(viaCookie.statusCode).toBe(200);
    expect((await me({ cookie: b.cookie, ip: b.ip })).statusCode).toBe(401);
  });

  it('is harmless when signed out', async () => {
    const res = await call(app, null, { method: 'POST', url: '/api/auth/logout' });
    expect(res.statusCode).toBe(200);
  });
});

describe('POST /api/auth/change-password', () => {
  it('changes the password, ends every session and gives this client a new one', async () => {
    const email = await register(app);
    const a = await login(app, email);
    const other = await login(app, email);
    const res = await call(
      app,
      { token: a.token, ip: a.ip },
      {
        method: 'POST',
        url: '/api/auth/change-password',
        payload: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
      },
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.message).toBe('Password changed.');
    expect((await me({ token: a.token, ip: a.ip })).statusCode).toBe(401);
    expect((await me({ token: other.token, ip: other.ip })).statusCode).toBe(401);
    expect((await me({ token: body.token, ip: a.ip })).statusCode).toBe(200);
    await expect(login(app, email, PASSWORD)).rejects.toThrow(/401/);
    await expect(login(app, email, 'a brand new password')).resolves.toBeTruthy();
    expect((await lastEmail(database, email))?.kind).toBe('password_changed');
    const [u] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email));
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, u.id));
    expect(history.map((h) => h.fields)).toContainEqual(['password']);
  });

  it('refuses a wrong current password, a short new one and a signed-out caller, changing nothing', async () => {
    const { email, token, ip } = await signUp(app);
    const wrong = await call(
      app,
      { token, ip },
      {
        method: 'POST',
        url: '/api/auth/change-password',
        payload: { currentPassword: 'not my password', newPassword: 'a brand new password' },
      },
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: 'Current password is incorrect' });
    const short = await call(
      app,
      { token, ip },
      {
        method: 'POST',
        url: '/api/auth/change-password',
        payload: { currentPassword: PASSWORD, newPassword: 'short' },
      },
    );
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({ error: 'Password must be at least 8 characters' });
    const signedOut = await call(app, null, {
      method: 'POST',
      url: '/api/auth/change-password',
      payload: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
    });
    expect(signedOut.statusCode).toBe(401);
    expect((await me({ token, ip })).statusCode).toBe(200);
    await expect(login(app, email, PASSWORD)).resolves.toBeTruthy();
  });
});

describe('GET /api/auth/verify-email/{token}', () => {
  it('verifies the email once; the same link then says the address is already verified', async () => {
    const email = await register(app);
    const token = await tokenFromEmail(database, email, 'verify_email');
    const ok = await call(app, null, { method: 'GET', url: `/api/auth/verify-email/${token}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: 'Email verified!' });
    const c = await login(app, email);
    expect((await me(c)).json().emailVerified).toBe(true);
    const again = await call(app, null, { method: 'GET', url: `/api/auth/verify-email/${token}` });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ message: M.alreadyVerified });
  });

  it('refuses an expired or unknown token', async () => {
    const email = await register(app);
    const token = await tokenFromEmail(database, email, 'verify_email');
    await database.db
      .update(oneTimeTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oneTimeTokens.email, email));
    const expired = await call(app, null, { method: 'GET', url: `/api/auth/verify-email/${token}` });
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({ error: 'Invalid or expired token' });
    const unknown = await call(app, null, { method: 'GET', url: '/api/auth/verify-email/abcdefghijklmnop' });
    expect(unknown.statusCode).toBe(400);
    const [u] = await database.db.select().from(users).where(eq(users.email, email));
    expect(u.emailVerifiedAt).toBeNull();
  });

  it('sends a new link on request, which replaces the old one', async () => {
    const { email, token: session, ip } = await signUp(app);
    const first = await tokenFromEmail(database, email, 'verify_email');
    const res = await call(app, { token: session, ip }, { method: 'POST', url: '/api/auth/resend-verification' });
    expect(res.json()).toEqual({ message: 'Verification email sent.' });
    const second = await tokenFromEmail(database, email, 'verify_email');
    expect(second).not.toBe(first);
    expect((await call(app, null, { method: 'GET', url: `/api/auth/verify-email/${first}` })).statusCode).toBe(400);
    expect((await call(app, null, { method: 'GET', url: `/api/auth/verify-email/${second}` })).statusCode).toBe(200);
    expect((await call(app, null, { method: 'POST', url: '/api/auth/resend-verification' })).statusCode).toBe(401);
  });
});

describe('forgot and reset password', () => {
  it('answers the same for known and unknown emails, and only a real account gets a link', async () => {
    const email = await register(app);
    const known = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } });
    const unknownEmail = uniqueEmail('ghost');
    const unknown = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email: unknownEmail } });
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.json()).toEqual({ message: 'Email sent if account exists.' });
    expect(unknown.json()).toEqual(known.json());
    // the email is sent after the answer (src/server/auth/forgot-password.test.ts)
    await app.services.auth.settle();
    expect((await lastEmail(database, email))?.kind).toBe('reset_password');
    expect(await lastEmail(database, unknownEmail)).toBeUndefined();
  });

  it('refuses a malformed email with 400', async () => {
    const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email: 'nope' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Enter a valid email address' });
  });

  it('resets the password once, ends every session, and the link cannot be reused', async () => {
    const { email, token: session, ip } = await signUp(app);
    await forgot(email);
    const token = await tokenFromEmail(database, email, 'reset_password');
    const short = await call(app, { ip: freshIp() }, { method: 'POST', url: `/api/auth/reset-password/${token}`, payload: { password: 'short' } });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({ error: 'Password must be at least 8 characters' });
    const ok = await call(
      app,
      { ip: freshIp() },
      {
        method: 'POST',
        url: `/api/auth/reset-password/${token}`,
        payload: { password: 'a fresh password' },
      },
    );
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: 'Password reset' });
    expect((await me({ token: session, ip })).statusCode).toBe(401);
    await expect(login(app, email, PASSWORD)).rejects.toThrow(/401/);
    const c = await login(app, email, 'a fresh password');
    // following the emailed link proved the address
    expect((await me(c)).json().emailVerified).toBe(true);
    const reused = await call(
      app,
      { ip: freshIp() },
      {
        method: 'POST',
        url: `/api/auth/reset-password/${token}`,
        payload: { password: 'yet another password' },
      },
    );
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toEqual({ error: 'Invalid or expired token' });
  });

  it('refuses an expired reset link and a newer link retires the older one', async () => {
    const email = await register(app);
    await forgot(email);
    const first = await tokenFromEmail(database, email, 'reset_password');
    await forgot(email);
    const second = await tokenFromEmail(database, email, 'reset_password');
    const old = await call(app, { ip: freshIp() }, { method: 'POST', url: `/api/auth/reset-password/${first}`, payload: { password: 'a fresh password' } });
    expect(old.statusCode).toBe(400);
    await database.db
      .update(oneTimeTokens)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(oneTimeTokens.email, email));
    const expired = await call(
      app,
      { ip: freshIp() },
      { method: 'POST', url: `/api/auth/reset-password/${second}`, payload: { password: 'a fresh password' } },
    );
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({ error: 'Invalid or expired token' });
    await expect(login(app, email, PASSWORD)).resolves.toBeTruthy();
  });
});

describe('rate limits', () => {
  // the login throttle in detail: src/server/auth/login-throttle.test.ts
  it('limits failed logins of one account from one address with a clear 429', async () => {
    const ip = freshIp();
    const email = await register(app);
    for (let i = 0; i < 10; i++) {
      const r = await call(app, { ip }, { method: 'POST', url: '/api/auth/login', payload: { email, password: 'wrong password' } });
      expect(r.statusCode).toBe(401);
    }
    const blocked = await call(app, { ip }, { method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ error: 'Too many attempts. Please wait a minute and try again.' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('does not lock an account out when the failures come from other addresses', async () => {
    const email = await register(app);
    for (let i = 0; i < 10; i++) {
      await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login', payload: { email, password: 'wrong password' } });
    }
    const owner = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
    expect(owner.statusCode).toBe(200);
  });

  it('limits password reset requests and reset attempts', async () => {
    const email = await register(app);
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      expect((await call(app, { ip }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } })).statusCode).toBe(200);
    }
    const blocked = await call(app, { ip }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } });
    expect(blocked.statusCode).toBe(429);
    const resetIp = freshIp();
    for (let i = 0; i < 10; i++) {
      await call(app, { ip: resetIp }, { method: 'POST', url: `/api/auth/reset-password/guess${i}aaaaaaaa`, payload: { password: 'a fresh password' } });
    }
    const resetBlocked = await call(
      app,
      { ip: resetIp },
      {
        method: 'POST',
        url: '/api/auth/reset-password/guessaaaaaaaaaa',
        payload: { password: 'a fresh password' },
      },
    );
    expect(resetBlocked.statusCode).toBe(429);
  });

  it('limits registrations per address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      await call(app, { ip }, { method: 'POST', url: '/api/auth/register', payload: { email: uniqueEmail(), password: PASSWORD } });
    }
    const before = await userCount();
    const blocked = await call(app, { ip }, { method: 'POST', url: '/api/auth/register', payload: { email: uniqueEmail(), password: PASSWORD } });
    expect(blocked.statusCode).toBe(429);
    expect(await userCount()).toBe(before);
  });
});

describe('cross-site request protection', () => {
  it('refuses a cookie-authenticated write from another origin or without an origin', async () => {
    const email = await register(app);
    const c = await login(app, email);
    const evil = await app.inject({
      method: 'POST',
      url: '/api/auth/change-password',
      headers: { cookie: c.cookie, origin: 'https://evil.example' },
      payload: { currentPassword: PASSWORD, newPassword: 'attacker password' },
    });
    expect(evil.statusCode).toBe(403);
    expect(evil.json()).toEqual({ error: 'Cross-site request refused.' });
    const noOrigin = await app.inject({
      method: 'POST',
      url: '/api/auth/change-password',
      headers: { cookie: c.cookie },
      payload: { currentPassword: PASSWORD, newPassword: 'attacker password' },
    });
    expect(noOrigin.statusCode).toBe(403);
    const crossSite = await app.inject({
      method: 'POST',
      url: '/trpc/auth.logout',
      headers: { cookie: c.cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
    // nothing changed: the old password still works and the session lives
    expect((await me(c)).statusCode).toBe(200);
    await expect(login(app, email, PASSWORD)).resolves.toBeTruthy();
  });

  it('accepts the same write from the app itself, and bearer clients need no origin', async () => {
    const email = await register(app);
    const c = await login(app, email);
    const sameOrigin = await app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie: c.cookie, origin: ORIGIN },
    });
    expect(sameOrigin.statusCode).toBe(200);
    const d = await login(app, email);
    const bearer = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${d.token}` } });
    expect(bearer.statusCode).toBe(200);
  });

  it('refuses a login posted from another site', async () => {
    const email = await register(app);
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { origin: 'https://evil.example' },
      payload: { email, password: PASSWORD },
    });
    expect(res.statusCode).toBe(403);
    expect(res.cookies).toHaveLength(0);
  });
});

describe('the tRPC door', () => {
  it('registers, signs in with the cookie only, reads me, and signs out', async () => {
    const email = uniqueEmail('trpc');
    const reg = await trpc(app, { ip: freshIp() }, 'mutation', 'auth.register', { email, password: PASSWORD });
    expect(reg.data).toEqual({ message: M.registered });
    const bad = await trpc(app, { ip: freshIp() }, 'mutation', 'auth.register', { email: 'nope', password: PASSWORD });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toBe('Enter a valid email address');

    const ip = freshIp();
    const signIn = await trpc(app, { ip }, 'mutation', 'auth.login', { email, password: PASSWORD });
    expect(signIn.status).toBe(200);
    expect(signIn.data.user.email).toBe(email);
    expect(signIn.data.token).toBeUndefined();
    const cookie = `session=${signIn.cookies.find((c) => c.name === 'session')!.value}`;
    const who = { cookie, ip };
    expect((await trpc(app, who, 'query', 'auth.me')).data.email).toBe(email);
    expect((await trpc(app, { ip }, 'query', 'auth.me')).data).toBeNull();

    const wrong = await trpc(app, { ip: freshIp() }, 'mutation', 'auth.login', { email, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(wrong.error?.message).toBe('Invalid email or password');

    await trpc(app, who, 'mutation', 'auth.logout');
    expect((await trpc(app, who, 'query', 'auth.me')).data).toBeNull();
  });

  it('verifies an email, resets and changes a password with the same rules as REST', async () => {
    const email = await register(app);
    const verifyToken = await tokenFromEmail(database, email, 'verify_email');
    expect((await trpc(app, { ip: freshIp() }, 'mutation', 'auth.verifyEmail', { token: verifyToken })).data).toEqual({ message: 'Email verified!' });
    const reused = await trpc(app, { ip: freshIp() }, 'mutation', 'auth.verifyEmail', { token: verifyToken });
    // a link used before, of a verified address, says so on this door too
    expect(reused.status).toBe(200);
    expect(reused.data).toEqual({ message: M.alreadyVerified });

    expect((await trpc(app, { ip: freshIp() }, 'mutation', 'auth.forgotPassword', { email })).data).toEqual({ message: M.emailSentIfExists });
    await app.services.auth.settle();
    const resetToken = await tokenFromEmail(database, email, 'reset_password');
    expect((await trpc(app, { ip: freshIp() }, 'mutation', 'auth.resetPassword', { token: resetToken, password: 'reset via trpc' })).data).toEqual({
      message: 'Password reset',
    });

    const ip = freshIp();
    const signIn = await trpc(app, { ip }, 'mutation', 'auth.login', { email, password: 'reset via trpc' });
    const cookie = `session=${signIn.cookies.find((c) => c.name === 'session')!.value}`;
    const signedOut = await trpc(app, { ip }, 'mutation', 'auth.changePassword', { currentPassword: 'reset via trpc', newPassword: 'changed via trpc' });
    expect(signedOut.status).toBe(401);
    const wrongCurrent = await trpc(app, { cookie, ip }, 'mutation', 'auth.changePassword', {
      currentPassword: 'not it at all',
      newPassword: 'changed via trpc',
    });
    expect(wrongCurrent.status).toBe(400);
    expect(wrongCurrent.error?.message).toBe('Current password is incorrect');
    const changed = await trpc(app, { cookie, ip }, 'mutation', 'auth.changePassword', {
      currentPassword: 'reset via trpc',
      newPassword: 'changed via trpc',
    });
    expect(changed.data).toEqual({ message: 'Password changed.' });
    const newCookie = `session=${changed.cookies.find((c) => c.name === 'session')!.value}`;
    expect(newCookie).not.toBe(cookie);
    expect((await trpc(app, { cookie, ip }, 'query', 'auth.me')).data).toBeNull();
    expect((await trpc(app, { cookie: newCookie, ip }, 'query', 'auth.me')).data.email).toBe(email);
  });

  it('rate-limits tRPC logins like REST ones', async () => {
    const ip = freshIp();
    const email = uniqueEmail();
    for (let i = 0; i < 10; i++) await trpc(app, { ip }, 'mutation', 'auth.login', { email, password: 'wrong password' });
    const blocked = await trpc(app, { ip }, 'mutation', 'auth.login', { email, password: 'wrong password' });
    expect(blocked.status).toBe(429);
    expect(blocked.error?.message).toBe(M.tooManyRequests);
  });
});

describe('sessions across a restart', () => {
  it('keeps a session valid when the server restarts on the same database', async () => {
    const email = await register(app);
    const c = await login(app, email);
    const second = await database.reopen();
    const restarted = await buildTestApp(second);
    try {
      const res = await restarted.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${c.token}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json().email).toBe(email);
    } finally {
      await restarted.close();
      await second.close();
    }
  });
});

describe('the outbox', () => {
  it('records every message with its kind', async () => {
    const email = await register(app);
    const rows = await database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(rows).toEqual([expect.objectContaining({ kind: 'verify_email', status: 'outbox', subject: 'Verify your email for Kindling' })]);
  });
});
