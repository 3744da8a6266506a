import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { UPLOAD_MAX_BYTES, UPLOAD_MAX_FILES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { CampaignImageKindSchema, UploadAvatarOutput, UploadCampaignImagesOutput } from '../../../shared/schemas/uploads';
import { apiDoorOf } from '../../http/security';
import { AppError } from '../../lib/errors';
import { authedProcedure, router } from '../../trpc/init';
import { checkUploadLimits, type UploadedFile } from './service';

/**
 * The tRPC door for uploads: a mutation whose input is FormData (sent with `httpLink`, not the
 * batch link; see https://trpc.io/docs/server/non-json-content-types). The browser app uses the
 * REST door, which reports upload progress; this one is for tRPC clients.
 *
 * tRPC reads the whole form with `Request.formData()` before the procedure runs, so the size
 * of such a request is bounded by `registerTrpcUploadLimit` below, not by the procedure.
 */

const files = (form: FormData, field: string) => form.getAll(field).filter((v): v is File => typeof v !== 'string');

async function toUploaded(list: File[], max: number): Promise<UploadedFile[]> {
  // refuse too many or too big files before copying them
  checkUploadLimits(list, max);
  return Promise.all(list.map(async (f) => ({ filename: f.name, data: Buffer.from(await f.arrayBuffer()) })));
}

export const uploadsRouter = router({
  /** FormData: `files` (repeated), optional `kind` = cover | gallery (default gallery). */
  campaignImages: authedProcedure
    .input(z.instanceof(FormData))
    .output(UploadCampaignImagesOutput)
    .mutation(async ({ ctx, input }) => {
      const rawKind = input.get('kind');
      const kind = CampaignImageKindSchema.parse(typeof rawKind === 'string' && rawKind !== '' ? rawKind : 'gallery');
      return ctx.services.uploads.uploadCampaignImages(ctx.actor, await toUploaded(files(input, 'files'), UPLOAD_MAX_FILES), kind);
    }),
  /** FormData: `file`. */
  avatar: authedProcedure
    .input(z.instanceof(FormData))
    .output(UploadAvatarOutput)
    .mutation(async ({ ctx, input }) => {
      const [file] = await toUploaded(files(input, 'file').slice(0, 1), 1);
      return ctx.services.uploads.uploadAvatar(ctx.actor, file);
    }),
});

/** The most a multipart tRPC request may carry: 10 files of 10 MiB plus room for the form's framing. */
export const TRPC_MULTIPART_MAX_BYTES = UPLOAD_MAX_FILES * UPLOAD_MAX_BYTES + 256 * 1024;

/**
 * tRPC's Fastify adapter hands a multipart body to `Request.formData()` with no size limit, and
 * Fastify's bodyLimit does not apply to it. A multipart request to /trpc must therefore declare
 * its length (browsers always do for FormData), and it is refused before a byte is read when it
 * declares more than TRPC_MULTIPART_MAX_BYTES; Node's HTTP parser never reads past that length.
 */
export function registerTrpcUploadLimit(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (apiDoorOf(req.url) !== 'trpc') return;
    if (!req.headers['content-type']?.toLowerCase().startsWith('multipart/form-data')) return;
    const length = Number(req.headers['content-length']);
    if (!req.headers['content-length'] || !Number.isSafeInteger(length)) throw new AppError('BAD_REQUEST', M.uploadNeedsLength);
    if (length > TRPC_MULTIPART_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', M.uploadTooLarge);
    // the same queue as the REST door, taken before tRPC reads the form into memory
    const leave = await app.services.uploads.gate.enter();
    reply.raw.once('close', leave);
  });
}
