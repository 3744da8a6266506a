import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, link, mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { createReadStream } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './client';
import { readTar, TAR_END, tarHeader, tarPadding, TarFormatError } from './tar';

/**
 * Backups of the embedded database (PGlite under DATA_DIR) and the files beside it.
 *
 * A backup is one tar file: `kindling-backup.json` (what it is), `pgdata.tar.gz` (PGlite's own
 * dump of its data directory) and `data/...`, every other file of DATA_DIR: the uploads and the
 * keys the app made there (receipt links, stored tokens, the sandbox's webhooks), without which
 * restored data would lose its pictures or fail to read its tokens.
 *
 * The dump is consistent: PGlite runs one query at a time, and the dump waits its turn like a
 * query, so it sees every transaction committed before it and none of one after; an open
 * transaction's unfinished work is undone when the dump is opened, as after a crash. The files
 * are copied after the dump: every upload the dumped rows name is on disk by then (a file is
 * stored before the row that names it), unless it was deleted in the seconds in between.
 *
 * Only one process may open the data directory (client.ts, lockDataDir). While the app runs,
 * `npm run backup` therefore asks the app to write the backup, over a unix socket in DATA_DIR
 * (`backup.sock`, readable and writable by the app's user only, like the data itself): a
 * request names the file to write and is answered when it is written. With the app stopped the
 * command opens the data directory and writes the backup itself.
 */

export const BACKUP_FORMAT = 1;
export const MANIFEST_ENTRY = 'kindling-backup.json';
export const PGDATA_ENTRY = 'pgdata.tar.gz';
/** Files of DATA_DIR are stored under this prefix, at their path relative to DATA_DIR. */
export const FILES_PREFIX = 'data/';
export const SOCKET_NAME = 'backup.sock';
/** Where `npm run backup` writes when given no file, inside DATA_DIR (left out of backups). */
export const BACKUPS_DIR = 'backups';
/** What `npm run restore` moves the replaced data into, inside DATA_DIR: `before-restore-<time>`. */
export const SET_ASIDE_PREFIX = 'before-restore-';
/** Where `npm run restore` unpacks a backup before it replaces anything: `.restore-<time>`. */
export const STAGING_PREFIX = '.restore-';

export interface Manifest {
  format: number;
  app: 'kindling';
  database: 'pglite';
  /** When the dump was taken (ISO 8601). */
  createdAt: string;
}

/** Names at the top of DATA_DIR a backup leaves out: the database (dumped instead), its lock, the socket, backups, earlier restores' leftovers. */
export function leftOutOfBackup(name: string): boolean {
  return (
    name === 'pg' || name === 'pg.lock' || name === SOCKET_NAME || name === BACKUPS_DIR || name.startsWith(SET_ASIDE_PREFIX) || name.startsWith(STAGING_PREFIX)
  );
}

/** A time for file names: 2026-01-31T09-15-00Z (no colons, which some systems refuse). */
export function fileTime(date = new Date()): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');
}

export function defaultBackupFile(dataDir: string, date = new Date()): string {
  return path.join(path.resolve(dataDir), BACKUPS_DIR, `kindling-${fileTime(date)}.tar`);
}

export function backupSocketPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), SOCKET_NAME);
}

/** A backup that could not be written or read, in one line for the operator. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** The files under DATA_DIR a backup holds, relative paths with `/`, directories before their contents. */
async function dataFiles(dataDir: string): Promise<{ rel: string; dir: boolean }[]> {
  const out: { rel: string; dir: boolean }[] = [];
  const walk = async (rel: string) => {
    const entries = await readdir(path.join(dataDir, rel), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && leftOutOfBackup(e.name)) continue;
      // files being written (uploads' .tmp): not stored yet
      if (e.name === '.tmp') continue;
      if (e.isDirectory()) {
        out.push({ rel: child, dir: true });
        await walk(child);
      } else if (e.isFile()) out.push({ rel: child, dir: false });
    }
  };
  await walk('');
  return out;
}

/**
 * Writes a backup of the data directory to `file`: the database as `dump` gives it, then the
 * files. The archive is written beside `file` under another name and linked into place only
 * when complete, so `file` is either the whole backup or absent; an existing `file` is never
 * replaced. Readable by its owner only: it holds the keys in DATA_DIR.
 */
