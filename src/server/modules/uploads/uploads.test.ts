import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { buildApp } from '../../app';
import { changeHistory, images, users } from '../../db/schema';
import { createLocalStorage, uploadsDir, type Storage } from '../../storage/storage';
import { buildTestApp, call, freshIp, openTestDatabase, signUp, testConfig, type Client } from '../../../../test/helpers';
import { checkContract } from '../../../../test/contract';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let dataDir: string;
let root: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'kindling-uploads-'));
  root = uploadsDir(dataDir);
  database = await openTestDatabase();
  app = await buildTestApp(database, { dataDir });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// test images, made with sharp at test time (no binary fixtures)

const solid = (width: number, height: number, background = '#3366cc') => sharp({ create: { width, height, channels: 3, background } });

/** A PNG carrying EXIF with a copyright owner and a GPS position. */
const pngWithGps = (width = 2000, height = 1500) =>
  solid(width, height)
    .withExif({
      IFD0: { Copyright: 'Jane Private', Make: 'PhoneCo' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' },
    })
    .png()
    .toBuffer();

/** A JPEG shot in portrait: stored 1200x800 pixels with EXIF orientation 6 (seen as 800x1200). */
const portraitJpeg = () => solid(1200, 800, '#cc6633').jpeg().withMetadata({ orientation: 6 }).toBuffer();

/** An animated GIF: a red frame, then a green one. */
const animatedGif = async () => {
  const red = await solid(640, 480, '#ff0000').png().toBuffer();
  const green = await solid(640, 480, '#00ff00').png().toBuffer();
  return sharp([red, green], { join: { animated: true } })
    .gif({ delay: [100, 100] })
    .toBuffer();
};

const webp = (width = 1000, height = 1000) => solid(width, height, '#22aa66').webp().toBuffer();

let solidPngs: Buffer[] = [];
beforeAll(async () => {
  solidPngs = await Promise.all([solid(320, 200, '#123456').png().toBuffer(), solid(200, 320, '#654321').png().toBuffer()]);
});

/** The tags of a TIFF/EXIF block's first directory. */
function exifTags(exif: Buffer): number[] {
  const b = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? exif.subarray(6) : exif;
  const le = b.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const start = u32(4);
  return Array.from({ length: u16(start) }, (_, i) => u16(start + 2 + i * 12));
}
const GPS_IFD_TAG = 0x8825;
const COPYRIGHT_TAG = 0x8298;

// ---------------------------------------------------------------------------------------------
// multipart bodies built by hand

interface Part {
  field: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

function multipart(parts: Part[], boundary = `----kindling${randomBytes(8).toString('hex')}`) {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const file = (data: Buffer | string, filename: string, contentType = 'image/png', field = 'files'): Part => ({
  field,
  filename,
  contentType,
  data,
});

function upload(who: Client | null, url: string, parts: Part[]) {
  const body = multipart(parts);
  return call(app, who, { method: 'POST', url, payload: body.payload, headers: body.headers });
}
const uploadCampaign = (who: Client | null, parts: Part[], kind?: string) => upload(who, `/api/upload/campaign/multi${kind ? `?kind=${kind}` : ''}`, parts);
const uploadAvatar = (who: Client | null, parts: Part[]) => upload(who, '/api/upload/avatar', parts);

// ---------------------------------------------------------------------------------------------
// what is on disk and in the database

/** Every file under the uploads directory (including unfinished temporary files). */
function storedFiles(dir = root): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? storedFiles(full) : [path.relative(root, full)];
  });
}
const imageRows = async (ownerId: string) => await database.db.select().from(images).where(eq(images.ownerId, ownerId));
const imageCount = async () => (await database.db.select({ n: count() }).from(images))[0].n;

/** Asserts a failed request left nothing behind: no new file, no new row. */
async function expectNothingStored(before: { files: string[]; rows: number }) {
  expect(storedFiles()).toEqual(before.files);
  expect(await imageCount()).toBe(before.rows);
}
const snapshot = async () => ({ files: storedFiles(), rows: await imageCount() });

