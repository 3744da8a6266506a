import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { M } from '../../../shared/messages';
import {
  ChangePasswordInput,
  ForgotPasswordInput,
  LoginInput,
  LoginOutput,
  NewPasswordSchema,
  RegisterInput,
  TokenSchema,
} from '../../../shared/schemas/auth';
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
    body: RegisterInput,
    response: MessageSchema,
    status: 201,
    handler: ({ body, actor }) => auth.register(body, actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/login',
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
    params: TokenParams,
    response: MessageSchema,
    handler: ({ params, actor }) => auth.verifyEmail({ token: params.token }, actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/resend-verification',
    response: MessageSchema,
    handler: ({ actor }) => auth.resendVerification(actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/forgot-password',
    body: ForgotPasswordInput,
    response: MessageSchema,
    handler: ({ body, actor }) => auth.forgotPassword(body, actor),
  });
  restRoute(app, {
    method: 'POST',
    url: '/api/auth/reset-password/:token',
    params: TokenParams,
    body: z.object({ password: NewPasswordSchema }),
    response: MessageSchema,
    handler: ({ params, body, actor }) => auth.resetPassword({ token: params.token, password: body.password }, actor),
  });
}
