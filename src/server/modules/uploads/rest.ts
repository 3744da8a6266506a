import { finished } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UPLOAD_MAX_BYTES, UPLOAD_MAX_FILES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { UploadAvatarOutput, UploadCampaignImagesOutput, UploadCampaignImagesQuery } from '../../../shared/schemas/uploads';
import { restRoute } from '../../http/rest';
import { AppError } from '../../lib/errors';
import type { Services } from '../../services';
import { named } from './images';
import type { UploadedFile } from './service';

/** Limits of a multipart request: busboy stops reading past them (bodyLimit does not apply to multipart). */
export const MULTIPART_LIMITS = {
  fileSize: UPLOAD_MAX_BYTES,
  files: UPLOAD_MAX_FILES,
  fields: 10,
  parts: 30,
  fieldSize: 1024,
} as const;

/** @fastify/multipart's and busboy's failures, as the texts a person reads. */
function multipartError(err: unknown, filename: string | undefined): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string } | null)?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', named(M.imageTooLarge, filename));
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError('PAYLOAD_TOO_LARGE', M.tooManyImages);
    case 'FST_FIELDS_LIMIT':
      return new AppError('PAYLOAD_TOO_LARGE', M.uploadTooManyFields);
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', M.uploadNotMultipart);
    default:
      // malformed or truncated multipart data, a client that went away mid-upload
      return new AppError('BAD_REQUEST', M.uploadInterrupted);
  }
}

/**
 * Reads the files of one field, one at a time into memory (at most 10 x 10 MiB), and drains any
 * other file part: every stream is consumed, or the request would never finish. Nothing is
 * stored here; a limit or a broken body throws before the service is called.
 */
async function readFiles(req: FastifyRequest, field: string, max: number): Promise<UploadedFile[]> {
  if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', M.uploadNotMultipart);
  const files: UploadedFile[] = [];
  let current: string | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type !== 'file') continue;
      current = part.filename;
      if (part.fieldname === field && files.length < max) {
        files.push({ filename: part.filename ?? '', data: await part.toBuffer() });
      } else {
        part.file.resume();
        await finished(part.file);
      }
      current = undefined;
    }
  } catch (err) {
    throw multipartError(err, current);
  }
  return files;
}

/**
 * The REST doors for uploads. Call inside an encapsulated plugin: @fastify/multipart is
 * registered on `app` and must not reach the tRPC or JSON routes.
 */
export async function uploadsRest(app: FastifyInstance, { uploads }: Services): Promise<void> {
  await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });

  restRoute(app, {
    method: 'POST',
    url: '/api/upload/campaign/multi',
    summary: 'Upload campaign images (cover or gallery)',
    tag: 'uploads',
    auth: 'required',
    errors: {
      400: 'A file that is not a JPEG, PNG or WebP image, or a broken upload',
      409: 'The image store (object storage) cannot take files right now; nothing was saved',
      413: 'A file over 10 MiB, too many files, or the account’s space is full',
      415: 'Not a multipart/form-data body',
      429: 'Upload budget spent, or too many uploads waiting (`Retry-After`)',
    },
    files: { field: 'files', max: UPLOAD_MAX_FILES },
    query: UploadCampaignImagesQuery,
    response: UploadCampaignImagesOutput,
    status: 201,
    handler: async ({ query, actor }, req) => {
      // a signed-out caller, or one without space left, is answered before a byte of the body is read
      const leave = await uploads.admit(actor);
      try {
        const files = await readFiles(req, 'files', UPLOAD_MAX_FILES);
        return await uploads.uploadCampaignImages(actor, files, query.kind);
      } finally {
        leave();
      }
    },
  });

  restRoute(app, {
    method: 'POST',
    url: '/api/upload/avatar',
    summary: 'Upload my avatar',
    tag: 'uploads',
    auth: 'required',
    errors: {
      400: 'Not a JPEG, PNG or WebP image, no file, or a broken upload',
      409: 'The image store (object storage) cannot take files right now; nothing was saved',
      413: 'A file over 10 MiB, or the account’s space is full',
      415: 'Not a multipart/form-data body',
      429: 'Upload budget spent, or too many uploads waiting (`Retry-After`)',
    },
    files: { field: 'file', max: 1 },
    response: UploadAvatarOutput,
    status: 201,
    handler: async ({ actor }, req) => {
      const leave = await uploads.admit(actor);
      try {
        const [file] = await readFiles(req, 'file', 1);
        return await uploads.uploadAvatar(actor, file);
      } finally {
        leave();
      }
    },
  });
}
