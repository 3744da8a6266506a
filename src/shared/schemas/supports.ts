import { z } from './zod';
import { ListQuery } from './campaigns';
import { EmailSchema, TokenSchema } from './auth';

/** Signed in: no body. Signed out: the email the confirmation link goes to. */
export const SupportInput = z.object({ email: EmailSchema.optional() });
export type SupportInput = z.input<typeof SupportInput>;

/** A signed-in person's support (confirmed at once), or its withdrawal. */
export const SupportStateSchema = z.object({ supported: z.boolean(), supporters: z.number() });
export type SupportStateDto = z.infer<typeof SupportStateSchema>;

/** What a guest is told: check the mailbox. */
export const SupportPendingSchema = z.object({ message: z.string() });

export const VerifyGuestParams = z.object({ token: TokenSchema });
export const VerifyGuestSchema = z.object({ message: z.string(), campaignId: z.string() });
export type VerifyGuestDto = z.infer<typeof VerifyGuestSchema>;

export const SupportersQuery = ListQuery.pick({ limit: true, cursor: true }).extend({
  format: z.enum(['json', 'csv'], { error: 'format must be json or csv' }).optional().default('json'),
});
export type SupportersQuery = z.input<typeof SupportersQuery>;

export const SupporterSchema = z.object({
  /** The person's display name, or "Guest". */
  name: z.string(),
  /** A guest's address, masked (j***@example.com); null for account holders. */
  email: z.string().nullable(),
  confirmedAt: z.date(),
});
export type SupporterDto = z.infer<typeof SupporterSchema>;
export const SupporterListSchema = z.object({ items: z.array(SupporterSchema), nextCursor: z.string().nullable() });
