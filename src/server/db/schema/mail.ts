import { pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';

export const emailStatus = pgEnum('email_status', ['outbox', 'pending', 'sent', 'failed']);

/**
 * Every message the product sends. Without SMTP configured, messages stay here with status
 * `outbox` (readable in development and tests); with SMTP they go `pending` -> `sent` or `failed`.
 * Only its primary key is indexed: the app reads a row by id (the mailer marks it sent), and
 * every donation writes two rows, so an index by address (once here, read only by tests and the
 * demo seed on small tables) cost each donation two more index entries.
 */
export const emailOutbox = pgTable('email_outbox', {
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
});
