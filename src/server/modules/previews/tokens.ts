import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PREVIEW_COOKIE, PREVIEW_HEADER } from '../../../shared/constants';
import type { PreviewKind } from '../../../shared/schemas/previews';
import type { Config } from '../../config';
import type { PreviewPass } from '../../deps';
import { isUuid } from '../../lib/ids';

/**
 * Preview tokens (issue #30): 32 random bytes in base64url, shown once (in the answer that made
 * them, and in an invite's email), stored only as their SHA-256. The browser that opens a preview
 * address keeps the token in one HttpOnly cookie, per item, so the page, its calls and its images
 * carry it; an API client sends it in the X-Preview-Token header.
 */

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a token: its SHA-256 in hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function isTokenShape(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/** A preview address: the item's page with the token, which the page answer turns into the cookie and takes out of the address. */
export function previewUrl(config: Pick<Config, 'appUrl'>, kind: PreviewKind, itemId: string, token: string): string {
  return `${config.appUrl}/${kind}s/${itemId}?preview=${token}`;
}

/** The most items one browser keeps a token for (the newest win). */
const MAX_PASSES = 10;

function readCookie(value: string | undefined): PreviewPass[] {
  if (!value) return [];
  const out: PreviewPass[] = [];
  for (const entry of value.split('~')) {
    const dot = entry.indexOf('.');
    const itemId = entry.slice(0, dot);
    const token = entry.slice(dot + 1);
    if (dot > 0 && isUuid(itemId) && isTokenShape(token)) out.push({ itemId, token });
  }
  return out.slice(0, MAX_PASSES);
}

/** The preview tokens a request carries: its cookie's (each for its item) and the header's (for any item). */
export function previewPassesOf(req: FastifyRequest): PreviewPass[] {
  const passes = readCookie(req.cookies[PREVIEW_COOKIE]);
  const header = req.headers[PREVIEW_HEADER];
  const token = Array.isArray(header) ? header[0] : header;
  if (token && isTokenShape(token.trim())) passes.unshift({ itemId: null, token: token.trim() });
  return passes;
}

/** Keeps `token` for `itemId` in the browser's preview cookie (HttpOnly; for 90 days, a link's longest life). */
export function keepPreviewToken(req: FastifyRequest, reply: FastifyReply, config: Pick<Config, 'cookieSecure'>, itemId: string, token: string): void {
  const kept = readCookie(req.cookies[PREVIEW_COOKIE]).filter((p) => p.itemId !== itemId);
  const value = [{ itemId, token }, ...kept]
    .slice(0, MAX_PASSES)
    .map((p) => `${p.itemId}.${p.token}`)
    .join('~');
  reply.setCookie(PREVIEW_COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.cookieSecure,
    maxAge: 90 * 24 * 60 * 60,
  });
}

/** A URL as it may be logged: a `preview` token in its query replaced. */
export function withoutPreviewToken(url: string): string {
  return url.replace(/([?&]preview=)[^&#]*/gi, '$1[removed]');
}
