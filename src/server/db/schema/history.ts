import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { users } from './users';

export const historyAction = pgEnum('history_action', ['create', 'update', 'delete']);

/**
 * Append-only change history: which record of which model changed, how, which fields, and by
 * whom. Field values are never stored (so secrets and passwords cannot leak through it).
 */
export const changeHistory = pgTable(
  'change_history',
  {
    id: id(),
    modelName: text('model_name').notNull(),
    action: historyAction('action').notNull(),
    /** The changed record's id. */
    key: text('key').notNull(),
    fields: text('fields').array().notNull().default(sql`'{}'::text[]`),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    /** The user the change concerns (the record's owner), so an admin can read a person's history. */
    subjectUserId: uuid('subject_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('change_history_subject_idx').on(t.subjectUserId, t.createdAt.desc().nullsFirst()),
    index('change_history_actor_idx').on(t.actorId, t.createdAt.desc().nullsFirst()),
    index('change_history_model_key_idx').on(t.modelName, t.key),
  ],
);
