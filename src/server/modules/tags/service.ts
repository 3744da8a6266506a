import { and, desc, gt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { TagSearchQuery } from '../../../shared/schemas/tags';
import { tagUsage } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { tagVisibleSql, viewerOf } from '../../lib/access';
import { likeEscape } from '../../lib/listing';

export function createTagsService(deps: Deps) {
  return {
    /**
     * Tags in use, best matches first: the exact tag, then tags starting with it, then containing
     * it; most used first. Only tags something the caller may see carries (lib/access.ts): a tag
     * of adult items only is no suggestion for people without adult access.
     */
    async search(actor: Actor, query: z.output<typeof TagSearchQuery>): Promise<{ tags: string[] }> {
      const { q, limit } = query;
      const rows = await deps.db
        .select({ tag: tagUsage.tag })
        .from(tagUsage)
        .where(and(gt(tagUsage.uses, 0), q ? sql`${tagUsage.tag} ilike ${`%${likeEscape(q)}%`}` : undefined, tagVisibleSql(viewerOf(actor), tagUsage.tag)))
        .orderBy(...(q ? [desc(sql`${tagUsage.tag} = ${q}`), desc(sql`${tagUsage.tag} like ${`${likeEscape(q)}%`}`)] : []), desc(tagUsage.uses), tagUsage.tag)
        .limit(limit);
      return { tags: rows.map((r) => r.tag) };
    },
  };
}
