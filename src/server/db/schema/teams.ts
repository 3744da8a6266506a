import { sql } from 'drizzle-orm';
import { check, index, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, GIN_NO_PENDING, id, tsvector, updatedAt } from './columns';
import { projects } from './projects';
import { users } from './users';
import { TEAM_MEMBER_STATUSES, TEAM_ROLES } from '../../../shared/constants';

export const teamRole = pgEnum('team_role', TEAM_ROLES);

/**
 * invited (the owner or a manager invited the person) -> active when they accept;
 * requested (the person asked to join) -> active when the owner accepts.
 * Only active members count.
 */
export const teamMemberStatus = pgEnum('team_member_status', TEAM_MEMBER_STATUSES);

/**
 * A team, optionally attached to a project. The owner is also an active `manager` row in
 * team_members (written together with the team).
 *
 * Delete behaviour: no money hangs off a team, so deleting the owner deletes the team and its
 * memberships (CASCADE); deleting the project only detaches the team (SET NULL).
 */
export const teams = pgTable(
  'teams',
  {
    id: id(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** "Looking for" tags. */
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'set null' }),
    imageUrl: text('image_url'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // immutable_array_to_string: see campaigns.ts.
    searchVector: tsvector('search_vector').generatedAlwaysAs(
      sql`setweight(to_tsvector('english', coalesce(name, '')), 'A') || setweight(to_tsvector('english', immutable_array_to_string(tags, ' ')), 'B') || setweight(to_tsvector('english', coalesce(description, '')), 'C')`,
    ),
  },
  (t) => [
    check('teams_name_not_blank', sql`length(btrim(${t.name})) > 0`),
    index('teams_created_id_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('teams_owner_created_idx').on(t.ownerId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('teams_project_idx').on(t.projectId),
    index('teams_search_idx').using('gin', t.searchVector).with(GIN_NO_PENDING),
    index('teams_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')).with(GIN_NO_PENDING),
    index('teams_tags_idx').using('gin', t.tags).with(GIN_NO_PENDING),
  ],
);

/** At most one membership row per (team, person), whatever its status. */
export const teamMembers = pgTable(
  'team_members',
  {
    id: id(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: teamRole('role').notNull().default('member'),
    status: teamMemberStatus('status').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('team_members_team_user_key').on(t.teamId, t.userId), index('team_members_user_idx').on(t.userId)],
);
