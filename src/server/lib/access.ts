import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { isAdmin } from '../../shared/roles';
import type { Actor } from '../deps';
import { conflict, forbidden, unauthorized } from './errors';

/**
 * Who may do what, and who may see which item: the one place these rules are spelled. Services,
 * list queries, counts, searches, suggestions and page marks ask here; nothing else writes
 * `type <> 'adult'` or `ownerId === user.id || isAdmin(user)`.
 *
 * An item (campaign or project) has an *audience*, kept by the database in the generated column
 * `audience` (its expression is `AUDIENCE_SQL` below, written into the schema and the
 * migrations), so an index, a trigger and a count can use it as it is:
 * - `public`: everyone sees it;
 * - `adult`: people with adult access see it;
 * - `draft`: not released yet (a draft, or one scheduled for release): nobody sees it by its
 *   audience (admins neither), so to everyone but its owner it does not exist.
 * Its owner sees it whatever its audience. The other kinds follow from these: a team and a
 * profile are public (a team's project shows only where the project is visible), a comment is
 * seen where its campaign is, a donation by its donor, the campaign's owner and admins, a payout
 * by the campaign's owner and admins, a dispute by who raised it and admins, an update's text where its
 * campaign is seen when it is public, else by the owner, admins and the campaign's backers.
 * A new state of an item is a new audience: it is added here (the expression, `audienceOf`, `audiencesSeen`,
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

/** A signed-in caller who owns the thing (401 signed out, 403 with `text` for others). */
export function requireOwner(actor: Actor, ownerId: string | null | undefined, text: string = M.notOwner) {
  const { user } = requireUser(actor);
  if (!isOwner(user, ownerId)) throw forbidden(text);
  return user;
}

/** Whether this person owns the thing. */
export function isOwner(user: { id: string } | null | undefined, ownerId: string | null | undefined): boolean {
  return user != null && ownerId != null && user.id === ownerId;
}

/** Whether an account is an admin (the flag or the role): what the admin checks above ask. */
export function isAdminAccount(u: { isAdmin?: boolean | null; role?: string | null } | null | undefined): boolean {
  return isAdmin(u);
}

/** `isAdminAccount` in SQL, over the users table (or its alias): the admin console's role filter. */
export function adminAccountSql(u: { isAdmin: AnyColumn; role: AnyColumn }): SQL {
  return sql`(${u.isAdmin} or ${u.role} = 'admin')`;
}

/** Whether this person owns the thing or is an admin. */
export function isOwnerOrAdmin(
  user: { id: string; isAdmin?: boolean | null; role?: string | null } | null | undefined,
  ownerId: string | null | undefined,
): boolean {
  if (!user) return false;
  return isOwner(user, ownerId) || isAdmin(user);
}

/** The signed-in owner of the thing or an admin (401 signed out, 403 with `text` for others). */
export function requireOwnerOrAdmin(actor: Actor, ownerId: string | null | undefined, text: string = M.notOwner) {
  const { user } = requireUser(actor);
  if (!isOwnerOrAdmin(user, ownerId)) throw forbidden(text);
  return user;
}

// --- who sees an item ---------------------------------------------------------------------

export const AUDIENCES = ['public', 'adult', 'draft'] as const;
export type Audience = (typeof AUDIENCES)[number];

/**
 * The expression of the generated column `audience` of campaigns and projects (schema and
 * migrations 0025, 0028). `audienceOf` is the same rule in TypeScript; access.test.ts holds the two equal.
 * An item not yet released (`released_at` null: a draft, scheduled or not) is a `draft`, whatever its category.
 */
export const AUDIENCE_SQL = `CASE WHEN "released_at" IS NULL THEN 'draft' WHEN "type" = 'adult' THEN 'adult' ELSE 'public' END`;

/** An item's audience from its columns (the generated column's rule). */
export function audienceOf(item: { type: string; releasedAt: Date | null }): Audience {
  if (item.releasedAt === null) return 'draft';
  return item.type === 'adult' ? 'adult' : 'public';
}

/**
 * The audiences whose items this caller sees (their own items they see whatever the audience).
 * Nobody sees `draft` by audience: a draft is seen by its owner only (admins included: an admin
 * sees items as any signed-in person does, this module gives them no item beyond their audiences).
 */
