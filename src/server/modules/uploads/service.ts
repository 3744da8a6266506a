import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { UPLOAD_MAX_BYTES, UPLOAD_MAX_FILES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { CampaignImageKind, UploadAvatarDto, UploadCampaignImagesDto } from '../../../shared/schemas/uploads';
import { images, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { AppError, badRequest } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { requireUser } from '../auth/service';
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

export function createUploadsService(deps: Deps) {
  const { db, storage, log } = deps;

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
    const attempted: string[] = [];
    try {
      for (const p of prepared) {
        attempted.push(p.key);
        const { url } = await storage.put(p.key, p.data, p.contentType);
        p.url = url;
      }
      return await commit(prepared as Required<Prepared>[]);
    } catch (err) {
      const results = await Promise.allSettled(attempted.map((key) => storage.delete(key)));
      results.forEach((r, i) => {
        if (r.status === 'rejected') log.error({ err: r.reason, key: attempted[i] }, 'could not remove an uploaded file after a failed upload');
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
    /** Campaign or project pictures: 'cover' is cropped to 16:9, 'gallery' fits in 1600x1600. WebP either way. */
    async uploadCampaignImages(
      actor: Actor,
      files: readonly UploadedFile[],
      kind: CampaignImageKind = 'gallery',
    ): Promise<UploadCampaignImagesDto> {
      const { user } = requireUser(actor);
      checkUploadLimits(files.map((f) => ({ filename: f.filename, size: f.data.length })), UPLOAD_MAX_FILES);
      const prepared = await prepare(files, kind);
      return storeAll(prepared, async (stored) => {
        await db.insert(images).values(stored.map((p) => imageRow(user.id, kind, p)));
        return { images: stored.map((p) => ({ url: p.url, alt: p.alt })) };
      });
    },

    /** The person's picture: a 1:1 JPEG, set as their imageUrl in the same transaction as its row. */
    async uploadAvatar(actor: Actor, file: UploadedFile | undefined): Promise<UploadAvatarDto> {
      const { user } = requireUser(actor);
      checkUploadLimits(file ? [{ filename: file.filename, size: file.data.length }] : [], 1);
      const prepared = await prepare([file!], 'avatar');
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