const diskPath = (url: string) => path.join(root, ...url.replace(/^\/uploads\//, '').split('/'));

/** The stored file: decoded by sharp, plus what GET <url> answers. */
async function inspect(url: string) {
  const data = readFileSync(diskPath(url));
  const meta = await sharp(data).metadata();
  const res = await app.inject({ method: 'GET', url });
  return { data, meta, res };
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

// ---------------------------------------------------------------------------------------------

describe('POST /api/upload/campaign/multi', () => {
  it('re-encodes a PNG, a JPEG, a GIF and a WebP to WebP gallery images, checked by content, not by name', async () => {
    const who = await signUp(app);
    const gps = await pngWithGps();
    // the test input really carries the private metadata
    const inputTags = exifTags((await sharp(gps).metadata()).exif!);
    expect(inputTags).toEqual(expect.arrayContaining([GPS_IFD_TAG, COPYRIGHT_TAG]));

    const res = await uploadCampaign(who, [
      file(gps, 'Beach day.PNG', 'image/png'),
      // a JPEG sent under a PNG name and type is still a JPEG
      file(await portraitJpeg(), 'portrait.png', 'image/png'),
      file(await animatedGif(), 'party.gif', 'application/octet-stream'),
      file(await webp(), '  Garden  .webp', 'image/webp'),
    ]);
    expect(res.statusCode).toBe(201);
    const body = res.json() as { images: { url: string; alt: string }[] };
    expect(body.images.map((i) => i.alt)).toEqual(['Beach day', 'portrait', 'party', 'Garden']);
    for (const img of body.images) expect(img.url).toMatch(new RegExp(`^/uploads/gallery/${UUID}\\.webp$`));
    expect(new Set(body.images.map((i) => i.url)).size).toBe(4);

    const [png, jpeg, gif, webpOut] = await Promise.all(body.images.map((i) => inspect(i.url)));
    // fit inside 1600x1600 keeping the shape; the portrait photo stands upright
    expect([png.meta.width, png.meta.height]).toEqual([1600, 1200]);
    expect([jpeg.meta.width, jpeg.meta.height]).toEqual([800, 1200]);
    expect(jpeg.meta.orientation).toBeUndefined();
    // small pictures are not enlarged; an animation keeps its first frame only
    expect([gif.meta.width, gif.meta.height, gif.meta.pages ?? 1]).toEqual([640, 480, 1]);
    const { data: px } = await sharp(gif.data).raw().toBuffer({ resolveWithObject: true });
    expect(px[0]).toBeGreaterThan(200); // red
    expect(px[1]).toBeLessThan(60);
    expect([webpOut.meta.width, webpOut.meta.height]).toEqual([1000, 1000]);

    for (const out of [png, jpeg, gif, webpOut]) {
      expect(out.meta.format).toBe('webp');
      // no EXIF (so no GPS position, no owner), no XMP, no colour profile left
      expect(out.meta.exif).toBeUndefined();
      expect(out.meta.xmp).toBeUndefined();
      expect(out.meta.icc).toBeUndefined();
      expect(out.data.toString('latin1')).not.toContain('Jane Private');
      // served under /uploads/ as the stored bytes, cached for good, never sniffed
      expect(out.res.statusCode).toBe(200);
      expect(out.res.headers['content-type']).toBe('image/webp');
      expect(out.res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(out.res.headers['x-content-type-options']).toBe('nosniff');
      expect(out.res.rawPayload.equals(out.data)).toBe(true);
    }

    const rows = await imageRows(who.userId);
    expect(rows).toHaveLength(4);
    for (const [i, img] of body.images.entries()) {
      const row = rows.find((r) => r.url === img.url)!;
      expect(row).toMatchObject({ kind: 'gallery', contentType: 'image/webp', storageKey: img.url.replace('/uploads/', '') });
      const out = [png, jpeg, gif, webpOut][i];
      expect([row.width, row.height, row.bytes]).toEqual([out.meta.width, out.meta.height, out.data.length]);
    }
    // no temporary file is left over
    expect(storedFiles().filter((f) => f.startsWith('.tmp'))).toEqual([]);
  });

  it('crops a cover to 16:9 (at most 1600x900, never enlarged)', async () => {
    const who = await signUp(app);
    const res = await uploadCampaign(
      who,
      [file(await pngWithGps(2000, 1500), 'cover.png'), file(await portraitJpeg(), 'tall.jpg', 'image/jpeg'), file(await webp(800, 600), 'small.webp')],
      'cover',
    );
    expect(res.statusCode).toBe(201);
    const { images: out } = res.json() as { images: { url: string; alt: string }[] };
    for (const img of out) expect(img.url).toMatch(new RegExp(`^/uploads/cover/${UUID}\\.webp$`));
    const sizes = await Promise.all(out.map(async (i) => (await inspect(i.url)).meta));
    expect(sizes.map((m) => [m.format, m.width, m.height])).toEqual([
      ['webp', 1600, 900],
      ['webp', 800, 450],
      ['webp', 800, 450],
    ]);
    for (const m of sizes) expect(m.exif).toBeUndefined();
    const rows = await imageRows(who.userId);
    expect(rows.map((r) => r.kind)).toEqual(['cover', 'cover', 'cover']);
  });

  it('refuses a text file named .png with 415 and stores nothing', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const res = await uploadCampaign(who, [file('just some notes, not a picture', 'notes.png', 'image/png')]);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: `${M.imageTypeUnsupported}: notes.png` });
    await expectNothingStored(before);
  });

  it.each([
    ['an SVG', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>', 'logo.svg'],
    ['an HTML page', '<!doctype html><script>alert(1)</script>', 'page.png'],
    ['an empty file', '', 'empty.png'],
  ])('refuses %s with 415', async (_what, content, name) => {
    const who = await signUp(app);
    const before = await snapshot();
    const res = await uploadCampaign(who, [file(content, name, 'image/svg+xml')]);
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toBe(`${M.imageTypeUnsupported}: ${name}`);
    await expectNothingStored(before);
  });

  it('refuses a damaged image (right header, broken data) with 415', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const png = await solid(300, 200).png().toBuffer();
    const broken = Buffer.concat([png.subarray(0, 40), randomBytes(200)]);
    const res = await uploadCampaign(who, [file(broken, 'broken.png')]);
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatch(/^(This image could not be read; it may be damaged|Only JPEG, PNG, WebP or GIF images can be uploaded): broken\.png$/);
    await expectNothingStored(before);
  });

  it('refuses a file over 10 MB with 413 and stores nothing', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    // a real picture of noise, just over the limit
    const big = await sharp(randomBytes(2000 * 1800 * 3), { raw: { width: 2000, height: 1800, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(10 * 1024 * 1024);
    const res = await uploadCampaign(who, [file(await webp(), 'fine.webp'), file(big, 'huge.png')]);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: `${M.imageTooLarge}: huge.png` });
    await expectNothingStored(before);
  });

  it('refuses a decompression bomb (a small file of 48 megapixels) with 413', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const bomb = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#000000' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await uploadCampaign(who, [file(bomb, 'bomb.png')]);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: `${M.imageTooManyPixels}: bomb.png` });
    await expectNothingStored(before);
  });

  it('refuses 11 files with 413 and stores none of them', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const small = await webp(64, 64);
    const res = await uploadCampaign(
      who,
      Array.from({ length: 11 }, (_, i) => file(small, `pic${i}.webp`)),
    );
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: M.tooManyImages });
    await expectNothingStored(before);
    // ten are fine
    const ok = await uploadCampaign(
      who,
      Array.from({ length: 10 }, (_, i) => file(small, `pic${i}.webp`)),
    );
    expect(ok.statusCode).toBe(201);
    expect(ok.json().images).toHaveLength(10);
  });

  it('stores none when one of several files is not an image', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const res = await uploadCampaign(who, [
      file(await pngWithGps(400, 300), 'one.png'),
      file(await webp(200, 200), 'two.webp'),
      file('%PDF-1.4 not an image', 'three.jpg', 'image/jpeg'),
      file(await animatedGif(), 'four.gif'),
    ]);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: `${M.imageTypeUnsupported}: three.jpg` });
    await expectNothingStored(before);
    expect(await imageRows(who.userId)).toEqual([]);
  });

  it('stores nothing from a half-sent upload (the body ends mid-file)', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const body = multipart([file(await webp(), 'first.webp'), file(await pngWithGps(400, 300), 'second.png')]);
    const cut = body.payload.subarray(0, body.payload.length - 500);
    const res = await call(app, who, { method: 'POST', url: '/api/upload/campaign/multi', payload: cut, headers: body.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: M.uploadInterrupted });
    await expectNothingStored(before);
  });

  it('parses multipart only on the upload routes', async () => {
    const body = multipart([
      { field: 'email', data: 'a@example.com' },
      { field: 'password', data: 'correct horse battery' },
    ]);
    const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/login', payload: body.payload, headers: body.headers });
    expect(res.statusCode).toBe(415);
  });

  it('asks for a file when none is sent, and for multipart when JSON is sent', async () => {
    const who = await signUp(app);
    const none = await uploadCampaign(who, [{ field: 'note', data: 'hello' }]);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({ error: M.imageRequired });
    const wrongField = await uploadCampaign(who, [file(await webp(), 'a.webp', 'image/webp', 'file')]);
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json()).toEqual({ error: M.imageRequired });
    const json = await call(app, who, { method: 'POST', url: '/api/upload/campaign/multi', payload: { files: [] } });
    expect(json.statusCode).toBe(415);
    expect(json.json()).toEqual({ error: M.uploadNotMultipart });
  });

  it('refuses an unknown kind with 400', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const res = await uploadCampaign(who, [file(await webp(), 'a.webp')], 'avatar');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "kind must be 'cover' or 'gallery'" });
    await expectNothingStored(before);
  });

  it('answers 401 to a signed-out caller and stores nothing', async () => {
    const before = await snapshot();
    const res = await uploadCampaign({ ip: freshIp() }, [file(await webp(), 'a.webp')]);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: M.signInRequired });
    await expectNothingStored(before);
  });
});

