import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * Security headers (helmet). The CSP allows the app's own scripts, styles, images (plus data:
 * and blob: previews while cropping) and calls, and nothing else. Vite's dev server needs
 * inline scripts and a websocket, so in dev mode the CSP is off.
 *
 * helmet is used directly rather than through @fastify/helmet, which builds helmet's
 * middleware anew on every request (about a third of a millisecond each): here it is built
 * once and applied in one onRequest hook.
 */
export function registerSecurityHeaders(app: FastifyInstance, opts: { dev: boolean }): void {
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
  app.addHook('onRequest', (req, reply, done) => {
    apply(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}
