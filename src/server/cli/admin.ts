import { EmailSchema } from '../../shared/schemas/auth';
import { ConfigError, loadConfig } from '../config';
import { DatabaseUnavailableError, openCheckedDatabase } from '../db/client';
import { setAdmin } from '../modules/users/admin-grant';

/**
 * `npm run admin -- grant EMAIL` makes an existing account an admin; `revoke EMAIL` undoes it.
 * Admins are never made through a public call. On the embedded database, a server running on
 * the same DATA_DIR holds it: the command then stops with one line and changes nothing
 * (db/client.ts, lockDataDir).
 */
const USAGE = 'Usage: npm run admin -- grant EMAIL | revoke EMAIL';

async function main() {
  const [command, rawEmail] = process.argv.slice(2);
  if ((command !== 'grant' && command !== 'revoke') || !rawEmail) {
    console.error(USAGE);
    process.exit(2);
  }
  const email = EmailSchema.safeParse(rawEmail);
  if (!email.success) {
    console.error(`Not an email address: ${rawEmail}`);
    process.exit(2);
  }
  const config = loadConfig();
  const database = await openCheckedDatabase({
    databaseUrl: config.databaseUrl,
    directDatabaseUrl: config.directDatabaseUrl,
    prepare: config.databasePrepare,
    dataDir: config.dataDir,
  });
  try {
    await database.migrate();
    const admin = command === 'grant';
    const updated = await setAdmin(database.db, email.data, admin);
    if (!updated) {
      console.error(`No account with the email ${email.data}. Register it first, then run this again.`);
      process.exitCode = 1;
    } else {
      console.log(admin ? `${email.data} is now an admin.` : `${email.data} is no longer an admin.`);
    }
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof DatabaseUnavailableError ? err.message : err);
  process.exit(1);
});