describe('POST /api/upload/avatar', () => {
  it('stores a 1:1 JPEG without metadata, sets the imageUrl shown by /api/auth/me and records the change', async () => {
    const who = await signUp(app);
    const res = await uploadAvatar(who, [file(await pngWithGps(2000, 1500), 'me.png', 'image/png', 'file')]);
    expect(res.statusCode).toBe(201);
    const { url } = res.json() as { url: string };
    expect(url).toMatch(new RegExp(`^/uploads/avatar/${UUID}\\.jpg$`));

    const out = await inspect(url);
    expect([out.meta.format, out.meta.width, out.meta.height]).toEqual(['jpeg', 512, 512]);
    expect(out.meta.exif).toBeUndefined();
    expect(out.meta.icc).toBeUndefined();
    expect(out.res.statusCode).toBe(200);
    expect(out.res.headers['content-type']).toBe('image/jpeg');
    expect(out.res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(out.res.headers['x-content-type-options']).toBe('nosniff');

    const me = await call(app, who, { method: 'GET', url: '/api/auth/me' });
    expect(me.json()).toMatchObject({ imageUrl: url, avatarUrl: url });
    const rows = await imageRows(who.userId);
    expect(rows).toEqual([expect.objectContaining({ kind: 'avatar', url, contentType: 'image/jpeg', width: 512, height: 512 })]);
    const history = await database.db
      .select()
      .from(changeHistory)
      .where(and(eq(changeHistory.key, who.userId), eq(changeHistory.action, 'update')));
    expect(history).toEqual([expect.objectContaining({ modelName: 'User', fields: ['imageUrl'], actorId: who.userId })]);
  });

  it('keeps a small avatar small, turns transparency white and replaces the previous avatar', async () => {
    const who = await signUp(app);
    const first = await uploadAvatar(who, [file(await webp(), 'old.webp', 'image/webp', 'file')]);
    expect(first.statusCode).toBe(201);
    const transparent = await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const res = await uploadAvatar(who, [file(transparent, 'clear.png', 'image/png', 'file')]);
    expect(res.statusCode).toBe(201);
    const { url } = res.json() as { url: string };
    const out = await inspect(url);
    expect([out.meta.width, out.meta.height]).toEqual([200, 200]);
    const { data: px } = await sharp(out.data).raw().toBuffer({ resolveWithObject: true });
    expect(Math.min(px[0], px[1], px[2])).toBeGreaterThan(240);
    const [row] = await database.db.select({ imageUrl: users.imageUrl }).from(users).where(eq(users.id, who.userId));
    expect(row.imageUrl).toBe(url);
  });

  it('refuses a non-image with 415 and leaves the profile as it was', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const res = await uploadAvatar(who, [file('plain text, not a picture', 'me.gif', 'image/gif', 'file')]);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: `${M.imageTypeUnsupported}: me.gif` });
    await expectNothingStored(before);
    const me = await call(app, who, { method: 'GET', url: '/api/auth/me' });
    expect(me.json().imageUrl).toBeNull();
  });

  it('asks for a file when none is sent', async () => {
    const who = await signUp(app);
    const res = await uploadAvatar(who, [{ field: 'note', data: 'x' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: M.imageRequired });
  });

  it('answers 401 to a signed-out caller', async () => {
    const before = await snapshot();
    const res = await uploadAvatar({ ip: freshIp() }, [file(await webp(), 'a.webp', 'image/webp', 'file')]);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: M.signInRequired });
    await expectNothingStored(before);
  });
});