export function audiencesSeen(actor: Actor): Audience[] {
  return canSeeAdult(actor) ? ['public', 'adult'] : ['public'];
}

/** An item's state as answers carry it: `draft`, `scheduled` (a draft with a release time) or `released`. */
export type Visibility = 'draft' | 'scheduled' | 'released';
export function visibilityOf(item: { releasedAt: Date | null; releaseAt: Date | null }): Visibility {
  if (item.releasedAt !== null) return 'released';
  return item.releaseAt !== null ? 'scheduled' : 'draft';
}

/** Money and support open at release: a draft (even to its owner) takes no donation and no supporter (409 otherwise). */
export function assertReleased(item: { releasedAt: Date | null }): void {
  if (item.releasedAt === null) throw conflict(M.draftClosed);
}

/** Whether the caller has adult access: they see adult items and may create them. */
export function canSeeAdult(actor: Actor): boolean {
  return actor.user?.hasAdultAccess === true;
}

/**
 * What a person is to a draft through its preview circle (issue #30): a member (invited by
 * username, or by email and holding the invite's token) or the holder of a valid link. Found by
 * the previews module (`circleGrant`: the rows, tokens and expiry); what it lets them do is decided here.
 */
export interface CircleGrant {
  role: 'viewer' | 'commenter';
  memberId: string | null;
  linkId: string | null;
}

/**
 * Whether the caller may see this item: its audience is one they see, or it is theirs, or it is a
 * draft and they are in its circle (`circle`; an adult draft still needs adult access). Lists,
 * counts and searches never show a draft but to its owner (`itemVisibleSql`): the circle sees a
 * draft at its own address only.
 */
export function canSeeItem(actor: Actor, item: { type: string; ownerId: string; releasedAt: Date | null }, circle: CircleGrant | null = null): boolean {
  if (audiencesSeen(actor).includes(audienceOf(item)) || (actor.user !== null && actor.user.id === item.ownerId)) return true;
  return circle !== null && audienceOf(item) === 'draft' && (item.type !== 'adult' || canSeeAdult(actor));
}

/** Whether the caller may look for a circle grant at all: signed in (a member by account) or holding a preview token. */
export function mayHoldCircleGrant(actor: Actor): boolean {
  return actor.user !== null || (actor.previews?.length ?? 0) > 0;
}

/** Feedback on a draft: its owner reads it always (also after release, read-only); the circle when the owner lets it. */
export function canReadFeedback(actor: Actor, item: { ownerId: string }, circle: CircleGrant | null, circleReadsFeedback: boolean): boolean {
  return isOwner(actor.user, item.ownerId) || (circle !== null && circleReadsFeedback);
}

/** Feedback is written while the item is a draft, by its owner and the circle's commenters (viewers and link holders read). */
export function canWriteFeedback(actor: Actor, item: { ownerId: string; releasedAt: Date | null }, circle: CircleGrant | null): boolean {
  return item.releasedAt === null && (isOwner(actor.user, item.ownerId) || circle?.role === 'commenter');
}

/** Who is looking, as list queries need it: the audiences they see and their account. */
export interface Viewer {
  audiences: readonly Audience[];
  /** The viewer's account id (or a placeholder of a statement built once), null when signed out. */
  userId: unknown;
  /** Whether the viewer is an admin (money and disputes: admins see them all); absent means not. */
  admin?: boolean;
}

export function viewerOf(actor: Actor): Viewer {
  return { audiences: audiencesSeen(actor), userId: actor.user?.id ?? null, admin: isAdmin(actor.user) };
}

/** The audiences an item of this category can have (`audienceOf`, released or not). */
export function audiencesOfCategory(category: string): Audience[] {
  return [...new Set([audienceOf({ type: category, releasedAt: new Date(0) }), audienceOf({ type: category, releasedAt: null })])];
}

/**
 * The viewer of a list narrowed to one category (none: as they are): only the audiences that
 * category's items can have. Seen through `itemVisibleSql`, a visitor's list of adult items is
 * then `false` at once, and a person without adult access finds only their own there, by the
 * owner's index. Otherwise PostgreSQL, which cannot tell that `audience = 'public'` rules out
 * `type = 'adult'`, walked a whole sort's index looking for them (about 250 ms at 100,000 campaigns).
 */