export async function writeBackup(opts: { dataDir: string; dump: () => Promise<Blob>; file: string }): Promise<{ file: string; bytes: number; files: number }> {
  const dataDir = path.resolve(opts.dataDir);
  const file = path.resolve(opts.file);
  if (existsSync(file)) throw new BackupError(`${file} exists already: name another file`);
  // a folder made here is as private as the backups in it
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const createdAt = new Date();
  const pgdata = Buffer.from(await (await opts.dump()).arrayBuffer());
  const manifest: Manifest = { format: BACKUP_FORMAT, app: 'kindling', database: 'pglite', createdAt: createdAt.toISOString() };

  const partial = `${file}.partial-${randomBytes(4).toString('hex')}`;
  const out = await open(partial, 'wx', 0o600);
  let bytes = 0;
  let files = 0;
  const write = async (buf: Buffer) => {
    await out.write(buf);
    bytes += buf.length;
  };
  const entry = async (name: string, data: Buffer, mtime: Date, mode = 0o600) => {
    await write(tarHeader({ name, type: 'file', size: data.length, mode, mtime }));
    await write(data);
    await write(tarPadding(data.length));
  };
  try {
    await entry(MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), createdAt, 0o644);
    await entry(PGDATA_ENTRY, pgdata, createdAt);
    for (const f of await dataFiles(dataDir)) {
      const full = path.join(dataDir, ...f.rel.split('/'));
      const name = `${FILES_PREFIX}${f.rel}`;
      try {
        const st = await stat(full);
        if (f.dir) await write(tarHeader({ name, type: 'directory', size: 0, mode: st.mode, mtime: st.mtime }));
        else {
          await entry(name, await readFile(full), st.mtime, st.mode);
          files++;
        }
      } catch (err) {
        // deleted since the listing (an upload replaced meanwhile): nothing to keep
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    await write(TAR_END);
    await out.sync();
    await out.close();
    try {
      // a hard link never replaces an existing file, unlike a rename
      await link(partial, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupError(`${file} exists already: name another file`);
      throw err;
    }
  } finally {
    await out.close().catch(() => {});
    await rm(partial, { force: true });
  }
  return { file, bytes, files };
}

/**
 * While the app runs on the embedded database: listens on DATA_DIR/backup.sock for backup
 * requests from `npm run backup` (one JSON line `{"file": "/absolute/path.tar"}`, answered by
 * one JSON line `{"ok": true, "file", "bytes", "files"}` or `{"ok": false, "error"}`). Backups
 * run one at a time; the app keeps serving meanwhile (queries wait only while the database is
 * copied). Does nothing on PostgreSQL. A socket that cannot be made is a warning, not a failed
 * start: the app runs, and the command says backups need the app stopped.
 * Returns a function that stops listening.
 */
export async function serveBackups(opts: { dataDir: string; database: Database; log: FastifyBaseLogger }): Promise<() => Promise<void>> {
  const { database, log } = opts;
  const dump = database.dump;
  if (database.kind !== 'pglite' || !dump) return async () => {};
  const dataDir = path.resolve(opts.dataDir);
  const socketFile = backupSocketPath(dataDir);
  let queue: Promise<unknown> = Promise.resolve();

  const server = net.createServer((socket) => {
    let input = '';
    socket.setEncoding('utf8');
    const answer = (body: Record<string, unknown>) => socket.end(`${JSON.stringify(body)}\n`);
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      input += chunk;
      const nl = input.indexOf('\n');
      if (nl < 0 && input.length <= 8192) return;
      socket.removeAllListeners('data');
      if (nl < 0) return answer({ ok: false, error: 'request too long' });
      let file: unknown;
      try {
        file = (JSON.parse(input.slice(0, nl)) as { file?: unknown }).file;
      } catch {
        file = undefined;
      }
      if (typeof file !== 'string' || !path.isAbsolute(file)) return answer({ ok: false, error: 'the request names no absolute file path' });
      const run = queue.then(() => writeBackup({ dataDir, dump, file }));
      queue = run.catch(() => {});
      run.then(
        (done) => {
          log.info({ file: done.file, bytes: done.bytes }, 'backup written');
          answer({ ok: true, ...done });
        },
        (err: unknown) => {
          const error = err instanceof Error ? err.message : String(err);
          log.error({ file, err: error }, 'backup failed');
          answer({ ok: false, error });
        },
      );
    });
  });

  try {
    // a socket left by an earlier run (this process holds the data directory, so none listens on it)
    await rm(socketFile, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketFile, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketFile, 0o600);
  } catch (err) {
    server.close();
    log.warn(
      { socket: socketFile, err: (err as Error).message },
      'backups while the app runs are off (the socket could not be made): stop the app to run npm run backup',
    );
    return async () => {};
  }
  server.unref();
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await queue;
  };
}

