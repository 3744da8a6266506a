import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` turns changes in src/server/db/schema into a new SQL migration in drizzle/.
// Migrations are applied by the server at start (src/server/db/migrate.ts), never by drizzle-kit.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/server/db/schema/index.ts',
  out: './drizzle',
  strict: true,
});
