import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { count, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, capturedLog, type LogLine, multipart, openTestDatabase, signUp, signUpVerified, uploadImages } from '../../../test/helpers';
import { copyUploads } from '../cli/copy-uploads';
import { images, users } from '../db/schema';
import { deleteUnreferencedUploads } from '../jobs/cleanup';
import { createS3Client, createS3Storage, PRIVATE_PREFIX, PUBLIC_PREFIX, type S3Settings, STORAGE_UNAVAILABLE_MESSAGE } from './s3';
import { createLocalStorage, uploadsDir } from './storage';

/**
 * Uploads in a bucket, against a real S3 HTTP server (s3rver, in this process on a free port,
 * its files in a temporary directory) through the real AWS SDK: what an uploader, a visitor and
 * an operator would notice.
 */

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (opts: Record<string, unknown>) => S3rverInstance;
// s3rver ships no type declarations
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

const BUCKET = 'kindling-test';
const PUBLIC_URL = 'https://cdn.example.test/kindling';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

let server: S3rverInstance;
let s3Dir: string;
let settings: S3Settings;
let bucket: S3Client;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
/** S3 on, no public address: the app serves the files from the bucket. */
let app: FastifyInstance;
/** S3 on with a public address. */
let appPublic: FastifyInstance;
let dataDir: string;

