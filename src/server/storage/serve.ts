import { mkdirSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type Db, rowsOf } from '../db/client';
import { imagePublicForGoodSql } from '../lib/access';
import type { S3Storage } from './s3';
import { isStorageKey, UPLOADS_URL_PREFIX } from './storage';

/** Keys are random and never reused: a file may be cached for a year. */
const CACHE_FOR_GOOD = 'public, max-age=31536000, immutable';

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
      reply.header('cache-control', CACHE_FOR_GOOD);
      reply.header('x-content-type-options', 'nosniff');
    },
  });
}

/**
 * True when the image at `url` is public in the app for good (lib/access.ts decides:
 * `imagePublicForGoodSql`): the cover or a gallery image of a released campaign or project, an
 * avatar, a team's cover. Only such images are copied to the public prefix; everything else (a
 * draft's images, an upload not placed yet, a comment's or an update's picture) is answered by
 * the app alone.
 */
async function isPublicImage(db: Db, url: string): Promise<boolean> {
  const [row] = rowsOf<{ public: boolean }>(await db.execute(sql`select ${imagePublicForGoodSql(url)} as public`));
  return row?.public === true;
}

/**
 * `/uploads/<key>` when the files are in a bucket. The draft image gate (previews/images.ts) has
 * already run: a stranger asking for a draft's image got the missing file's 404, and an answer
 * it let through is marked `draftImage`.
 *
 * - With a public base address (S3_PUBLIC_URL), an image public in the app for good is copied
 *   under the bucket's public prefix on its first request and answered with a redirect there
 *   (a CDN or the bucket then carries the bytes; the redirect itself is cached for a day).
 * - Everything else, and everything when no public address is set, is streamed from the bucket
 *   through the app with the local disk's headers (the gate makes a draft's `private, no-store`).
 *
 * A bucket that cannot answer is a 503 for that image and one log line.
 */
export function registerUploadsFromBucket(app: FastifyInstance, storage: S3Storage, db: Db): void {
  app.get('/uploads/*', async (req, reply) => {
    const key = (req.params as { '*': string })['*'];
    if (!isStorageKey(key)) return reply.callNotFound();
    try {
      if (storage.publicUrl && !req.draftImage && (await isPublicImage(db, UPLOADS_URL_PREFIX + key))) {
        const target = await storage.publish(key);
        if (!target) return reply.callNotFound();
        return reply.header('cache-control', 'public, max-age=86400').redirect(target, 302);
      }
      const file = await storage.get(key, req.headers['if-none-match']);
      if (!file) return reply.callNotFound();
      reply.header('cache-control', CACHE_FOR_GOOD).header('x-content-type-options', 'nosniff');
      if (file === 'notModified') return reply.code(304).send();
      reply.type(file.contentType);
      if (file.etag) reply.header('etag', file.etag);
      if (file.lastModified) reply.header('last-modified', file.lastModified.toUTCString());
      if (file.length !== undefined) reply.header('content-length', String(file.length));
      if (req.method === 'HEAD') {
        // the headers are the answer; the bucket's connection is let go at once
        file.body.destroy();
        return reply.send();
      }
      return reply.send(file.body);
    } catch (err) {
      req.log.warn({ err, key }, 'object storage: could not read an upload');
      return reply.code(503).header('retry-after', '30').send({ error: 'This image cannot be loaded right now' });
    }
  });
}