describe('GET /uploads/', () => {
  it('answers 404 for an unknown file and never serves unfinished temporary files', async () => {
    for (const url of ['/uploads/gallery/nope.webp', '/uploads/.tmp/anything.part', '/uploads/', '/uploads/../package.json']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });
});

describe('a failure while storing', () => {
  /** The real disk storage, but the n-th put fails, or every put answers the same URL. */
  async function appWith(storage: Storage) {
    const failing = checkContract(await buildApp({ config: testConfig({ dataDir }), db: database.db, client: 'none', logger: false, storage }));
    await failing.ready();
    return failing;
  }

  it('removes the files already stored when a later one cannot be stored', async () => {
    const disk = createLocalStorage(root);
    let puts = 0;
    const storage: Storage = {
      put: async (key, data, type) => {
        puts += 1;
        if (puts === 3) throw new Error('disk full');
        return disk.put(key, data, type);
      },
      delete: (key) => disk.delete(key),
    };
    const failing = await appWith(storage);
    try {
      const who = await signUp(failing);
      const before = await snapshot();
      const body = multipart([1, 2, 3, 4].map((i) => file(solidPngs[i % 2], `p${i}.png`)));
      const res = await call(failing, who, { method: 'POST', url: '/api/upload/campaign/multi', payload: body.payload, headers: body.headers });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: M.internalError });
      expect(puts).toBe(3);
      await expectNothingStored(before);
    } finally {
      await failing.close();
    }
  });

  it('removes the stored files when the database refuses the rows', async () => {
    const disk = createLocalStorage(root);
    const storage: Storage = {
      // every file claims the same URL: the second row breaks images_url_key
      put: async (key, data, type) => {
        await disk.put(key, data, type);
        return { url: '/uploads/gallery/same.webp' };
      },
      delete: (key) => disk.delete(key),
    };
    const failing = await appWith(storage);
    try {
      const who = await signUp(failing);
      const before = await snapshot();
      const body = multipart([file(solidPngs[0], 'a.png'), file(solidPngs[1], 'b.png')]);
      const res = await call(failing, who, { method: 'POST', url: '/api/upload/campaign/multi', payload: body.payload, headers: body.headers });
      expect(res.statusCode).toBe(500);
      await expectNothingStored(before);
    } finally {
      await failing.close();
    }
  });
});

