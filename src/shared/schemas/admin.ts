import { z } from './zod';
import { M } from '../messages';
import { ListQuery } from './campaigns';
import { IdSchema, text } from './common';

// ---- Stored tokens (secrets) ----

export const TokenNameSchema = text({ error: M.tokenNameRequired })
  .trim()
  .min(1, M.tokenNameRequired)
  .max(100, M.tokenNameTooLong)
  .regex(/^[A-Za-z0-9_.:-]+$/, M.tokenNameInvalid);

/** The secret itself: kept as typed (not trimmed), never empty; encrypted before it is stored. */
export const TokenValueSchema = text({ error: M.tokenValueRequired })
  .max(10_000, M.tokenValueTooLong)
  .refine((v) => v.trim() !== '', { message: M.tokenValueRequired });

export const StoreTokenInput = z.object({ name: TokenNameSchema, value: TokenValueSchema });
export type StoreTokenInput = z.input<typeof StoreTokenInput>;

/** A stored token as every answer shows it: never its value. */
export const StoredTokenSchema = z.object({
  name: z.string(),
  createdAt: z.date(),
  /** When the value was last replaced (the creation time until then). */
  updatedAt: z.date(),
});
export type StoredTokenDto = z.infer<typeof StoredTokenSchema>;

export const StoreTokenResult = StoredTokenSchema.extend({
  /** True when a token of that name already existed and its value was replaced. */
  replaced: z.boolean(),
});
export type StoreTokenResult = z.infer<typeof StoreTokenResult>;

export const StoredTokensSchema = z.array(StoredTokenSchema);

// ---- Users ----

export const ADMIN_ROLE_FILTERS = ['all', 'admin', 'user'] as const;

export const AdminUsersQuery = ListQuery.pick({ q: true, page: true, limit: true }).extend({
  /** all (the default; also an empty value), admin or user; any case. */
  role: text({ error: M.adminRoleFilterInvalid })
    .trim()
    .toLowerCase()
    .optional()
    .transform((v) => v || 'all')
    .pipe(z.enum(ADMIN_ROLE_FILTERS, { error: M.adminRoleFilterInvalid })),
});
export type AdminUsersQuery = z.input<typeof AdminUsersQuery>;

export const AdminUserSchema = z.object({
  _id: z.string(),
  name: z.string().nullable(),
  username: z.string().nullable(),
  email: z.string(),
  phone: z.string().nullable(),
  /** 'admin' when the person is an admin (the isAdmin flag or role admin), else 'user'. */
  role: z.enum(['admin', 'user']),
  isAdmin: z.boolean(),
  /** When the account was made (the console's "joined"). */
  createdAt: z.date(),
});
export type AdminUserDto = z.infer<typeof AdminUserSchema>;

export const AdminUsersPage = z.object({
  items: z.array(AdminUserSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type AdminUsersPage = z.infer<typeof AdminUsersPage>;

export const AdminUserIdParams = z.object({ id: IdSchema });

export const UserHistoryQuery = ListQuery.pick({ limit: true, cursor: true });
export type UserHistoryQuery = z.input<typeof UserHistoryQuery>;

export const HistoryEntrySchema = z.object({
  _id: z.string(),
  /** The kind of record that changed: User, Campaign, Project, Team, TeamMember, Payout, Dispute, StoredToken... */
  modelName: z.string(),
  action: z.enum(['create', 'update', 'delete']),
  /** The changed record's id. */
  key: z.string(),
  /** The names of the changed fields (never their values). */
  fields: z.array(z.string()),
  createdAt: z.date(),
  /** Who made the change; null for the command line, the system, or a deleted account. */
  actor: z.object({ _id: z.string(), username: z.string().nullable(), name: z.string().nullable() }).nullable(),
});
export type HistoryEntryDto = z.infer<typeof HistoryEntrySchema>;

export const UserHistoryPage = z.object({ items: z.array(HistoryEntrySchema), nextCursor: z.string().nullable() });
export type UserHistoryPage = z.infer<typeof UserHistoryPage>;

export const SetAdminInput = z.object({ admin: z.boolean({ error: M.adminFlagRequired }) });
export type SetAdminInput = z.input<typeof SetAdminInput>;