beforeAll(async () => {
  s3Dir = mkdtempSync(path.join(os.tmpdir(), 'kindling-s3-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  settings = {
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    // s3rver checks signatures made with these
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  };
  bucket = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-s3-data-'));
  database = await openTestDatabase();
  app = await buildTestApp(database, { dataDir, s3: settings });
  appPublic = await buildTestApp(database, { dataDir, s3: { ...settings, publicUrl: PUBLIC_URL } });
});
afterAll(async () => {
  await app?.close();
  await appPublic?.close();
  await database?.close();
  bucket?.destroy();
  await server?.close();
  for (const dir of [s3Dir, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

/** The object's bytes and type as the bucket holds them, or null. */
async function inBucket(key: string): Promise<{ data: Buffer; type?: string } | null> {
  try {
    const res = await bucket.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return { data: Buffer.from(await res.Body!.transformToByteArray()), type: res.ContentType };
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return null;
    throw err;
  }
}
const bucketKeys = async (prefix = '') =>
  ((await bucket.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!).sort();

const keyOf = (url: string) => url.replace(/^\/uploads\//, '');
const png = (w = 320, h = 200) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
const imageCount = async () => (await database.db.select({ n: count() }).from(images))[0].n;
/** Files under the app's local uploads directory (none while S3 is on). */
const localFiles = () => {
  const root = uploadsDir(dataDir);
  return existsSync(root) ? readdirSync(root, { recursive: true }).filter((f) => !String(f).startsWith('.tmp')) : [];
};

async function upload(target: FastifyInstance, who: { token?: string; ip: string }, url = '/api/upload/campaign/multi?kind=gallery', field = 'files') {
  const body = multipart([{ field, filename: 'photo.png', data: await png(), contentType: 'image/png' }]);
  return call(target, who, { method: 'POST', url, payload: body.payload, headers: body.headers });
}

async function createItem(target: FastifyInstance, who: { token?: string; ip: string }, visibility: 'draft' | 'released', imageUrl: string) {
  const res = await call(target, who, {
    method: 'POST',
    url: '/api/campaigns',
    payload: { title: `S3 ${randomUUID().slice(0, 8)}`, visibility, imageUrl, images: [{ url: imageUrl, alt: 'cover' }] },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { _id: string };
}

// ---------------------------------------------------------------------------------------------

describe('uploads in a bucket, served by the app (no public address)', () => {
  it('stores an upload from the REST door in the bucket, not on disk, and answers it through the app with its type and cache headers', async () => {
    const who = await signUp(app);
    const res = await upload(app, who);
    expect(res.statusCode).toBe(201);
    const [img] = (res.json() as { images: { url: string }[] }).images;
    expect(img.url).toMatch(new RegExp(`^/uploads/gallery/${UUID}\\.webp$`));
    const stored = await inBucket(PRIVATE_PREFIX + keyOf(img.url));
    expect(stored?.type).toBe('image/webp');
    expect((await sharp(stored!.data).metadata()).format).toBe('webp');
    expect(localFiles()).toEqual([]);
    // the row keeps the app's address and the key, whichever storage holds the file
    const [row] = await database.db.select().from(images).where(eq(images.url, img.url));
    expect(row).toMatchObject({ storageKey: keyOf(img.url), contentType: 'image/webp' });

    const got = await app.inject({ method: 'GET', url: img.url });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/webp');
    expect(got.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.rawPayload.equals(stored!.data)).toBe(true);
    expect(Number(got.headers['content-length'])).toBe(stored!.data.length);
    // a browser's second look costs no bytes
    const again = await app.inject({ method: 'GET', url: img.url, headers: { 'if-none-match': String(got.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    const head = await app.inject({ method: 'HEAD', url: img.url });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('image/webp');

    // a key the bucket does not hold, and what is not a key, are the app's 404
    expect((await app.inject({ method: 'GET', url: img.url.replace(/[0-9a-f]{8}-/, '00000000-') })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/uploads/../package.json' })).statusCode).toBe(404);
  });

  it('stores an avatar from the tRPC door in the bucket', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const who = await signUp(app);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await png(600, 600))], { type: 'image/png' }), 'me.png');
    const res = await fetch(`http://127.0.0.1:${port}/trpc/uploads.avatar`, { method: 'POST', body: form, headers: { authorization: `Bearer ${who.token}` } });
    expect(res.status).toBe(200);
    const { url } = ((await res.json()) as { result: { data: { json: { url: string } } } }).result.data.json;
    expect(url).toMatch(new RegExp(`^/uploads/avatar/${UUID}\\.jpg$`));
    expect((await inBucket(PRIVATE_PREFIX + keyOf(url)))?.type).toBe('image/jpeg');
    const got = await fetch(`http://127.0.0.1:${port}${url}`);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
  });

  it('answers a draft image only to whoever may see the draft', async () => {
    const owner = await signUpVerified(app, database);
    const stranger = await signUpVerified(app, database);
    const [img] = await uploadImages(app, owner, 1, 'cover');
    await createItem(app, owner, 'draft', img.url);
    const mine = await call(app, owner, { method: 'GET', url: img.url });
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['cache-control']).toBe('private, no-store');
    const missing = await call(app, null, { method: 'GET', url: img.url.replace(/[0-9a-f]{8}-/, '00000000-') });
    for (const who of [stranger, null]) {
      const res = await call(app, who, { method: 'GET', url: img.url });
      expect({ status: res.statusCode, body: res.body }).toEqual({ status: missing.statusCode, body: missing.body });
    }
  });

  it('stores a large file in parts (a multipart upload) and reads it back whole', async () => {
    // the SDK client the adapter uses, with a step that notes each request it sends
    const client = createS3Client(settings);
    const sent: string[] = [];
    client.middlewareStack.add((next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    });
    const storage = createS3Storage(settings, app.log, { client });
    const data = randomBytes(11 * 1024 * 1024);
    const key = `gallery/${randomUUID()}.webp`;
    expect(await storage.put(key, data, 'image/webp')).toEqual({ url: `/uploads/${key}` });
    expect(sent.sort()).toEqual([
      'CompleteMultipartUploadCommand',
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'UploadPartCommand',
    ]);
    const got = await app.inject({ method: 'GET', url: `/uploads/${key}` });
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(data)).toBe(true);
    expect(Number(got.headers['content-length'])).toBe(data.length);
    // a small file is one request
    sent.length = 0;
    await storage.put(`gallery/${randomUUID()}.webp`, Buffer.from('tiny'), 'image/webp');
    expect(sent).toEqual(['PutObjectCommand']);
    client.destroy();
  });

  it('sends no checksum S3 does not require (several S3-compatible services refuse them)', async () => {
    const client = createS3Client(settings);
    const headers: Record<string, string>[] = [];
    client.middlewareStack.add(
      (next) => (args) => {
        headers.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { step: 'finalizeRequest' },
    );
    const storage = createS3Storage(settings, app.log, { client });
    await storage.put(`gallery/${randomUUID()}.webp`, Buffer.from('small'), 'image/webp');
    await storage.put(`gallery/${randomUUID()}.webp`, randomBytes(6 * 1024 * 1024), 'image/webp');
    expect(headers.length).toBeGreaterThanOrEqual(4);
    for (const h of headers) {
      expect(Object.keys(h).filter((name) => /checksum|x-amz-trailer/i.test(name))).toEqual([]);
    }
    client.destroy();
  });

  it('lets the cleanup job delete unreferenced uploads from the bucket, the public copy too', async () => {
    const who = await signUp(appPublic);
    const [img] = await uploadImages(appPublic, who, 1);
    const key = keyOf(img.url);
    // published once, so both copies exist
    const storage = appPublic.deps.storage as ReturnType<typeof createS3Storage>;
    await storage.publish(key);
    expect(await bucketKeys(PUBLIC_PREFIX + key)).toEqual([PUBLIC_PREFIX + key]);
    await database.db.execute(sql`update images set created_at = now() - interval '2 days' where url = ${img.url}`);
    const removed = await deleteUnreferencedUploads({ db: database.db, storage, log: appPublic.log });
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await bucketKeys(PRIVATE_PREFIX + key)).toEqual([]);
    expect(await bucketKeys(PUBLIC_PREFIX + key)).toEqual([]);
    expect(await database.db.select().from(images).where(eq(images.url, img.url))).toEqual([]);
    expect((await app.inject({ method: 'GET', url: img.url })).statusCode).toBe(404);
  });
});

describe('with a public base address (S3_PUBLIC_URL)', () => {
  it('sends a released item’s images and an avatar to the public address, copied under the public prefix', async () => {
    const owner = await signUpVerified(appPublic, database);
    const [cover] = await uploadImages(appPublic, owner, 1, 'cover');
    const item = await createItem(appPublic, owner, 'released', cover.url);
    const res = await call(appPublic, null, { method: 'GET', url: cover.url });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/${keyOf(cover.url)}`);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    const original = await inBucket(PRIVATE_PREFIX + keyOf(cover.url));
    const published = await inBucket(PUBLIC_PREFIX + keyOf(cover.url));
    expect(published?.data.equals(original!.data)).toBe(true);
    expect(published?.type).toBe('image/webp');
    // the item's answer keeps the app's address, which leads there
    const detail = (await call(appPublic, null, { method: 'GET', url: `/api/campaigns/${item._id}` })).json() as { imageUrl: string };
    expect(detail.imageUrl).toBe(cover.url);

    const avatar = await upload(appPublic, owner, '/api/upload/avatar', 'file');
    const { url } = avatar.json() as { url: string };
    const a = await call(appPublic, null, { method: 'GET', url });
    expect(a.statusCode).toBe(302);
    expect(a.headers.location).toBe(`${PUBLIC_URL}/${keyOf(url)}`);
  });

  it('keeps a draft’s images and unplaced uploads out of the public prefix until the item is released', async () => {
    const owner = await signUpVerified(appPublic, database);
    const stranger = await signUpVerified(appPublic, database);
    const [cover, loose] = await uploadImages(appPublic, owner, 2, 'cover');
    const d = await createItem(appPublic, owner, 'draft', cover.url);
    // the owner's browser shows both through the app; nothing is published
    const mine = await call(appPublic, owner, { method: 'GET', url: cover.url });
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['cache-control']).toBe('private, no-store');
    expect(mine.headers.location).toBeUndefined();
    expect((await call(appPublic, owner, { method: 'GET', url: loose.url })).statusCode).toBe(200);
    expect((await call(appPublic, stranger, { method: 'GET', url: cover.url })).statusCode).toBe(404);
    expect(await bucketKeys(PUBLIC_PREFIX + keyOf(cover.url))).toEqual([]);
    expect(await bucketKeys(PUBLIC_PREFIX + keyOf(loose.url))).toEqual([]);

    const released = await call(appPublic, owner, { method: 'PUT', url: `/api/campaigns/${d._id}`, payload: { visibility: 'released' } });
    expect(released.statusCode).toBe(200);
    const now = await call(appPublic, stranger, { method: 'GET', url: cover.url });
    expect(now.statusCode).toBe(302);
    expect(await bucketKeys(PUBLIC_PREFIX + keyOf(cover.url))).toEqual([PUBLIC_PREFIX + keyOf(cover.url)]);
  });
});

describe('a bucket that refuses the upload', () => {
  /** An app whose bucket settings are wrong in one way; its log is read back. */
  async function brokenApp(s3: S3Settings) {
    const log = capturedLog();
    const broken = await buildTestApp(database, { dataDir, s3 }, log);
    return { broken, log };
  }
  const warnings = (lines: LogLine[]) => lines.filter((l) => l.level >= 40);

  async function closedPort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const { port } = s.address() as { port: number };
    await new Promise((resolve) => s.close(resolve));
    return port;
  }

  it.each([
    ['a bucket that does not exist', () => ({ bucket: 'no-such-bucket' }), /NoSuchBucket/],
    ['an unknown access key', () => ({ accessKeyId: 'NOT-A-KEY' }), /InvalidAccessKeyId/],
    ['an endpoint nobody answers', async () => ({ endpoint: `http://127.0.0.1:${await closedPort()}` }), /ECONNREFUSED/],
  ])('answers %s with a clear 409 to the uploader on both doors, stores nothing and logs one line', async (_name, change, cause) => {
    const { broken, log } = await brokenApp({ ...settings, ...(await change()) });
    try {
      const who = await signUp(broken);
      const rowsBefore = await imageCount();
      const keysBefore = await bucketKeys();
      const linesBefore = warnings(log.lines).length;
      const res = await upload(broken, who);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE });
      expect(await imageCount()).toBe(rowsBefore);
      expect(await bucketKeys()).toEqual(keysBefore);
      const lines = warnings(log.lines).slice(linesBefore);
      expect(lines).toHaveLength(1);
      expect(lines[0].msg).toMatch(cause);

      // the tRPC door answers the same
      await broken.listen({ port: 0, host: '127.0.0.1' });
      const { port } = broken.server.address() as { port: number };
      const form = new FormData();
      form.append('files', new Blob([new Uint8Array(await png())], { type: 'image/png' }), 'photo.png');
      const t = await fetch(`http://127.0.0.1:${port}/trpc/uploads.campaignImages`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${who.token}` },
      });
      expect(t.status).toBe(409);
      expect(((await t.json()) as { error: { json: { message: string } } }).error.json.message).toBe(STORAGE_UNAVAILABLE_MESSAGE);
      expect(await imageCount()).toBe(rowsBefore);
      expect(warnings(log.lines).slice(linesBefore)).toHaveLength(2);

      // the avatar keeps the profile as it was
      const avatar = await upload(broken, who, '/api/upload/avatar', 'file');
      expect(avatar.statusCode).toBe(409);
      const [me] = await database.db.select({ imageUrl: users.imageUrl }).from(users).where(eq(users.id, who.userId));
      expect(me.imageUrl).toBeNull();
      expect(warnings(log.lines).slice(linesBefore)).toHaveLength(3);

      // a visitor's image is a 503 (not a missing file's 404) and the operator gets one line
      const read = await broken.inject({ method: 'GET', url: `/uploads/gallery/${randomUUID()}.webp` });
      expect(read.statusCode).toBe(503);
      expect(read.headers['retry-after']).toBe('30');
      const after = warnings(log.lines).slice(linesBefore);
      expect(after).toHaveLength(4);
      expect(after[3].msg).toBe('object storage: could not read an upload');
    } finally {
      await broken.close();
    }
  });
});

describe('npm run copy-uploads', () => {
  it('copies the files on local disk to the bucket under the same keys, and skips them when run again', async () => {
    const local = mkdtempSync(path.join(os.tmpdir(), 'kindling-copy-'));
    try {
      const disk = createLocalStorage(uploadsDir(local));
      const gallery = `gallery/${randomUUID()}.webp`;
      const avatar = `avatar/${randomUUID()}.jpg`;
      const webp = await sharp(await png())
        .webp()
        .toBuffer();
      const jpeg = await sharp(await png())
        .jpeg()
        .toBuffer();
      await disk.put(gallery, webp, 'image/webp');
      await disk.put(avatar, jpeg, 'image/jpeg');
      // a half-written file and a stray file are never copied
      writeFileSync(path.join(uploadsDir(local), '.tmp', 'x.part'), 'half');
      mkdirSync(path.join(uploadsDir(local), 'gallery'), { recursive: true });
      writeFileSync(path.join(uploadsDir(local), 'gallery', 'Notes.TXT'), 'stray');

      const env = {
        ...process.env,
        NODE_ENV: 'test',
        DATA_DIR: local,
        S3_BUCKET: BUCKET,
        S3_ENDPOINT: settings.endpoint!,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      };
      const run = () => promisify(execFile)('npx', ['tsx', 'src/server/cli/copy-uploads.ts'], { env, cwd: process.cwd() });
      const first = await run();
      expect(first.stdout).toContain('2 copied, 0 already in the bucket, 0 failed.');
      expect((await inBucket(PRIVATE_PREFIX + gallery))?.data.equals(webp)).toBe(true);
      expect((await inBucket(PRIVATE_PREFIX + avatar))?.type).toBe('image/jpeg');
      const second = await run();
      expect(second.stdout).toContain('0 copied, 2 already in the bucket, 0 failed.');
      // the app reads a copied file at the address the rows already hold
      const got = await app.inject({ method: 'GET', url: `/uploads/${gallery}` });
      expect(got.statusCode).toBe(200);
      expect(got.rawPayload.equals(webp)).toBe(true);

      // a bucket that refuses: one line a file, a failing exit, nothing half done
      const refused = await copyUploads(uploadsDir(local), createS3Storage({ ...settings, bucket: 'no-such-bucket' }, { warn: () => {} }), () => {});
      expect(refused).toEqual({ copied: 0, skipped: 0, failed: 2 });
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });
});
