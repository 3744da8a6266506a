import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { M } from '../../../shared/messages';
import type { PublicUsersQuery, UpdateProfileInput } from '../../../shared/schemas/profiles';
import { PublicUserSchema, type PublicUserDto, type UserDto } from '../../../shared/schemas/user';
import { projects, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { conflict, isUniqueViolation, notFound } from '../../lib/errors';
import { changedFields, recordChange } from '../../lib/history';
import { likeEscape, prefixTsQuery, textArray } from '../../lib/listing';
import { suggestPeople } from '../../lib/suggestions';
import { isUuid } from '../../lib/ids';
import { canSeeItem, canSeeProfile, profileVisibleSql, requireOwner, requireUser, viewerOf } from '../../lib/access';
import { toPublicUserDto, toUserDto } from './dto';
import { readerFor } from '../../db/replica';

export const SuggestedUserSchema = PublicUserSchema.extend({ sharedTags: z.array(z.string()) });
export const SuggestedUsersSchema = z.object({ items: z.array(SuggestedUserSchema) });

const publicColumns = { id: users.id, username: users.username, name: users.name, tags: users.tags, imageUrl: users.imageUrl, createdAt: users.createdAt };

export function createUsersService(deps: Deps) {
  const { db } = deps;
  return {
    /** The people directory: search by name or username, filter by tags (all or any), newest first. */
    async listPublic(actor: Actor, query: z.output<typeof PublicUsersQuery>) {
      const { q, tags, match, page, limit } = query;
      const conds: SQL[] = [profileVisibleSql(viewerOf(actor))];
      if (q) {
        const ts = prefixTsQuery(q);
        const like = `%${likeEscape(q)}%`;
        const text = or(ilike(users.name, like), ilike(users.username, like))!;
        conds.push(ts ? or(sql`${users.searchVector} @@ to_tsquery('simple', ${ts})`, text)! : text);
      }
      if (tags.length) conds.push(match === 'all' ? sql`${users.tags} @> ${textArray(tags)}` : sql`${users.tags} && ${textArray(tags)}`);
      const where = and(...conds);
      // an anonymous caller's directory may come from the replica (db/replica.ts)
      const reader = readerFor(deps, actor);
      const [rows, [{ n }]] = await Promise.all([
        reader
          .select(publicColumns)
          .from(users)
          .where(where)
          .orderBy(desc(users.createdAt), desc(users.id))
          .limit(limit)
          .offset((page - 1) * limit),
        reader.select({ n: sql<string>`count(*)` }).from(users).where(where),
      ]);
      return { items: rows.map(toPublicUserDto), total: Number(n), page, limit };
    },

    async getPublic(actor: Actor, id: string): Promise<PublicUserDto> {
      if (!isUuid(id)) throw notFound(M.userNotFound);
      const [u] = await readerFor(deps, actor).select(publicColumns).from(users).where(eq(users.id, id));
      if (!u || !canSeeProfile(actor, u)) throw notFound(M.userNotFound);
      return toPublicUserDto(u);
    },

    /** A person edits their own username, phone, name and tags. */
    async updateProfile(actor: Actor, input: z.output<typeof UpdateProfileInput>): Promise<UserDto> {
      const { user } = requireUser(actor);
      const patch = { username: input.username, phone: input.phone, name: input.name, tags: input.tags };
      const fields = changedFields(user as unknown as Record<string, unknown>, patch);
      if (!fields.length) return toUserDto(user);
      try {
        const updated = await db.transaction(async (tx) => {
          const [row] = await tx
            .update(users)
            .set({ ...patch, updatedAt: new Date() })
            .where(eq(users.id, user.id))
            .returning();
          await recordChange(tx, { modelName: 'User', action: 'update', key: user.id, fields, actorId: user.id });
          return row;
        });
        return toUserDto(updated);
      } catch (err) {
        if (isUniqueViolation(err, 'users_username_key')) throw conflict(M.usernameTaken);
        throw err;
      }
    },

    /** For the project's owner: people whose tags overlap the project's, most shared tags first; never the owner nor anyone blocked either way with them. */
    async suggestedForProject(actor: Actor, projectId: string): Promise<z.infer<typeof SuggestedUsersSchema>> {
      const { user } = requireUser(actor);
      if (!isUuid(projectId)) throw notFound(M.projectNotFound);
      const [project] = await db
        .select({ ownerId: projects.ownerId, tags: projects.tags, type: projects.type, releasedAt: projects.releasedAt })
        .from(projects)
        .where(eq(projects.id, projectId));
      if (!project || !canSeeItem(actor, project)) throw notFound(M.projectNotFound);
      requireOwner(actor, project.ownerId);
      return { items: await suggestPeople(db, { viewer: viewerOf(actor), tags: project.tags, ownerId: project.ownerId, callerId: user.id }) };
    },
  };
}