export function viewerOfCategory(viewer: Viewer, category: string | undefined): Viewer {
  if (category === undefined) return viewer;
  const possible = audiencesOfCategory(category);
  return { ...viewer, audiences: viewer.audiences.filter((a) => possible.includes(a)) };
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
export function itemVisibleSql(viewer: Viewer, t: { audience: AnyColumn | SQL; ownerId: AnyColumn | SQL }): SQL {
  const list = sql.raw(viewer.audiences.map((a) => `'${a}'`).join(', '));
  const seen = viewer.audiences.length === 0 ? sql`false` : viewer.audiences.length === 1 ? sql`${t.audience} = ${list}` : sql`${t.audience} in (${list})`;
  if (viewer.audiences.length === AUDIENCES.length || viewer.userId === null) return sql`(${seen})`;
  return sql`(${seen} or ${t.ownerId} = ${viewer.userId}::uuid)`;
}

/**
 * `itemVisibleSql` for a statement written out by hand (the donation's one-statement path): over
 * the item alias `alias`, with the viewer's audiences as a text[] parameter and their account (or
 * null) as a uuid parameter, given by their placeholders (`$2`, `$3`).
 */
export function itemVisibleText(alias: string, audiencesParam: string, userIdParam: string): string {
  return `(${alias}.audience = any(${audiencesParam}::text[]) or ${alias}.owner_id = ${userIdParam}::uuid)`;
}

/** The adult category is only for people with adult access (403 otherwise). */
export function assertCategoryAllowed(user: { hasAdultAccess: boolean }, type: string | undefined): void {
  if (type === 'adult' && !user.hasAdultAccess) throw forbidden(M.adultNotAllowed);
}

// --- teams and profiles -------------------------------------------------------------------

/** A team is public: everyone sees every team (its project is another matter: `canSeeTeamProject`). */
export function canSeeTeam(_actor: Actor, _team: { ownerId: string }): boolean {
  return true;
}

/** `canSeeTeam` in SQL: every team. */
export function teamVisibleSql(_viewer: Viewer): SQL {
  return sql`true`;
}

/** Whether a team's project (none, or its type and owner) is shown to this caller: only when the project itself is visible to them. */
export function canSeeTeamProject(actor: Actor, project: { type: string; ownerId: string; releasedAt: Date | null } | null): boolean {
  return project !== null && canSeeItem(actor, project);
}

/** `canSeeTeamProject` in SQL, over the team's project left-joined (or its alias): false when there is none. */
export function teamProjectVisibleSql(viewer: Viewer, p: { audience: AnyColumn; ownerId: AnyColumn }): SQL {
  return sql`coalesce(${itemVisibleSql(viewer, p)}, false)`;
}

/** A profile (what anyone may see of a person) is public. */
export function canSeeProfile(_actor: Actor, _profile: { id: string }): boolean {
  return true;
}

/** `canSeeProfile` in SQL: every person. */
export function profileVisibleSql(_viewer: Viewer): SQL {
  return sql`true`;
}

// --- what hangs on a campaign ---------------------------------------------------------------

/**
 * A table of items under an alias, by its SQL names: the schema's tables take `AUDIENCE_SQL` from
 * this module, so it cannot import them back.
 */
function itemAlias(table: 'campaigns' | 'projects', as: string) {
  const col = (name: string) => sql.raw(`"${as}"."${name}"`);
  return { from: sql.raw(`"${table}" as "${as}"`), id: col('id'), audience: col('audience'), ownerId: col('owner_id'), tags: col('tags') };
}
const commentCampaign = itemAlias('campaigns', 'access_comment_campaign');

/** A comment is seen where its campaign is (the campaign's type and owner). */
export function canSeeComment(actor: Actor, campaign: { type: string; ownerId: string; releasedAt: Date | null }): boolean {
  return canSeeItem(actor, campaign);
}

/** `canSeeComment` in SQL, over the comments table (or its alias). */
export function commentVisibleSql(viewer: Viewer, c: { campaignId: AnyColumn }): SQL {
  return sql`exists (select 1 from ${commentCampaign.from} where ${commentCampaign.id} = ${c.campaignId} and ${itemVisibleSql(viewer, commentCampaign)})`;
}

/** A comment is deleted by its author, the campaign's owner or an admin. */
export function canDeleteComment(
  user: { id: string; isAdmin?: boolean | null; role?: string | null },
  authorId: string,
  campaignOwnerId: string | null | undefined,
): boolean {
  return isOwner(user, authorId) || isOwnerOrAdmin(user, campaignOwnerId);
}

const moneyCampaign = itemAlias('campaigns', 'access_money_campaign');

/** The campaign of `campaignId` is owned by the viewer (SQL). */
function ownsCampaignSql(viewer: Viewer, campaignId: AnyColumn): SQL {
  return sql`exists (select 1 from ${moneyCampaign.from} where ${moneyCampaign.id} = ${campaignId} and ${moneyCampaign.ownerId} = ${viewer.userId}::uuid)`;
}

/** A donation is seen by its donor, the campaign's owner and admins (a guest's donation by the owner and admins). */
export function canSeeDonation(actor: Actor, donation: { donorId: string | null; campaignOwnerId: string }): boolean {
  return isOwner(actor.user, donation.donorId) || isOwnerOrAdmin(actor.user, donation.campaignOwnerId);
}

/** `canSeeDonation` in SQL, over the donations table (or its alias). */
export function donationVisibleSql(viewer: Viewer, d: { donorId: AnyColumn; campaignId: AnyColumn }): SQL {
  if (viewer.admin) return sql`true`;
  if (viewer.userId === null) return sql`false`;
  // a guest's donation has no donor: null there, so the condition is never null
  return sql`(coalesce(${d.donorId} = ${viewer.userId}::uuid, false) or ${ownsCampaignSql(viewer, d.campaignId)})`;
}

/** A payout is seen by the campaign's owner and admins (only the owner requests one: `requireOwner`). */
export function canSeePayout(actor: Actor, payout: { campaignOwnerId: string }): boolean {
  return isOwnerOrAdmin(actor.user, payout.campaignOwnerId);
}

/** `canSeePayout` in SQL, over the payouts table (or its alias). */
export function payoutVisibleSql(viewer: Viewer, p: { campaignId: AnyColumn }): SQL {
  if (viewer.admin) return sql`true`;
  if (viewer.userId === null) return sql`false`;
  return ownsCampaignSql(viewer, p.campaignId);
}

/** A dispute is seen by who raised it and admins (the campaign's owner hears of one by email, never who raised it). */
export function canSeeDispute(actor: Actor, dispute: { userId: string }): boolean {
  return isOwnerOrAdmin(actor.user, dispute.userId);
}

/** `canSeeDispute` in SQL, over the disputes table (or its alias). */
export function disputeVisibleSql(viewer: Viewer, d: { userId: AnyColumn }): SQL {
  if (viewer.admin) return sql`true`;
  if (viewer.userId === null) return sql`false`;
  return sql`${d.userId} = ${viewer.userId}::uuid`;
}

/**
 * A dispute that holds a campaign's payouts may be raised by those with a stake: the campaign's
 * owner, an admin, or (`hasStake`, asked only when needed: the campaign's donors and supporters).
 */
export async function mayHoldPayouts(actor: Actor, campaignOwnerId: string, hasStake: () => Promise<boolean>): Promise<boolean> {
  return isOwnerOrAdmin(actor.user, campaignOwnerId) || (await hasStake());
}

// --- updates to backers (#33) ---------------------------------------------------------------

const updateCampaign = itemAlias('campaigns', 'access_update_campaign');

/**
 * Whether the viewer backs the campaign of `campaignId` (SQL): a standing donation of theirs to it
 * (`campaign_donors`, gifts > 0: a succeeded donation not refunded) or a confirmed support, by
 * their account or, once verified, by their account's email (what they gave or supported as a
 * guest). False when signed out. The services ask it for one campaign (`canSeeUpdate`'s `isBacker`).
 */
export function backerSql(viewer: Viewer, campaignId: AnyColumn | SQL): SQL {
  if (viewer.userId === null) return sql`false`;
  const email = sql`(select lower(bu.email) from users bu where bu.id = ${viewer.userId}::uuid and bu.email_verified_at is not null)`;
  return sql`(exists (select 1 from campaign_donors bd where bd.campaign_id = ${campaignId} and bd.gifts > 0
      and (bd.donor_key = 'u:' || ${viewer.userId}::uuid::text or bd.donor_key = 'e:' || ${email}))
    or exists (select 1 from supports bs where bs.campaign_id = ${campaignId} and bs.confirmed_at is not null
      and (bs.user_id = ${viewer.userId}::uuid or bs.email = ${email})))`;
}

/**
 * Who reads an update's text and images: whoever sees its campaign (`canSeeItem`: a draft's
 * updates are its owner's only), when it is public, or they own the campaign, are an admin, or
 * back it (`isBacker`: `backerSql` for this campaign). Anyone else who sees the campaign gets a
 * backers-only update as a locked teaser (its title and dates).
 */
export function canSeeUpdate(
  actor: Actor,
  campaign: { type: string; ownerId: string; releasedAt: Date | null },
  update: { audience: 'public' | 'backers' },
  isBacker: boolean,
): boolean {
  if (!canSeeItem(actor, campaign)) return false;
  return update.audience === 'public' || isOwnerOrAdmin(actor.user, campaign.ownerId) || isBacker;
}

/** An update everyone may read for good: public, on a released campaign (its pictures need no gate). */
export function isUpdateOpenToAll(update: { audience: 'public' | 'backers'; releasedAt: Date | null }): boolean {
  return update.audience === 'public' && update.releasedAt !== null;
}

/**
 * Whether an uploaded file (its address, `/uploads/<key>`) is shown by something public for good:
 * the cover or gallery of a released campaign or project (a release is never undone), a person's
 * picture or a team's cover. Such a file may be copied where anyone reads it (object storage's
 * public prefix, storage/serve.ts); a draft's images, unplaced uploads and the pictures of comments
 * and updates never are.
 */
export function imagePublicForGoodSql(url: string): SQL {
  const has = sql`jsonb_build_array(jsonb_build_object('url', ${url}::text))`;
  return sql`(exists (select 1 from campaigns where released_at is not null and (image_url = ${url} or images @> ${has}))
    or exists (select 1 from projects where released_at is not null and (image_url = ${url} or images @> ${has}))
    or exists (select 1 from users where image_url = ${url})
    or exists (select 1 from teams where image_url = ${url}))`;
}

/** `canSeeUpdate` in SQL, over the campaign_updates table (or its alias). */
export function updateVisibleSql(viewer: Viewer, u: { campaignId: AnyColumn; audience: AnyColumn }): SQL {
  const campaignSeen = sql`exists (select 1 from ${updateCampaign.from} where ${updateCampaign.id} = ${u.campaignId} and ${itemVisibleSql(viewer, updateCampaign)})`;
  if (viewer.admin) return sql`(${campaignSeen})`;
  if (viewer.userId === null) return sql`(${u.audience} = 'public' and ${campaignSeen})`;
  const owns = sql`exists (select 1 from ${updateCampaign.from} where ${updateCampaign.id} = ${u.campaignId} and ${updateCampaign.ownerId} = ${viewer.userId}::uuid)`;
  return sql`(${campaignSeen} and (${u.audience} = 'public' or ${owns} or ${backerSql(viewer, u.campaignId)}))`;
}

// --- tag suggestions ----------------------------------------------------------------------

/**
 * A tag is suggested to a viewer only when something they may see carries it: a team or a
 * person (public), or a campaign or project visible to them. `tag_usage` counts every item
 * whatever its audience, so for a viewer who does not see every audience this asks the items'
 * GIN indexes (tags @> array[tag]) whether a visible one carries the tag. (The cheaper form is a
 * `tag_usage` kept per audience: see the note of #29.)
 */
export function tagVisibleSql(viewer: Viewer, tag: AnyColumn): SQL | undefined {
  if (viewer.audiences.length === AUDIENCES.length) return undefined;
  const item = (table: 'campaigns' | 'projects') => {
    const t = itemAlias(table, `access_tag_${table}`);
    return sql`exists (select 1 from ${t.from} where ${t.tags} @> array[${tag}]::text[] and ${itemVisibleSql(viewer, t)})`;
  };
  const open = (table: 'teams' | 'users') => sql`exists (select 1 from ${sql.raw(`"${table}"`)} where "tags" @> array[${tag}]::text[])`;
  return sql`(${item('campaigns')} or ${item('projects')} or ${open('teams')} or ${open('users')})`;
}
