import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { isAdmin } from '../../shared/roles';
import type { Actor } from '../deps';
import { forbidden, unauthorized } from './errors';

/**
 * Who may do what, and who may see which item: the one place these rules are spelled. Services,
 * list queries, counts, searches, suggestions and page marks ask here; nothing else writes
 * `type <> 'adult'` or `ownerId === user.id || isAdmin(user)`.
 *
 * An item (campaign or project) has an *audience*, kept by the database in the generated column
 * `audience` (its expression is `AUDIENCE_SQL` below, written into the schema and the
 * migrations), so an index, a trigger and a count can use it as it is:
 * - `public`: everyone sees it;
 * - `adult`: people with adult access see it.
 * Its owner sees it whatever its audience. A new state of an item (a draft shown to named
 * people) is a new audience: it is added here (the expression, `audienceOf`, `audiencesSeen`,
 * `canSeeItem`, `itemVisibleSql`) and in access.test.ts, and every list, count and search follows.
 */

// --- who may act --------------------------------------------------------------------------

/** A signed-in caller (401 'Sign in required' otherwise). */
export function requireUser(actor: Actor) {
  if (!actor.user || !actor.session) throw unauthorized(M.signInRequired);
  return { user: actor.user, session: actor.session };
}

/** A signed-in admin (401 signed out, 403 for everybody else). */
export function requireAdmin(actor: Actor) {
  const { user } = requireUser(actor);
  if (!isAdmin(user)) throw forbidden(M.accessDenied);
  return user;
}

/** Whether this person owns the thing or is an admin. */
export function isOwnerOrAdmin(
  user: { id: string; isAdmin?: boolean | null; role?: string | null } | null | undefined,
  ownerId: string | null | undefined,
): boolean {
  if (!user) return false;
  return (ownerId != null && user.id === ownerId) || isAdmin(user);
}

/** The signed-in owner of the thing or an admin (401 signed out, 403 with `text` for others). */
export function requireOwnerOrAdmin(actor: Actor, ownerId: string | null | undefined, text: string = M.notOwner) {
  const { user } = requireUser(actor);
  if (!isOwnerOrAdmin(user, ownerId)) throw forbidden(text);
  return user;
}

// --- who sees an item ---------------------------------------------------------------------

export const AUDIENCES = ['public', 'adult'] as const;
export type Audience = (typeof AUDIENCES)[number];

/**
 * The expression of the generated column `audience` of campaigns and projects (schema and
 * migration 0025). `audienceOf` is the same rule in TypeScript; access.test.ts holds the two equal.
 */
export const AUDIENCE_SQL = `CASE WHEN "type" = 'adult' THEN 'adult' ELSE 'public' END`;

/** An item's audience from its columns (the generated column's rule). */
export function audienceOf(item: { type: string }): Audience {
  return item.type === 'adult' ? 'adult' : 'public';
}

/** The audiences whose items this caller sees (their own items they see whatever the audience). */
export function audiencesSeen(actor: Actor): Audience[] {
  return canSeeAdult(actor) ? ['public', 'adult'] : ['public'];
}

/** Whether the caller has adult access: they see adult items and may create them. */
export function canSeeAdult(actor: Actor): boolean {
  return actor.user?.hasAdultAccess === true;
}

/** Whether the caller may see this item. */
export function canSeeItem(actor: Actor, item: { type: string; ownerId: string }): boolean {
  return audiencesSeen(actor).includes(audienceOf(item)) || (actor.user !== null && actor.user.id === item.ownerId);
}

/** Who is looking, as list queries need it: the audiences they see and their account. */
export interface Viewer {
  audiences: readonly Audience[];
  /** The viewer's account id (or a placeholder of a statement built once), null when signed out. */
  userId: unknown;
}

export function viewerOf(actor: Actor): Viewer {
  return { audiences: audiencesSeen(actor), userId: actor.user?.id ?? null };
}

/** The key of a viewer's audiences (statements built once per audience set). */
export function audiencesKey(audiences: readonly Audience[]): string {
  return audiences.join('+');
}

/**
 * The SQL condition `canSeeItem` is, over an item table (or its alias): its audience is one the
 * viewer sees, or the viewer owns it. The audiences go into the text as literals (they are this
 * module's constants), so a partial index on `audience = 'public'` serves who sees the public only.
 */
export function itemVisibleSql(viewer: Viewer, t: { audience: AnyColumn; ownerId: AnyColumn }): SQL {
  const list = sql.raw(viewer.audiences.map((a) => `'${a}'`).join(', '));
  const seen = viewer.audiences.length === 1 ? sql`${t.audience} = ${list}` : sql`${t.audience} in (${list})`;
  if (viewer.audiences.length === AUDIENCES.length || viewer.userId === null) return sql`(${seen})`;
  return sql`(${seen} or ${t.ownerId} = ${viewer.userId}::uuid)`;
}

/** The adult category is only for people with adult access (403 otherwise). */
export function assertCategoryAllowed(user: { hasAdultAccess: boolean }, type: string | undefined): void {
  if (type === 'adult' && !user.hasAdultAccess) throw forbidden(M.adultNotAllowed);
}
