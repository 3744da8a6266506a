import type { users } from '../../db/schema';
import { isAdminAccount } from '../../lib/access';
import type { PublicUserDto, UserDto } from '../../../shared/schemas/user';

type UserRow = typeof users.$inferSelect;

/** The person's own account (never the password hash). */
export function toUserDto(u: UserRow): UserDto {
  return {
    _id: u.id,
    email: u.email,
    username: u.username,
    phone: u.phone,
    name: u.name,
    tags: u.tags,
    imageUrl: u.imageUrl,
    avatarUrl: u.imageUrl,
    role: u.role,
    isAdmin: isAdminAccount(u),
    hasAdultAccess: u.hasAdultAccess,
    emailVerified: u.emailVerifiedAt !== null,
    createdAt: u.createdAt,
  };
}

/** What anyone may see of a person. */
export function toPublicUserDto(u: Pick<UserRow, 'id' | 'username' | 'name' | 'tags' | 'imageUrl' | 'createdAt'>): PublicUserDto {
  return {
    _id: u.id,
    username: u.username,
    name: u.name,
    tags: u.tags,
    imageUrl: u.imageUrl,
    avatarUrl: u.imageUrl,
    createdAt: u.createdAt,
  };
}
