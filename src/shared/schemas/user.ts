import { z } from './zod';

/** The signed-in person's own account: the only place their email and phone appear. */
export const UserSchema = z.object({
  _id: z.string(),
  email: z.string(),
  username: z.string().nullable(),
  phone: z.string().nullable(),
  name: z.string().nullable(),
  tags: z.array(z.string()),
  imageUrl: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  role: z.enum(['user', 'admin']),
  isAdmin: z.boolean(),
  hasAdultAccess: z.boolean(),
  emailVerified: z.boolean(),
  createdAt: z.date(),
});
export type UserDto = z.infer<typeof UserSchema>;

/** What anyone may see of a person: never email, phone or flags. */
export const PublicUserSchema = z.object({
  _id: z.string(),
  username: z.string().nullable(),
  name: z.string().nullable(),
  tags: z.array(z.string()),
  imageUrl: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  createdAt: z.date(),
});
export type PublicUserDto = z.infer<typeof PublicUserSchema>;

export { isAdmin } from '../roles';
