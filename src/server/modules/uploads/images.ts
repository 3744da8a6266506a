import sharp, { type Metadata, type OutputInfo } from 'sharp';
import { AVATAR_JPEG_QUALITY, UPLOAD_MAX_BYTES, UPLOAD_MAX_PIXELS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { AppError } from '../../lib/errors';

export type ImageKind = 'cover' | 'gallery' | 'avatar';
export type InputFormat = 'jpeg' | 'png' | 'webp' | 'gif';

export interface EncodedImage {
  data: Buffer;
  width: number;
  height: number;
  contentType: 'image/webp' | 'image/jpeg';
  extension: 'webp' | 'jpg';
}

/** Output sizes: cover 16:9 at most 1600x900, gallery inside 1600x1600, avatar square at most 512. */
export const COVER_MAX_WIDTH = 1600;
export const GALLERY_MAX_SIDE = 1600;
export const AVATAR_MAX_SIDE = 512;
const WEBP_QUALITY = 82;

/**
 * The format told by the file's first bytes (never its name or the client's mimetype), or null.
 * Checked before sharp sees the data, so no other decoder (SVG, PDF, TIFF, HEIF...) ever runs on
 * an upload.
 */
export function sniffFormat(data: Buffer): InputFormat | null {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) return 'gif';
  if (data.length >= 12 && data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'webp';
  }
  return null;
}

/** A file name short enough to quote in an error (no client-side path). */
export const displayName = (filename: string | undefined) => (filename ?? '').split(/[\\/]/).pop()!.trim().slice(0, 100);

/** An error text naming the file it is about, when the file has a name. */
export const named = (message: string, filename: string | undefined) => {
  const name = displayName(filename);
  return name ? `${message}: ${name}` : message;
};

/**
 * Checks one upload by its content and re-encodes it for its use: auto-oriented, every piece of
 * metadata (EXIF, GPS, XMP, ICC) dropped, converted to sRGB, first frame only for animations.
 * Throws AppError 413/415 with a sentence a person can act on, naming the file (`name`).
 */
export async function encodeImage(data: Buffer, kind: ImageKind, name = ''): Promise<EncodedImage> {
  if (data.length > UPLOAD_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', named(M.imageTooLarge, name));
  const sniffed = sniffFormat(data);
  if (!sniffed) throw new AppError('UNSUPPORTED_MEDIA_TYPE', named(M.imageTypeUnsupported, name));

  const options = { limitInputPixels: UPLOAD_MAX_PIXELS, failOn: 'error', autoOrient: true } as const;
  let meta: Metadata;
  try {
    // the header only: the pixel limit is checked below, with its own message
    meta = await sharp(data, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', named(M.imageUnreadable, name));
  }
  if (meta.format !== sniffed) throw new AppError('UNSUPPORTED_MEDIA_TYPE', named(M.imageTypeUnsupported, name));
  const rawWidth = meta.width ?? 0;
  const rawHeight = meta.pageHeight ?? meta.height ?? 0;
  if (!rawWidth || !rawHeight) throw new AppError('UNSUPPORTED_MEDIA_TYPE', named(M.imageUnreadable, name));
  // a "decompression bomb" is refused from its header, before a single pixel is decoded
  if (rawWidth * rawHeight > UPLOAD_MAX_PIXELS) throw new AppError('PAYLOAD_TOO_LARGE', named(M.imageTooManyPixels, name));
  // dimensions as the picture is seen (EXIF orientations 5-8 swap them)
  const width = meta.autoOrient?.width ?? rawWidth;
  const height = meta.autoOrient?.height ?? rawHeight;

  const img = sharp(data, options);
  try {
    let out: { data: Buffer; info: OutputInfo };
    if (kind === 'cover') {
      // the largest 16:9 box the picture holds, at most 1600x900, never enlarged
      const unit = Math.max(1, Math.min(COVER_MAX_WIDTH / 16, Math.floor(Math.min(width / 16, height / 9))));
      out = await img
        .resize({ width: unit * 16, height: unit * 9, fit: 'cover', position: 'attention' })
        .webp({ quality: WEBP_QUALITY })
        .toBuffer({ resolveWithObject: true });
    } else if (kind === 'gallery') {
      out = await img
        .resize({ width: GALLERY_MAX_SIDE, height: GALLERY_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
        .webp({ quality: WEBP_QUALITY })
        .toBuffer({ resolveWithObject: true });
    } else {
      const side = Math.max(1, Math.min(AVATAR_MAX_SIDE, width, height));
      out = await img
        .resize({ width: side, height: side, fit: 'cover', position: 'attention' })
        // JPEG has no transparency: transparent parts become white, not black
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: Math.round(AVATAR_JPEG_QUALITY * 100), mozjpeg: true })
        .toBuffer({ resolveWithObject: true });
    }
    const webp = kind !== 'avatar';
    return {
      data: out.data,
      width: out.info.width,
      height: out.info.height,
      contentType: webp ? 'image/webp' : 'image/jpeg',
      extension: webp ? 'webp' : 'jpg',
    };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', named(M.imageUnreadable, name));
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a file name must lose
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** The default alt text: the file name without its extension, trimmed, at most 200 characters. */
export function altFromFilename(filename: string | undefined): string {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  const stem = base.includes('.') && !base.startsWith('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  return stem.replace(CONTROL_CHARACTERS, ' ').trim().slice(0, 200).trim();
}
