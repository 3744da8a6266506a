import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { BackupError, defaultBackupFile, requestBackup, writeBackup } from '../db/backup';
import { DataDirInUseError, openPglite } from '../db/client';

/**
 * `npm run backup [-- FILE]`: writes a backup of the embedded database and the files of DATA_DIR
 * (uploads, keys) to FILE, by default DATA_DIR/backups/kindling-<time>.tar (db/backup.ts). While
 * the app runs, the app writes it (asked over DATA_DIR/backup.sock) and keeps serving; with the
 * app stopped, this command opens the data directory itself. With DATABASE_URL set it stops:
 * PostgreSQL is backed up with its own tools (README, Backups).
 */
const USAGE = 'Usage: npm run backup [-- FILE]';

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} kB`;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length > 1 || args[0]?.startsWith('-')) {
    console.error(USAGE);
    process.exit(2);
  }
  const config = loadConfig();
  if (config.databaseUrl) {
    console.error(
      'DATABASE_URL is set: back up PostgreSQL with pg_dump, or pg_basebackup with WAL archiving (README, Backups); this command backs up the embedded database.',
    );
    process.exit(1);
  }
  const pgDir = path.join(config.dataDir, 'pg');
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    console.error(`No embedded database in ${pgDir}: nothing to back up (is DATA_DIR right?).`);
    process.exit(1);
  }
  const file = path.resolve(args[0] ?? defaultBackupFile(config.dataDir));
  const started = Date.now();
  let database: Awaited<ReturnType<typeof openPglite>> | undefined;
  try {
    database = await openPglite(pgDir);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    try {
      const done = await requestBackup(config.dataDir, file);
      console.log(
        `Backup written by the running app (pid ${err.pid}): ${done.file} (${size(done.bytes)}, ${done.files} files) in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
      );
      return;
    } catch (e) {
      if (e instanceof BackupError && e.message === 'no-listener')
        throw new BackupError(
          `The embedded database in ${pgDir} is in use by pid ${err.pid}, which takes no backup requests (a command such as seed or admin, or an app without backups): run this again once it has finished.`,
        );
      throw e;
    }
  }
  try {
    const dump = database.dump;
    if (!dump) throw new BackupError('the embedded database cannot be dumped');
    const done = await writeBackup({ dataDir: config.dataDir, dump, file });
    console.log(
      `Backup written (the app was not running): ${done.file} (${size(done.bytes)}, ${done.files} files) in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof BackupError ? err.message : err);
  process.exit(1);
});
