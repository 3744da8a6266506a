import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * Security headers (helmet). The CSP allows the app's own scripts, styles, images (plus data:
 * and blob: previews while cropping) and calls, and nothing else. Vite's dev server needs
 * inline scripts and a websocket, so in dev mode the CSP is off.
 *
 * helmet is used directly rather than through @fastify/helmet, which builds helmet's
 * middleware anew on every request (about a third of a millisecond each). With this
 * configuration its headers are the same for every request (no nonces), so the middleware runs
 * once at start-up against a recording response, and each reply gets the recorded headers.
 *
 * Every answer of the two API doors (/api and /trpc) also gets `Cache-Control: no-store`:
 * many carry private data (the signed-in person, their lists) and none is meant for a shared
 * or browser cache. Pages and static files set their own caching (http/client-app.ts,
 * storage/serve.ts). A route may still set another value itself; none under /api or /trpc does.
 */
export const API_CACHE_CONTROL = 'no-store';

/** The longest path parameter the router takes (a tRPC batch puts every procedure name into one); past it, 414. */
export const MAX_PARAM_LENGTH = 5000;

/** A percent-encoded unreserved character (RFC 3986 section 2.3: letters, digits, `-`, `.`, `_`, `~`). */
const ENCODED_UNRESERVED = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])/g;

/**
 * A request's URL with the unreserved characters of its path decoded (`/%61pi/x` is `/api/x`,
 * RFC 3986 section 6.2.2.2), before the router and every hook read it (app.ts, `rewriteUrl`). The
 * router decodes them anyway; without this, a hook that looked at the URL as sent would not know
 * `/%61pi/...` for the API, and would skip the per-address limit, `Cache-Control: no-store` or
 * the session. Anything else stays as sent (`%2F` is not a `/`, `%25` not a `%`), as does the query.
 * The path that comes out holds no escaped unreserved character, so the router's own decoding
 * cannot make it name another door.
 */
export function normalizeUrl(url: string): string {
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  if (!path.includes('%')) return url;
  // until none is left: a decoded digit may complete another escape (`%7%34` is `%74`, then `t`),
  // which the router would decode in turn
  let decoded = path;
  for (let before = ''; before !== decoded; ) {
    before = decoded;
    decoded = decoded.replace(ENCODED_UNRESERVED, (e) => String.fromCharCode(Number.parseInt(e.slice(1), 16)));
  }
  return decoded + (end < 0 ? '' : url.slice(end));
}

/**
 * Which API door a request's URL goes to: the REST door (/api) or the tRPC door (/trpc), with or
 * without a path or query after it; null for pages and files. The one test of a URL for its door:
 * the security headers, the per-address limit, the session and the upload limits all ask it, of
 * the URL as `normalizeUrl` left it (the path the router routes).
 */
export function apiDoorOf(url: string): 'api' | 'trpc' | null {
  const m = /^\/(api|trpc)(?:[/?#]|$)/.exec(url);
  return m ? (m[1] as 'api' | 'trpc') : null;
}

/** True for a URL of the REST door (/api) or the tRPC door (/trpc), with or without a query (`apiDoorOf`). */
export function isApiUrl(url: string): boolean {
  return apiDoorOf(url) !== null;
}

/** The headers of every answer: for pages and files, and for the two API doors (with no-store). */
export interface SecurityHeaders {
  page: Record<string, string>;
  api: Record<string, string>;
}

/** helmet's headers for this configuration, recorded once. */
export function securityHeaders(opts: { dev: boolean }): SecurityHeaders {
  const apply = helmet({
    contentSecurityPolicy: opts.dev
      ? false
      : {
          useDefaults: false,
          directives: {
            defaultSrc: ["'self'"],
            scriptSrc: ["'self'"],
            styleSrc: ["'self'"],
            imgSrc: ["'self'", 'data:', 'blob:'],
            fontSrc: ["'self'"],
            connectSrc: ["'self'"],
            mediaSrc: ["'self'"],
            objectSrc: ["'none'"],
            frameSrc: ["'none'"],
            frameAncestors: ["'none'"],
            baseUri: ["'self'"],
            formAction: ["'self'"],
          },
        },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: opts.dev ? false : undefined,
  });
  const headers: Record<string, string> = {};
  let ran = false;
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
    getHeader: (name: string) => headers[name],
  };
  apply({ headers: {}, method: 'GET', url: '/' } as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    ran = true;
  });
  if (!ran) throw new Error('helmet did not finish synchronously: its headers cannot be recorded once');
  return { page: headers, api: { ...headers, 'cache-control': API_CACHE_CONTROL } };
}

/** Sets the recorded headers on each reply (`headers`: the same ones the app's framework errors send). */
export function registerSecurityHeaders(app: FastifyInstance, headers: SecurityHeaders): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(isApiUrl(req.url) ? headers.api : headers.page);
    done();
  });
}
