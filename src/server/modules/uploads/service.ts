import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { UPLOAD_MAX_BYTES, UPLOAD_MAX_FILES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { CampaignImageKind, UploadAvatarDto, UploadCampaignImagesDto } from '../../../shared/schemas/uploads';
import { and, sql as dsql } from 'drizzle-orm';
import { images, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { AppError, badRequest } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { requireUser } from '../../lib/access';
import { createGate } from './gate';
import { altFromFilename, encodeImage, named, type EncodedImage, type ImageKind } from './images';

/** One received file, whichever door it came through; its name and type are the client's word only. */
export interface UploadedFile {
  filename: string;
  data: Buffer;
}

interface Prepared extends EncodedImage {
  key: string;
  alt: string;
  url?: string;
}

/**
 * How many files, and how big: checked by the service, and by a door before it copies what it
 * received (`size` is a Blob's or a Buffer's byte count).
 */
export function checkUploadLimits(files: readonly { filename?: string; name?: string; size: number }[], max: number): void {
  if (files.length === 0) throw badRequest(M.imageRequired);
  if (files.length > max) throw new AppError('PAYLOAD_TOO_LARGE', M.tooManyImages);
  for (const f of files) {
    if (f.size > UPLOAD_MAX_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', named(M.imageTooLarge, f.filename ?? f.name));
    }
  }
}

const HOUR = 3_600_000;

export function createUploadsService(deps: Deps) {
  const { db, storage, log, config } = deps;
  /** Uploads read and processed at once (both doors); 10 more may wait their turn (a short queue: a waiting upload moves no bytes, and the idle timeout runs). */
  const gate = createGate(config.uploadConcurrency, 10);
  const quotaMessage = `${M.uploadQuotaReached} (${Math.round(config.uploadQuotaBytes / 1024 / 1024)} MB)`;

  async function usedBytes(userId: string): Promise<number> {
    const [row] = await db
      .select({ n: dsql<string>`coalesce(sum(${images.bytes}), 0)` })
      .from(images)
      .where(and(eq(images.ownerId, userId)));
    return Number(row?.n ?? 0);
  }

  /** Before reading a body: a full account is refused at once. */
  async function assertSpaceLeft(userId: string): Promise<void> {
    if ((await usedBytes(userId)) >= config.uploadQuotaBytes) throw new AppError('PAYLOAD_TOO_LARGE', quotaMessage);
  }

  /** Spends the hour's upload budget (one per file), then checks the space the new images need. */
  async function checkAllowance(userId: string, prepared: readonly EncodedImage[]): Promise<void> {
    const incoming = prepared.reduce((n, p) => n + p.data.length, 0);
    if ((await usedBytes(userId)) + incoming > config.uploadQuotaBytes) throw new AppError('PAYLOAD_TOO_LARGE', quotaMessage);
  }

  async function spendHourly(userId: string, files: number): Promise<void> {
    await deps.limiter.spend(`upload:u:${userId}`, [{ limit: config.uploadsPerHour, windowMs: HOUR }], files);
  }

  /** Every file is checked and re-encoded before any is stored: one bad file stores none. */
  async function prepare(files: readonly UploadedFile[], kind: ImageKind): Promise<Prepared[]> {
    const out: Prepared[] = [];
    // one at a time: sharp already uses several threads for one image, and memory stays bounded
    for (const f of files) {
      const encoded = await encodeImage(f.data, kind, f.filename);
      out.push({ ...encoded, key: `${kind}/${randomUUID()}.${encoded.extension}`, alt: altFromFilename(f.filename) });
    }
    return out;
  }

  /**
   * Stores the files, then runs `commit` (the database rows) in one transaction. If a store or
   * the transaction fails, every file stored so far is deleted again, so a failed upload leaves
   * neither a file nor a row behind.
   */
  async function storeAll<T>(prepared: Prepared[], commit: (stored: Required<Prepared>[]) => Promise<T>): Promise<T> {
    // only the files whose put succeeded: a put that fails leaves nothing (the storage's promise),
    // and asking a storage that just failed to delete would log a second line for one failure
    const storedKeys: string[] = [];
    try {
      for (const p of prepared) {
        const { url } = await storage.put(p.key, p.data, p.contentType);
        storedKeys.push(p.key);
        p.url = url;
      }
      return await commit(prepared as Required<Prepared>[]);
    } catch (err) {
      const results = await Promise.allSettled(storedKeys.map((key) => storage.delete(key)));
      results.forEach((r, i) => {
        if (r.status === 'rejected') log.error({ err: r.reason, key: storedKeys[i] }, 'could not remove an uploaded file after a failed upload');
      });
      throw err;
    }
  }

  const imageRow = (ownerId: string, kind: ImageKind, p: Required<Prepared>) => ({
    ownerId,
    storageKey: p.key,
    url: p.url,
    kind,
    width: p.width,
    height: p.height,
    bytes: p.data.length,
    contentType: p.contentType,
  });

  return {
    /**
     * A turn to read and process one upload request, after the cheap checks: signed in, space
     * left. The doors take it before reading the body and end it when the answer is sent.
     */
    async admit(actor: Actor): Promise<() => void> {
      const { user } = requireUser(actor);
      await assertSpaceLeft(user.id);
      return gate.enter();
    },
    /** The queue, for tests and the log. */
    gate,

    /** Campaign or project pictures: 'cover' is cropped to 16:9, 'gallery' fits in 1600x1600. WebP either way. */
    async uploadCampaignImages(actor: Actor, files: readonly UploadedFile[], kind: CampaignImageKind = 'gallery'): Promise<UploadCampaignImagesDto> {
      const { user } = requireUser(actor);
      checkUploadLimits(
        files.map((f) => ({ filename: f.filename, size: f.data.length })),
        UPLOAD_MAX_FILES,
      );
      await spendHourly(user.id, files.length);
      const prepared = await prepare(files, kind);
      await checkAllowance(user.id, prepared);
      return storeAll(prepared, async (stored) => {
        await db.insert(images).values(stored.map((p) => imageRow(user.id, kind, p)));
        return { images: stored.map((p) => ({ url: p.url, alt: p.alt })) };
      });
    },

    /** The person's picture: a 1:1 JPEG, set as their imageUrl in the same transaction as its row. */
    async uploadAvatar(actor: Actor, file: UploadedFile | undefined): Promise<UploadAvatarDto> {
      const { user } = requireUser(actor);
      checkUploadLimits(file ? [{ filename: file.filename, size: file.data.length }] : [], 1);
      await spendHourly(user.id, 1);
      const prepared = await prepare([file!], 'avatar');
      await checkAllowance(user.id, prepared);
      return storeAll(prepared, async ([p]) => {
        await db.transaction(async (tx) => {
          await tx.insert(images).values(imageRow(user.id, 'avatar', p));
          await tx.update(users).set({ imageUrl: p.url, updatedAt: new Date() }).where(eq(users.id, user.id));
          await recordChange(tx, { modelName: 'User', action: 'update', key: user.id, fields: ['imageUrl'], actorId: user.id });
        });
        return { url: p.url };
      });
    },
  };
}
export type UploadsService = ReturnType<typeof createUploadsService>;
