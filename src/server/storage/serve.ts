import { mkdirSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { isStorageKey } from './storage';

/**
 * Serves the local uploads directory at `/uploads/`. Keys are random and never reused, so a
 * file may be cached for a year; nosniff keeps a browser from reading an image as anything
 * else. Unknown files (and the `.tmp` directory) fall through to the app's 404.
 */
export async function registerUploadsStatic(app: FastifyInstance, root: string): Promise<void> {
  mkdirSync(root, { recursive: true });
  await app.register(fastifyStatic, {
    root,
    prefix: '/uploads/',
    // the built client registers @fastify/static too; only one may decorate the reply
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'ignore',
    // only what could be a stored file: no directories, no temporary files, no odd spellings
    allowedPath: (pathname) => isStorageKey(pathname.replace(/^\/+/, '')),
    etag: true,
    lastModified: true,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      reply.header('x-content-type-options', 'nosniff');
    },
  });
}
