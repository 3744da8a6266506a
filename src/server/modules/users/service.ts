import { and, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { M } from '../../../shared/messages';
import { PublicUserSchema } from '../../../shared/schemas/user';
import { projects, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { canSeeAdult } from '../../lib/items';
import { toPublicUserDto } from './dto';

export const SuggestedUserSchema = PublicUserSchema.extend({ sharedTags: z.array(z.string()) });
export const SuggestedUsersSchema = z.object({ items: z.array(SuggestedUserSchema) });

const SUGGESTIONS = 12;

export function createUsersService(deps: Deps) {
  const { db } = deps;
  return {
    /** People whose tags overlap the project's, most shared tags first, never the owner. */
    async suggestedForProject(actor: Actor, projectId: string): Promise<z.infer<typeof SuggestedUsersSchema>> {
      if (!isUuid(projectId)) throw notFound(M.projectNotFound);
      const [project] = await db
        .select({ ownerId: projects.ownerId, tags: projects.tags, type: projects.type })
        .from(projects)
        .where(eq(projects.id, projectId));
      if (!project || (project.type === 'adult' && !canSeeAdult(actor))) throw notFound(M.projectNotFound);
      if (!project.tags.length) return { items: [] };
      const tagsParam = sql`${`{${project.tags.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;
      const shared = sql<string[]>`array(select t from unnest(${users.tags}) t where t = any(${tagsParam}) order by t)`;
      const rows = await db
        .select({ u: { id: users.id, username: users.username, name: users.name, tags: users.tags, imageUrl: users.imageUrl, createdAt: users.createdAt }, shared })
        .from(users)
        .where(and(sql`${users.tags} && ${tagsParam}`, ne(users.id, project.ownerId)))
        .orderBy(sql`cardinality(${shared}) desc`, users.createdAt, users.id)
        .limit(SUGGESTIONS);
      return { items: rows.map((r) => ({ ...toPublicUserDto(r.u), sharedTags: r.shared })) };
    },
  };
}
