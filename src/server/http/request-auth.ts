import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../shared/constants';
import { M } from '../../shared/messages';
import { validateSessionToken } from '../auth/session';
import type { Actor, Deps } from '../deps';
import { forbidden } from '../lib/errors';
import { previewPassesOf } from '../modules/previews/tokens';
import { isApiUrl } from './security';
import { clearSessionCookie, setSessionCookie } from './session-cookie';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h?.startsWith('Bearer ')) return null;
  const t = h.slice(7).trim();
  return t || null;
}

/** True when an Origin header names this app (its configured URL or the Host it was reached at). */
export function isOwnOrigin(origin: string, req: FastifyRequest, appUrl: string): boolean {
  try {
    const o = new URL(origin);
    if (o.origin === new URL(appUrl).origin) return true;
    return o.host === req.host && o.protocol === `${req.protocol}:`;
  } catch {
    return false;
  }
}

/**
 * Reads the session from the bearer token or the cookie and puts the caller on `request.actor`.
 * Writes from another site are refused, and a write that rides on the cookie alone must show it
 * comes from the app's own pages (Origin or Sec-Fetch-Site), so a cookie never authorises a
 * cross-site request.
 */
export function registerRequestAuth(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('actor', null as unknown as Actor);
  app.addHook('onRequest', async (req, reply) => {
    // preview tokens (issue #30) ride on every request: a page, its calls and its images
    req.actor = { user: null, session: null, ip: req.ip, previews: previewPassesOf(req) };
    if (!isApiUrl(req.url)) return;

    const unsafe = !SAFE_METHODS.has(req.method);
    const origin = req.headers.origin;
    const fetchSite = req.headers['sec-fetch-site'];
    if (unsafe && ((origin && !isOwnOrigin(origin, req, deps.config.appUrl)) || fetchSite === 'cross-site')) {
      throw forbidden(M.crossSiteRefused);
    }

    const bearer = bearerToken(req);
    const cookie = req.cookies[SESSION_COOKIE];
    const token = bearer ?? cookie;
    if (!token) return;
    if (!bearer && unsafe && !origin && fetchSite !== 'same-origin') throw forbidden(M.crossSiteRefused);

    await signIn(req, reply, deps, token, bearer !== null);
  });
}

/** Puts the session of `token` on `request.actor`; a cookie that names no live session is cleared, a live one refreshed. */
async function signIn(req: FastifyRequest, reply: FastifyReply, deps: Deps, token: string, bearer: boolean): Promise<void> {
  const valid = await validateSessionToken(deps.db, token);
  if (!valid) {
    if (!bearer) clearSessionCookie(reply, deps.config);
    return;
  }
  if (valid.refreshed && !bearer) setSessionCookie(reply, deps.config, token, valid.session.expiresAt);
  req.actor = { ...req.actor, user: valid.user, session: valid.session, ip: req.ip };
}

/**
 * A request for one of the app's pages (a GET, never a write): the session cookie's person on
 * `request.actor`, so the page can be sent with what its first paint needs to know about them.
 */
export async function readPageSession(req: FastifyRequest, reply: FastifyReply, deps: Deps): Promise<void> {
  const token = req.cookies[SESSION_COOKIE];
  if (token) await signIn(req, reply, deps, token, false);
}

/**
 * A read of something the access rule guards outside the API (a draft's image): the session of
 * the bearer token or the cookie on `request.actor`. A GET: no cross-site question arises.
 */
export async function readReadSession(req: FastifyRequest, reply: FastifyReply, deps: Deps): Promise<void> {
  const bearer = bearerToken(req);
  const token = bearer ?? req.cookies[SESSION_COOKIE];
  if (token) await signIn(req, reply, deps, token, bearer !== null);
}
