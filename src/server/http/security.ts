import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Security headers. The CSP allows the app's own scripts, styles, images (plus data: and blob:
 * previews while cropping) and calls, and nothing else. Vite's dev server needs inline scripts
 * and a websocket, so in dev mode the CSP is off.
 */
export async function registerSecurityHeaders(app: FastifyInstance, opts: { dev: boolean }): Promise<void> {
  await app.register(helmet, {
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
}
