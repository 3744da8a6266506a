import { buildApp } from './app';
import { ensureClientBuilt } from './build-client';
import { ConfigError, loadConfig } from './config';
import { serveBackups } from './db/backup';
import { DatabaseUnavailableError, openCheckedDatabase } from './db/client';

/**
 * `npm start`: opens and checks the database (PGlite under DATA_DIR, or DATABASE_URL), applies
 * migrations, builds the client if it is missing or stale, and serves everything on PORT.
 * A database that cannot be reached stops the start with one line (where and why) and exit
 * code 1, before any time goes into building the client.
 * `npm run dev` (--dev): the same with Vite's middleware and hot reload.
 */
async function main() {
  const dev = process.argv.includes('--dev');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env, { dev });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  let database: Awaited<ReturnType<typeof openCheckedDatabase>>;
  try {
    database = await openCheckedDatabase({
      databaseUrl: config.databaseUrl,
      directDatabaseUrl: config.directDatabaseUrl,
      prepare: config.databasePrepare,
      dataDir: config.dataDir,
    });
  } catch (err) {
    if (err instanceof DatabaseUnavailableError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  await database.migrate();

  if (!dev) await ensureClientBuilt();

  const app = await buildApp({ config, db: database.db, client: dev ? 'dev' : 'built' });
  app.log.info(`database: ${database.describe}`);
  await serveBackups({ dataDir: config.dataDir, database, log: app.log });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, shutting down`);
    const force = setTimeout(() => {
      app.log.error('shutdown took too long, exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Kindling is running at ${config.appUrl}${dev ? ' (dev mode, hot reload)' : ''}`);
  // monthly charges and reminders, hourly by default (JOBS=off leaves them to other processes)
  if (config.jobs) app.jobs.start();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
