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

/** True for a URL of the REST door (/api) or the tRPC door (/trpc), with or without a query. */
export function isApiUrl(url: string): boolean {
  return /^\/(api|trpc)(\/|\?|$)/.test(url);
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
