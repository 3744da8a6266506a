import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, GIN_NO_PENDING, id, ts, tsvector, updatedAt } from './columns';

export const userRole = pgEnum('user_role', ['user', 'admin']);

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Normalised: trimmed and lower-cased before it is stored. */
    email: text('email').notNull(),
    /** Lower-case `[a-z0-9_.-]{3,32}`, unique; optional. */
    username: text('username'),
    phone: text('phone'),
    name: text('name'),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    imageUrl: text('image_url'),
    role: userRole('role').notNull().default('user'),
    isAdmin: boolean('is_admin').notNull().default(false),
    hasAdultAccess: boolean('has_adult_access').notNull().default(false),
    passwordHash: text('password_hash').notNull(),
    emailVerifiedAt: ts('email_verified_at'),
    phoneVerifiedAt: ts('phone_verified_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    searchVector: tsvector('search_vector').generatedAlwaysAs(
      sql`setweight(to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(username, '')), 'A') || setweight(to_tsvector('simple', immutable_array_to_string(tags, ' ')), 'B')`,
    ),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    uniqueIndex('users_username_key').on(t.username),
    check('users_email_lower', sql`${t.email} = lower(${t.email})`),
    check('users_username_format', sql`${t.username} ~ '^[a-z0-9_.-]{3,32}$'`),
    index('users_created_id_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('users_search_idx').using('gin', t.searchVector).with(GIN_NO_PENDING),
    index('users_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')).with(GIN_NO_PENDING),
    index('users_username_trgm_idx').using('gin', t.username.op('gin_trgm_ops')).with(GIN_NO_PENDING),
    index('users_tags_idx').using('gin', t.tags).with(GIN_NO_PENDING),
  ],
);

/**
 * Sessions as in Lucia's current guide: the token given to the browser is `<id>.<secret>`;
 * only the id and the SHA-256 of the secret are stored, and the secret is compared in
 * constant time.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    secretHash: text('secret_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    lastUsedAt: ts('last_used_at').notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

export const oneTimeTokenPurpose = pgEnum('one_time_token_purpose', ['verify_email', 'reset_password', 'guest_support']);

/** Emailed single-use tokens; only the SHA-256 of the token is stored. */
export const oneTimeTokens = pgTable(
  'one_time_tokens',
  {
    id: id(),
    purpose: oneTimeTokenPurpose('purpose').notNull(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The address the token was sent to (guest supporters have no account). */
    email: text('email').notNull(),
    /** What the token confirms when it is not the user itself (for example a guest support). */
    subjectId: uuid('subject_id'),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('one_time_tokens_hash_key').on(t.tokenHash), index('one_time_tokens_user_idx').on(t.userId, t.purpose)],
);

/** Fixed-window counters shared by every app process (login, register, password reset...). */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: ts('window_start').notNull(),
  count: integer('count').notNull(),
});