/** Asks the app holding the data directory for a backup to `file`; rejects with BackupError when no app listens or the backup failed. */
export function requestBackup(dataDir: string, file: string): Promise<{ file: string; bytes: number; files: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(backupSocketPath(dataDir));
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ file })}\n`));
    socket.on('data', (d: string) => {
      reply += d;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') reject(new BackupError('no-listener'));
      else reject(err);
    });
    socket.on('close', () => {
      let body: { ok?: boolean; error?: string; file?: string; bytes?: number; files?: number };
      try {
        body = JSON.parse(reply);
      } catch {
        return reject(new BackupError('the app closed the connection before answering (did it stop?)'));
      }
      if (body.ok) resolve({ file: String(body.file), bytes: Number(body.bytes), files: Number(body.files) });
      else reject(new BackupError(`the app could not write the backup: ${body.error}`));
    });
  });
}

/**
 * Unpacks a backup into `dir` (which must not exist): the files of DATA_DIR there, and the
 * database's dump returned for PGlite to load (`openPglite(..., { loadDataDir })`).
 */
export async function unpackBackup(file: string, dir: string): Promise<{ manifest: Manifest; pgdata: Blob; files: number }> {
  if (!existsSync(file)) throw new BackupError(`${file}: no such file`);
  await mkdir(dir, { recursive: false });
  // a backup this app wrote is plain tar; one compressed afterwards (gzip) is read as well
  const head = Buffer.alloc(2);
  const fh = await open(file, 'r');
  await fh.read(head, 0, 2, 0);
  await fh.close();
  const raw = createReadStream(file);
  const source = head[0] === 0x1f && head[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  let manifest: Manifest | undefined;
  let pgdata: Blob | undefined;
  let files = 0;
  try {
    for await (const entry of readTar(source)) {
      if (!manifest) {
        if (entry.name !== MANIFEST_ENTRY) throw new BackupError(`${file} is not a Kindling backup (it does not start with ${MANIFEST_ENTRY})`);
        const chunks: Buffer[] = [];
        for await (const c of entry.body()) chunks.push(c);
        manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Manifest;
        if (manifest.app !== 'kindling' || manifest.format !== BACKUP_FORMAT)
          throw new BackupError(`${file} is a backup of format ${manifest.format}, which this version cannot read`);
        continue;
      }
      if (entry.name === PGDATA_ENTRY) {
        const chunks: Buffer[] = [];
        for await (const c of entry.body()) chunks.push(c);
        // chunks read from a file are plain ArrayBuffer views
        pgdata = new Blob(chunks as Uint8Array<ArrayBuffer>[]);
        continue;
      }
      const rel = entry.name.startsWith(FILES_PREFIX) ? entry.name.slice(FILES_PREFIX.length) : '';
      const parts = rel.split('/');
      if (!rel || parts.some((p) => p === '' || p === '.' || p === '..') || leftOutOfBackup(parts[0]))
        throw new BackupError(`${file} holds an entry a backup never has: ${entry.name}`);
      const target = path.join(dir, ...parts);
      if (entry.type === 'directory') {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      const out = await open(target, 'wx', entry.mode & 0o777 || 0o600);
      try {
        for await (const c of entry.body()) await out.write(c);
      } finally {
        await out.close();
      }
      files++;
    }
  } catch (err) {
    raw.destroy();
    if (err instanceof TarFormatError) throw new BackupError(`${file} is damaged or not a backup: ${err.message}`);
    throw err;
  }
  if (!manifest || !pgdata) throw new BackupError(`${file} is not a complete Kindling backup (no ${manifest ? PGDATA_ENTRY : MANIFEST_ENTRY})`);
  return { manifest, pgdata, files };
}
