import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app';
import { startClientBuild } from './build-client';
import { ConfigError, loadConfig } from './config';
import { serveBackups } from './db/backup';
import { DatabaseUnavailableError, openCheckedDatabase } from './db/client';
import { shutdownOnSignals } from './lifecycle';

/**
 * The server: opens and checks the database (PGlite under DATA_DIR, or DATABASE_URL), applies
 * migrations, builds the client if it is missing or stale, and serves everything on PORT.
 * `npm start` runs it compiled (scripts/start.mjs, dist/server/main.js), the tests from source.
 * A database that cannot be reached stops the start with one line (where and why) and exit
 * code 1, before any time goes into building the client.
 * What the start is doing is said on stdout whatever LOG_LEVEL is: "Creating the database",
 * "Building the client", "Ready at <APP_URL>".
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

  // A new embedded database (DATA_DIR/pg without PostgreSQL's PG_VERSION file, db/client.ts) takes
  // seconds to create: that is said, and a client that needs building builds meanwhile in its own
  // process. Any other database is checked first, so a start that cannot use it fails before
  // building anything.
  const pgDir = path.join(config.dataDir, 'pg');
  const creating = !config.databaseUrl && !existsSync(path.join(pgDir, 'PG_VERSION'));
  if (creating) console.log(`Creating the database in ${pgDir} (embedded PostgreSQL, first start only)...`);
  let client = !dev && creating ? startClientBuild() : null;

  let database: Awaited<ReturnType<typeof openCheckedDatabase>>;
  try {
    database = await openCheckedDatabase({
      databaseUrl: config.databaseUrl,
      directDatabaseUrl: config.directDatabaseUrl,
      prepare: config.databasePrepare,
      dataDir: config.dataDir,
    });
  } catch (err) {
    client?.cancel();
    if (err instanceof DatabaseUnavailableError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  await database.migrate();
  if (creating) console.log('Database created.');

  if (!dev) {
    client ??= startClientBuild();
    try {
      await client?.done;
    } catch (err) {
      console.error((err as Error).message);
      process.exit(1);
    }
  }

  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp({ config, db: database.db, client: dev ? 'dev' : 'built' });
  } catch (err) {
    // a read replica (DATABASE_READ_URL) that cannot be reached: its one line, as for the database
    if (err instanceof DatabaseUnavailableError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  app.log.info(`database: ${database.describe}`);
  await serveBackups({ dataDir: config.dataDir, database, log: app.log });

  // SIGTERM: leave the balancer, drain, close (lifecycle.ts). Dev mode has no balancer to leave,
  // and tsx watch kills a process still running 5 s after the SIGTERM of a reload.
  shutdownOnSignals(app, {
    drainMs: dev ? 0 : config.shutdownDrainMs,
    timeoutMs: config.shutdownTimeoutMs,
    closeDatabase: () => database.close(),
  });

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Kindling is running at ${config.appUrl}${dev ? ' (dev mode, hot reload)' : ''}`);
  console.log(`Ready at ${config.appUrl}`);
  // monthly charges and reminders, hourly by default (JOBS=off leaves them to other processes)
  if (config.jobs) app.jobs.start();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
