import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where uploaded files go. Keys are relative paths such as `gallery/<uuid>.webp`; the storage
 * answers the URL the file is served at. Local disk by default; another adapter (S3...) only
 * has to keep the same two promises.
 */
export interface Storage {
  /** Stores the whole file under the key, or nothing: a reader never sees half a file. */
  put(key: string, data: Buffer, contentType: string): Promise<{ url: string }>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
}

/** `<segment>/<segment>.<ext>` of lower-case letters, digits and dashes: no traversal, no dotfiles. */
const KEY_PATTERN = /^[a-z0-9-]+(\/[a-z0-9-]+)*\.[a-z0-9]+$/;

/** True for a key the storage may hold (and the only paths `/uploads/` serves). */
export function isStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function checkKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
}

/** The directory the local adapter writes to and `/uploads/` is served from. */
export function uploadsDir(dataDir: string): string {
  return path.join(dataDir, 'uploads');
}

export const UPLOADS_URL_PREFIX = '/uploads/';

/**
 * Files under `root`, served at `/uploads/<key>`. A file is written to a temporary name in
 * `root/.tmp` (same file system), flushed, then renamed into place, so a crash never leaves a
 * half-written file under its final name. (`.tmp` is a dotfile directory: never served.)
 */
export type LocalStorage = Storage & { readonly kind: 'local'; readonly root: string };

export function createLocalStorage(root: string): LocalStorage {
  const tmpDir = path.join(root, '.tmp');
  mkdirSync(tmpDir, { recursive: true });
  const fullPath = (key: string) => path.join(root, ...key.split('/'));

  return {
    kind: 'local',
    root,
    async put(key, data) {
      checkKey(key);
      const target = fullPath(key);
      await mkdir(path.dirname(target), { recursive: true });
      const tmp = path.join(tmpDir, `${randomUUID()}.part`);
      try {
        const fh = await open(tmp, 'wx', 0o644);
        try {
          await fh.writeFile(data);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return { url: `${UPLOADS_URL_PREFIX}${key}` };
    },
    async delete(key) {
      checkKey(key);
      await rm(fullPath(key), { force: true });
    },
  };
}
