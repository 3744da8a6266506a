import { index, pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';

export const emailStatus = pgEnum('email_status', ['outbox', 'pending', 'sent', 'failed']);

/**
 * Every message the product sends. Without SMTP configured, messages stay here with status
 * `outbox` (readable in development and tests); with SMTP they go `pending` -> `sent` or `failed`.
 */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: id(),
    to: text('to_address').notNull(),
    subject: text('subject').notNull(),
    text: text('text_body').notNull(),
    html: text('html_body'),
    /** What kind of message this is (verify_email, reset_password, ...), for reading the outbox. */
    kind: text('kind').notNull(),
    status: emailStatus('status').notNull().default('outbox'),
    error: text('error'),
    sentAt: ts('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [index('email_outbox_to_idx').on(t.to, t.createdAt.desc().nullsFirst())],
);
