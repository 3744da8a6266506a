import { sql } from 'drizzle-orm';
import { check, index, integer, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { users } from './users';

export const imageKind = pgEnum('image_kind', ['cover', 'gallery', 'avatar']);

/**
 * Every uploaded (re-encoded) image. storage_key is the file's key in the storage (a path
 * under the uploads directory by default); url is where it is served (`/uploads/...`).
 * Lets the API check that an image URL sent with a form was uploaded by that user.
 * Rows go with their owner's account (CASCADE); the files are removed by the storage code.
 */
export const images = pgTable(
  'images',
  {
    id: id(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull(),
    url: text('url').notNull(),
    kind: imageKind('kind').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    bytes: integer('bytes').notNull(),
    contentType: text('content_type').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('images_storage_key_key').on(t.storageKey),
    uniqueIndex('images_url_key').on(t.url),
    index('images_owner_created_idx').on(t.ownerId, t.createdAt.desc().nullsFirst()),
    check('images_dimensions_positive', sql`${t.width} > 0 AND ${t.height} > 0`),
    check('images_bytes_positive', sql`${t.bytes} > 0`),
  ],
);
