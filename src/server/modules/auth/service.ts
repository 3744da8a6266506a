import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type { ChangePasswordInput, ForgotPasswordInput, LoginInput, RegisterInput, ResetPasswordInput, VerifyEmailInput } from '../../../shared/schemas/auth';
import type { UserDto } from '../../../shared/schemas/user';
import { createAfterAnswer } from '../../auth/after-answer';
import { createLoginThrottle, loginThrottleDefaults, type LoginThrottleOptions } from '../../auth/login-throttle';
import { consumeToken, issueToken, retireTokens, usedVerifyLinkOfVerified } from '../../auth/one-time-tokens';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../../auth/password';
import { createSession, invalidateSession, invalidateUserSessions } from '../../auth/session';
import { users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { badRequest, conflict, isUniqueViolation, unauthorized } from '../../lib/errors';
import { claimPreviewInvites } from '../previews/claim';
import { recordChange } from '../../lib/history';
import { mailTemplates } from '../../mail/templates';
import { toUserDto } from '../users/dto';

type Out<T extends z.ZodType> = z.output<T>;

export interface SessionGrant {
  token: string;
  expiresAt: Date;
}

/** Who may act: lib/access.ts (re-exported here for the modules that import them from auth). */
import { requireUser } from '../../lib/access';
export { requireAdmin, requireUser } from '../../lib/access';

export interface AuthServiceOptions {
  /** Overrides of the login throttle (tests pass a recording `sleep`, smaller budgets). */
  loginThrottle?: Partial<LoginThrottleOptions>;
}

export function createAuthService(deps: Deps, opts: AuthServiceOptions = {}) {
  const { db, limiter, mailer, config } = deps;
  const link = (path: string) => `${config.appUrl}${path}`;
  const loginThrottle = createLoginThrottle(db, { ...loginThrottleDefaults(config.rateLimitPerMinute), ...opts.loginThrottle });
  const afterAnswer = createAfterAnswer(deps.log);

  async function sendVerification(userId: string, email: string) {
    await retireTokens(db, 'verify_email', userId);
    const token = await issueToken(db, { purpose: 'verify_email', email, userId });
    await mailer.send(mailTemplates.verifyEmail(email, link(`/verify-email?token=${token}`)));
  }

  return {
    /**
     * Creates an account and emails a verification link. The answer is the same whether or not
     * the email is already registered (that person gets an email instead), so registration
     * does not reveal who has an account.
     */
    async register(input: Out<typeof RegisterInput>, actor: Actor): Promise<{ message: string }> {
      await limiter.hit(`register:ip:${actor.ip}`, `register:email:${input.email}`);
      if (input.username) {
        const taken = await db.select({ id: users.id }).from(users).where(eq(users.username, input.username)).limit(1);
        if (taken.length) throw conflict(M.usernameTaken);
      }
      const passwordHash = await hashPassword(input.password);
      let created: typeof users.$inferSelect | undefined;
      try {
        created = await db.transaction(async (tx) => {
          const [row] = await tx
            .insert(users)
            .values({ email: input.email, username: input.username ?? null, phone: input.phone ?? null, passwordHash })
            .onConflictDoNothing({ target: users.email })
            .returning();
          if (row) {
            await recordChange(tx, {
              modelName: 'User',
              action: 'create',
              key: row.id,
              fields: ['email', ...(row.username ? ['username'] : []), ...(row.phone ? ['phone'] : []), 'password'],
              actorId: row.id,
            });
          }
          return row;
        });
      } catch (err) {
        if (isUniqueViolation(err, 'users_username_key')) throw conflict(M.usernameTaken);
        throw err;
      }
      if (created) await sendVerification(created.id, created.email);
      else await mailer.send(mailTemplates.alreadyRegistered(input.email, link('/login'), link('/forgot')));
      return { message: M.registered };
    },

    /**
     * Failed logins are throttled per (account, address) and per address (429), and an account
     * guessed at from many addresses is slowed down, never locked (auth/login-throttle.ts).
     */
    async login(input: Out<typeof LoginInput>, actor: Actor): Promise<SessionGrant & { user: UserDto }> {
      const attempt = await loginThrottle.begin(input.email, actor.ip);
      const [user] = await db.select().from(users).where(eq(users.email, input.email)).limit(1);
      const ok = user ? await verifyPassword(user.passwordHash, input.password) : await verifyAgainstDummy(input.password);
      if (!user || !ok) throw unauthorized(M.invalidCredentials);
      await attempt.succeeded();
      const { token, session } = await createSession(db, user.id);
      return { token, expiresAt: session.expiresAt, user: toUserDto(user) };
    },

    me(actor: Actor): UserDto | null {
      return actor.user ? toUserDto(actor.user) : null;
    },

    async logout(actor: Actor): Promise<{ message: string }> {
      if (actor.session) await invalidateSession(db, actor.session.id);
      return { message: M.loggedOut };
    },

    /** Changes the password, ends every session of the person and opens a fresh one for this client. */
    async changePassword(actor: Actor, input: Out<typeof ChangePasswordInput>): Promise<SessionGrant & { message: string }> {
      const { user } = requireUser(actor);
      await limiter.hit(`change-password:user:${user.id}`);
      if (!(await verifyPassword(user.passwordHash, input.currentPassword))) throw badRequest(M.currentPasswordWrong);
      if (input.currentPassword === input.newPassword) throw badRequest(M.newPasswordSame);
      const passwordHash = await hashPassword(input.newPassword);
      const grant = await db.transaction(async (tx) => {
        await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, user.id));
        await recordChange(tx, { modelName: 'User', action: 'update', key: user.id, fields: ['password'], actorId: user.id });
        await invalidateUserSessions(tx, user.id);
        return createSession(tx, user.id);
      });
      await mailer.send(mailTemplates.passwordChanged(user.email, link('/forgot')));
      return { message: M.passwordChanged, token: grant.token, expiresAt: grant.session.expiresAt };
    },

    async verifyEmail(input: Out<typeof VerifyEmailInput>, actor: Actor): Promise<{ message: string }> {
      await limiter.hit(`verify:ip:${actor.ip}`);
      const ok = await db.transaction(async (tx) => {
        const t = await consumeToken(tx, 'verify_email', input.token);
        if (!t?.userId) return false;
        const [u] = await tx
          .update(users)
          .set({ emailVerifiedAt: new Date(), updatedAt: new Date() })
          // the address must still be the one the link was sent to
          .where(and(eq(users.id, t.userId), eq(users.email, t.email)))
          .returning({ id: users.id });
        if (!u) return false;
        await recordChange(tx, { modelName: 'User', action: 'update', key: u.id, fields: ['emailVerified'], actorId: u.id });
        // a guest of a preview circle invited at this address keeps their seat and feedback as this account (issue #30)
        await claimPreviewInvites(tx, u.id, t.email);
        return true;
      });
      if (!ok) {
        // a link used before, of an address that is verified: say so, not "invalid" (#33)
        if (await usedVerifyLinkOfVerified(db, input.token)) return { message: M.alreadyVerified };
        throw badRequest(M.invalidOrExpiredToken);
      }
      return { message: M.emailVerified };
    },

    async resendVerification(actor: Actor): Promise<{ message: string }> {
      const { user } = requireUser(actor);
      await limiter.hit(`resend-verification:user:${user.id}`);
      if (user.emailVerifiedAt) return { message: M.alreadyVerified };
      await sendVerification(user.id, user.email);
      return { message: M.verificationSent };
    },

    /**
     * Same answer, in the same time, for known and unknown emails: the request path does the
     * same work for both (the rate limit) and answers; looking the account up, issuing the
     * token and sending the email happen after the answer.
     */
    async forgotPassword(input: Out<typeof ForgotPasswordInput>, actor: Actor): Promise<{ message: string }> {
      await limiter.hit(`forgot:ip:${actor.ip}`, `forgot:email:${input.email}`);
      const email = input.email;
      afterAnswer.run('forgot-password', async () => {
        const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, email)).limit(1);
        if (!user) return;
        await retireTokens(db, 'reset_password', user.id);
        const token = await issueToken(db, { purpose: 'reset_password', email: user.email, userId: user.id });
        await mailer.send(mailTemplates.resetPassword(user.email, link(`/reset/${token}`)));
      });
      return { message: M.emailSentIfExists };
    },

    /** Resolves when the work queued after answers (forgot-password emails) has finished. */
    settle(): Promise<void> {
      return afterAnswer.settle();
    },

    /** Sets a new password from an emailed token; every session of the person ends. */
    async resetPassword(input: Out<typeof ResetPasswordInput>, actor: Actor): Promise<{ message: string }> {
      await limiter.hit(`reset:ip:${actor.ip}`);
      const passwordHash = await hashPassword(input.password);
      const ok = await db.transaction(async (tx) => {
        const t = await consumeToken(tx, 'reset_password', input.token);
        if (!t?.userId) return false;
        const [before] = await tx.select({ verified: users.emailVerifiedAt }).from(users).where(eq(users.id, t.userId));
        if (!before) return false;
        const now = new Date();
        // following the emailed link proves the address too
        await tx
          .update(users)
          .set({ passwordHash, updatedAt: now, ...(before.verified ? {} : { emailVerifiedAt: now }) })
          .where(eq(users.id, t.userId));
        await recordChange(tx, {
          modelName: 'User',
          action: 'update',
          key: t.userId,
          fields: before.verified ? ['password'] : ['password', 'emailVerified'],
          actorId: t.userId,
        });
        await invalidateUserSessions(tx, t.userId);
        return true;
      });
      if (!ok) throw badRequest(M.invalidOrExpiredToken);
      return { message: M.passwordReset };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
