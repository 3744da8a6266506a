import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { M } from '../../../shared/messages';
import { ChangePasswordInput, ForgotPasswordInput, LoginInput, LoginOutput, NewPasswordSchema, RegisterInput, TokenSchema } from '../../../shared/schemas/auth';
import { MessageSchema } from '../../../shared/schemas/common';
import { UserSchema } from '../../../shared/schemas/user';
import type { Deps } from '../../deps';
import { unauthorized } from '../../lib/errors';
import { restRoute } from '../../http/rest';
import { clearSessionCookie, setSessionCookie } from '../../http/session-cookie';
import type { Services } from '../../services';

const TokenParams = z.object({ token: TokenSchema });

export function authRest(app: FastifyInstance, { auth }: Services, deps: Deps): void {
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/register',
    summary: 'Create an account (a verification email follows)',
    tag: 'auth',
    auth: 'optional',
    errors: { 409: 'The email or username is taken', 429: 'Too many registrations from this address or for this email (`Retry-After`)' },
    body: RegisterInput,
    response: MessageSchema,
    status: 201,
    handler: ({ body, actor }) => auth.register(body, actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/login',
    summary: 'Sign in: a bearer token and the session cookie',
    tag: 'auth',
    auth: 'optional',
    errors: { 401: 'Wrong email or password', 429: 'Too many failed attempts (`Retry-After`)' },
    body: LoginInput,
    response: LoginOutput,
    handler: async ({ body, actor }, _req, reply) => {
      const r = await auth.login(body, actor);
      setSessionCookie(reply, deps.config, r.token, r.expiresAt);
      return { token: r.token, user: r.user };
    },
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/auth/me',
    summary: 'The signed-in person',
    tag: 'auth',
    auth: 'required',
    errors: {},
    response: UserSchema,
    handler: ({ actor }) => {
      const me = auth.me(actor);
      if (!me) throw unauthorized(M.signInRequired);
      return me;
    },
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/logout',
    summary: 'Sign out: ends this session and clears the cookie',
    tag: 'auth',
    auth: 'optional',
    errors: {},
    response: MessageSchema,
    handler: async ({ actor }, _req, reply) => {
      const r = await auth.logout(actor);
      clearSessionCookie(reply, deps.config);
      return r;
    },
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/change-password',
    summary: 'Change the password: other sessions end, this one gets a new token',
    tag: 'auth',
    auth: 'required',
    errors: { 401: 'Wrong current password', 429: 'Too many attempts (`Retry-After`)' },
    body: ChangePasswordInput,
    response: z.object({ message: z.string(), token: z.string() }),
    handler: async ({ body, actor }, _req, reply) => {
      const r = await auth.changePassword(actor, body);
      setSessionCookie(reply, deps.config, r.token, r.expiresAt);
      return { message: r.message, token: r.token };
    },
  });
  restRoute(app, {
    method: 'GET',
    url: '/api/auth/verify-email/:token',
    summary: 'Verify an email address with the emailed token',
    tag: 'auth',
    auth: 'optional',
    errors: { 400: 'Invalid or expired token' },
    params: TokenParams,
    response: MessageSchema,
    handler: ({ params, actor }) => auth.verifyEmail({ token: params.token }, actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/resend-verification',
    summary: 'Send the verification email again',
    tag: 'auth',
    auth: 'required',
    errors: { 409: 'The address is already verified', 429: 'Too many emails (`Retry-After`)' },
    response: MessageSchema,
    handler: ({ actor }) => auth.resendVerification(actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/forgot-password',
    summary: 'Email a password-reset link (the same answer whether or not the account exists)',
    tag: 'auth',
    auth: 'optional',
    errors: { 429: 'Too many requests (`Retry-After`)' },
    body: ForgotPasswordInput,
    response: MessageSchema,
    handler: ({ body, actor }) => auth.forgotPassword(body, actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/reset-password/:token',
    summary: 'Set a new password with the emailed token',
    tag: 'auth',
    auth: 'optional',
    errors: { 400: 'Invalid or expired token', 429: 'Too many attempts (`Retry-After`)' },
    params: TokenParams,
    body: z.object({ password: NewPasswordSchema }),
    response: MessageSchema,
    handler: ({ params, body, actor }) => auth.resetPassword({ token: params.token, password: body.password }, actor),
  });
}
