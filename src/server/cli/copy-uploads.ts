import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { createS3Storage, type S3Storage } from '../storage/s3';
import { isStorageKey, uploadsDir } from '../storage/storage';

/**
 * `npm run copy-uploads` copies the uploads kept on local disk (DATA_DIR/uploads) into the
 * bucket set by S3_BUCKET, before the app is switched to it. The database needs no change: rows
 * keep `/uploads/<key>` and the key, which the bucket holds under the same key. A file the
 * bucket already has is left alone, so the command may run twice (or again after new uploads
 * arrived on disk, just before the switch); it never deletes anything.
 */

const CONTENT_TYPES: Record<string, string> = { webp: 'image/webp', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif' };

/** Every stored key under `root` (temporary files and anything that is not a key are skipped). */
async function keysUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter(isStorageKey)
    .sort();
}

export interface CopyResult {
  copied: number;
  skipped: number;
  failed: number;
}

/** Copies every local file the bucket lacks; one line per failure, the others go on. */
export async function copyUploads(root: string, storage: S3Storage, say: (line: string) => void = console.log): Promise<CopyResult> {
  const result: CopyResult = { copied: 0, skipped: 0, failed: 0 };
  for (const key of await keysUnder(root)) {
    try {
      if (await storage.has(key)) {
        result.skipped += 1;
        continue;
      }
      const data = await readFile(path.join(root, ...key.split('/')));
      const ext = key.slice(key.lastIndexOf('.') + 1);
      await storage.put(key, data, CONTENT_TYPES[ext] ?? 'application/octet-stream');
      result.copied += 1;
    } catch (err) {
      result.failed += 1;
      // the bucket's own answer (NoSuchBucket, InvalidAccessKeyId, ECONNREFUSED...), not the uploader's sentence
      const cause = ((err as { cause?: unknown }).cause ?? err) as { name?: string; code?: string; message?: string };
      say(`could not copy ${key}: ${cause.code ?? cause.name ?? 'Error'}: ${cause.message ?? String(cause)}`);
    }
  }
  return result;
}

async function main() {
  const config = loadConfig();
  if (!config.s3) {
    console.error('Set S3_BUCKET (and the other S3_ settings) to the bucket to copy the uploads into.');
    process.exit(2);
  }
  const root = uploadsDir(config.dataDir);
  // a failure is reported by copyUploads, one line a file, with the bucket's answer
  const storage = createS3Storage(config.s3, { warn: () => {} });
  console.log(`Copying ${root} to s3://${config.s3.bucket}/ ...`);
  const r = await copyUploads(root, storage);
  console.log(`${r.copied} copied, ${r.skipped} already in the bucket, ${r.failed} failed.`);
  storage.client.destroy();
  if (r.failed) process.exitCode = 1;
}

// run when called as a command, not when a test imports copyUploads
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? '')) {
  main().catch((err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