describe('over HTTP: the tRPC door (uploads.campaignImages, uploads.avatar), and early answers of the REST door', () => {
  let base: string;
  beforeAll(async () => {
    // tRPC reads FormData from the real request stream, so these calls go over HTTP
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    base = `http://127.0.0.1:${addr.port}`;
  });

  async function trpcForm(path: string, form: FormData, token?: string) {
    const res = await fetch(`${base}/trpc/${path}`, {
      method: 'POST',
      body: form,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const body = (await res.json()) as {
      // biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, whose fields each test reads and asserts
      result?: { data: { json: any } };
      error?: { json: { message: string; data: { code: string; httpStatus: number } } };
    };
    return { status: res.status, data: body.result?.data.json, error: body.error?.json };
  }

  it('uploads campaign images from FormData', async () => {
    const who = await signUp(app);
    const form = new FormData();
    form.append('kind', 'cover');
    form.append('files', new Blob([await pngWithGps(2000, 1500)], { type: 'image/png' }), 'Hero shot.png');
    form.append('files', new Blob([await portraitJpeg()], { type: 'image/jpeg' }), 'tall.jpg');
    const r = await trpcForm('uploads.campaignImages', form, who.token);
    expect(r.status).toBe(200);
    expect(r.data.images.map((i: { alt: string }) => i.alt)).toEqual(['Hero shot', 'tall']);
    for (const img of r.data.images as { url: string }[]) {
      expect(img.url).toMatch(new RegExp(`^/uploads/cover/${UUID}\\.webp$`));
      const out = await inspect(img.url);
      expect(out.meta.width! * 9).toBe(out.meta.height! * 16);
      expect(out.meta.exif).toBeUndefined();
    }
    expect(await imageRows(who.userId)).toHaveLength(2);
  });

  it('refuses a non-image with the same 415 and stores nothing', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const form = new FormData();
    form.append('files', new Blob([await webp()], { type: 'image/webp' }), 'ok.webp');
    form.append('files', new Blob(['hello'], { type: 'image/png' }), 'notes.png');
    const r = await trpcForm('uploads.campaignImages', form, who.token);
    expect(r.status).toBe(415);
    expect(r.error).toMatchObject({ message: `${M.imageTypeUnsupported}: notes.png`, data: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    await expectNothingStored(before);
  });

  it('sets the avatar from FormData', async () => {
    const who = await signUp(app);
    const form = new FormData();
    form.append('file', new Blob([await webp(900, 600)], { type: 'image/webp' }), 'me.webp');
    const r = await trpcForm('uploads.avatar', form, who.token);
    expect(r.status).toBe(200);
    expect(r.data.url).toMatch(new RegExp(`^/uploads/avatar/${UUID}\\.jpg$`));
    const out = await inspect(r.data.url);
    expect([out.meta.format, out.meta.width, out.meta.height]).toEqual(['jpeg', 512, 512]);
    const me = await call(app, who, { method: 'GET', url: '/api/auth/me' });
    expect(me.json().imageUrl).toBe(r.data.url);
  });

  it.each(['uploads.campaignImages', 'uploads.avatar'])('%s answers 401 to a signed-out caller', async (procedure) => {
    const before = await snapshot();
    const form = new FormData();
    form.append(procedure === 'uploads.avatar' ? 'file' : 'files', new Blob([await webp()], { type: 'image/webp' }), 'a.webp');
    const r = await trpcForm(procedure, form);
    expect(r.status).toBe(401);
    expect(r.error).toMatchObject({ message: M.signInRequired, data: { code: 'UNAUTHORIZED' } });
    await expectNothingStored(before);
  });

  it('keeps the REST door answering over HTTP when it stops reading early (401, too big, too many)', async () => {
    const who = await signUp(app);
    const before = await snapshot();
    const post = (form: FormData, token?: string) =>
      fetch(`${base}/api/upload/campaign/multi`, { method: 'POST', body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const noise = new Blob([randomBytes(11 * 1024 * 1024)], { type: 'image/png' });

    const anonymous = new FormData();
    anonymous.append('files', noise, 'big.png');
    const r401 = await post(anonymous);
    expect(r401.status).toBe(401);
    expect(await r401.json()).toEqual({ error: M.signInRequired });

    const tooBig = new FormData();
    tooBig.append('files', new Blob([await webp()], { type: 'image/webp' }), 'ok.webp');
    tooBig.append('files', noise, 'big.png');
    const r413 = await post(tooBig, who.token);
    expect(r413.status).toBe(413);
    expect(await r413.json()).toEqual({ error: `${M.imageTooLarge}: big.png` });

    const tooMany = new FormData();
    const small = new Blob([await webp(32, 32)], { type: 'image/webp' });
    for (let i = 0; i < 11; i++) tooMany.append('files', small, `p${i}.webp`);
    const rMany = await post(tooMany, who.token);
    expect(rMany.status).toBe(413);
    expect(await rMany.json()).toEqual({ error: M.tooManyImages });
    await expectNothingStored(before);
  });

  it('refuses a multipart tRPC request that declares more than 10 x 10 MB before reading it', async () => {
    const who = await signUp(app);
    const res = await app.inject({
      method: 'POST',
      url: '/trpc/uploads.campaignImages',
      headers: {
        authorization: `Bearer ${who.token}`,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(200 * 1024 * 1024),
      },
      payload: '',
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: M.uploadTooLarge });
  });
});
