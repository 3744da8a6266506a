import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../config';
import { BackupError, BACKUPS_DIR, fileTime, SET_ASIDE_PREFIX, SOCKET_NAME, STAGING_PREFIX, unpackBackup } from '../db/backup';
import { DataDirInUseError, lockDataDir, openPglite, rowsOf } from '../db/client';

/**
 * `npm run restore -- FILE`: puts a backup made by `npm run backup` in place of DATA_DIR's data.
 * Only while nothing uses the data directory: it holds the directory's lock throughout, so a
 * running app makes it stop before it changes anything, and an app started meanwhile waits for
 * nothing but fails to start. The backup is unpacked and its database opened first (in
 * DATA_DIR/.restore-<time>); only then is the current data (the database, uploads, keys: all
 * but the backups folder) moved into DATA_DIR/before-restore-<time>, renamed, never deleted,
 * and the backup's moved into place. The app applies newer migrations when it next starts.
 */
const USAGE = 'Usage: npm run restore -- FILE';

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0].startsWith('-')) {
    console.error(USAGE);
    process.exit(2);
  }
  const file = path.resolve(args[0]);
  const config = loadConfig();
  if (config.databaseUrl) {
    console.error(
      'DATABASE_URL is set: restore PostgreSQL with pg_restore or from a base backup (README, Backups); this command restores the embedded database.',
    );
    process.exit(1);
  }
  const dataDir = config.dataDir;
  const pgDir = path.join(dataDir, 'pg');
  if (!existsSync(file)) throw new BackupError(`${file}: no such file`);

  let unlock: () => void;
  try {
    unlock = lockDataDir(pgDir);
  } catch (err) {
    if (err instanceof DataDirInUseError)
      throw new BackupError(
        `Kindling (pid ${err.pid}) is using ${dataDir}: stop it first. A restore replaces the data directory, so it only runs while nothing uses it; nothing was changed.`,
      );
    throw err;
  }
  const stamp = fileTime();
  const staging = path.join(dataDir, `${STAGING_PREFIX}${stamp}`);
  const aside = path.join(dataDir, `${SET_ASIDE_PREFIX}${stamp}`);
  try {
    let unpacked: Awaited<ReturnType<typeof unpackBackup>>;
    let accounts: number;
    try {
      unpacked = await unpackBackup(file, staging);
      // the database opens (PGlite finishes what the dump caught mid-way) before anything is replaced
      const restored = await openPglite(path.join(staging, 'pg'), { loadDataDir: unpacked.pgdata });
      try {
        accounts = Number(rowsOf<{ n: number }>(await restored.db.execute(sql`select count(*)::int as n from users`))[0]?.n ?? 0);
      } finally {
        await restored.close();
      }
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }

    // what is there now, set aside: everything but the lock (held here), the backups and earlier leftovers
    const current = (await readdir(dataDir)).filter(
      (name) => name !== 'pg.lock' && name !== BACKUPS_DIR && name !== SOCKET_NAME && !name.startsWith(SET_ASIDE_PREFIX) && !name.startsWith(STAGING_PREFIX),
    );
    if (current.length) {
      await mkdir(aside);
      for (const name of current) await rename(path.join(dataDir, name), path.join(aside, name));
    }
    for (const name of await readdir(staging)) {
      if (name === 'pg.lock') continue;
      await rename(path.join(staging, name), path.join(dataDir, name));
    }
    await rm(staging, { recursive: true, force: true });
    await rm(path.join(dataDir, SOCKET_NAME), { force: true });
    console.log(
      `Restored ${file} (taken ${unpacked.manifest.createdAt}: ${accounts} accounts, ${unpacked.files} files) into ${dataDir}.` +
        (current.length ? ` The data it replaced is in ${aside}: delete that once the app runs as it should.` : ''),
    );
  } finally {
    unlock();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof BackupError ? err.message : err);
  process.exit(1);
});
