import { sql } from 'drizzle-orm';
import { index, jsonb, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ts, updatedAt } from './columns';
import { users } from './users';

/**
 * Named secrets stored by admins, encrypted at rest with AES-256-GCM (key from configuration).
 * ciphertext, iv and auth_tag are base64 text. No call ever returns the value once stored.
 * created_by is SET NULL when that admin's account is deleted.
 */
export const storedTokens = pgTable(
  'stored_tokens',
  {
    id: id(),
    name: text('name').notNull(),
    ciphertext: text('ciphertext').notNull(),
    iv: text('iv').notNull(),
    authTag: text('auth_tag').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    /** Changes when a token of the same name is stored again. */
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('stored_tokens_name_key').on(t.name)],
);

export const jobRunStatus = pgEnum('job_run_status', ['running', 'succeeded', 'failed']);

/**
 * One run of a background job (the subscription cron: job `subscriptions`): start, end, counts
 * (for example `{ charged: 3, failed: 0, reminded: 12 }`) and the error, if any.
 * The "one run at a time" rule is not a constraint here (a crashed process would leave a
 * `running` row behind forever); take a lock (pg_advisory_xact_lock) around the run instead.
 */
export const jobRuns = pgTable(
  'job_runs',
  {
    id: id(),
    job: text('job').notNull(),
    startedAt: ts('started_at').notNull().defaultNow(),
    finishedAt: ts('finished_at'),
    status: jobRunStatus('status').notNull().default('running'),
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default(sql`'{}'::jsonb`),
    error: text('error'),
  },
  (t) => [index('job_runs_job_started_idx').on(t.job, t.startedAt.desc().nullsFirst())],
);
