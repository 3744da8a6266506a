import type { FastifyReply } from 'fastify';
import { SESSION_COOKIE } from '../../shared/constants';
import type { Config } from '../config';

/** The browser's copy of the session token: httpOnly, SameSite=Lax, Secure in production. */
export function setSessionCookie(reply: FastifyReply, config: Config, token: string, expiresAt: Date): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.cookieSecure,
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.setCookie(SESSION_COOKIE, '', { path: '/', httpOnly: true, sameSite: 'lax', secure: config.cookieSecure, maxAge: 0 });
}
