import { and, asc, eq, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type {
  CircleDto,
  FeedbackDto,
  FeedbackInput,
  InviteInput,
  JoinInput,
  LinkInput,
  MemberRoleInput,
  PreviewKind,
  PreviewLinkDto,
  PreviewMeDto,
  PreviewMemberDto,
  SettingsInput,
} from '../../../shared/schemas/previews';
import type { DbOrTx, Tx } from '../../db/client';
import { previewFeedback, previewLinks, previewMembers, previewSettings, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { canReadFeedback, canSeeItem, canWriteFeedback, isOwner, mayHoldCircleGrant, requireUser, type CircleGrant } from '../../lib/access';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { previewMail } from '../../mail/preview-templates';
import { circleGrant, itemColumn, itemTable } from './grant';
import { createReleaseNotices } from './notices';
import { hashToken, newToken, previewUrl } from './tokens';

type Out<T extends z.ZodType> = z.output<T>;

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const DAY = 24 * 60 * 60 * 1000;

export const notFoundText = (kind: PreviewKind) => (kind === 'campaign' ? M.campaignNotFound : M.projectNotFound);
const modelOf = (kind: PreviewKind) => (kind === 'campaign' ? 'Campaign' : 'Project');

interface ItemRow {
  id: string;
  title: string;
  type: string;
  ownerId: string;
  releasedAt: Date | null;
}

const memberColumns = {
  id: previewMembers.id,
  userId: previewMembers.userId,
  username: users.username,
  name: users.name,
  email: previewMembers.email,
  guestName: previewMembers.guestName,
  role: previewMembers.role,
  state: previewMembers.state,
  createdAt: previewMembers.createdAt,
  joinedAt: previewMembers.joinedAt,
  firstViewAt: previewMembers.firstViewAt,
  lastViewAt: previewMembers.lastViewAt,
  views: previewMembers.views,
};
type MemberRow = {
  [K in keyof typeof memberColumns]: (typeof memberColumns)[K]['_']['data'] | ((typeof memberColumns)[K]['_']['notNull'] extends true ? never : null);
};

function toMemberDto(r: MemberRow): PreviewMemberDto {
  return {
    _id: r.id,
    user: r.userId ? { _id: r.userId, username: r.username ?? '', name: r.name ?? r.username ?? '' } : null,
    email: r.email,
    guestName: r.guestName,
    role: r.role,
    state: r.state,
    invitedAt: r.createdAt,
    joinedAt: r.joinedAt,
    firstViewAt: r.firstViewAt,
    lastViewAt: r.lastViewAt,
    views: r.views,
  };
}

function toLinkDto(r: typeof previewLinks.$inferSelect, now = Date.now()): PreviewLinkDto {
  return {
    _id: r.id,
    label: r.label,
    state: r.revokedAt ? 'revoked' : r.expiresAt.getTime() <= now ? 'expired' : 'active',
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    revokedAt: r.revokedAt,
    views: r.views,
    lastViewAt: r.lastViewAt,
  };
}

/**
 * The preview circle of a draft campaign or project (issue #30). Who may see the draft is
 * decided by lib/access.ts (`canSeeItem` with the caller's circle grant, found by grant.ts);
 * this service keeps the circle: members and their roles, links, settings, the circle's own view
 * of the draft and its private feedback. Every change is in the change history with who made it
 * (never a token).
 */
export function createPreviewsService(deps: Deps) {
  const { db, config, mailer } = deps;
  const notices = createReleaseNotices(deps);

  async function itemRow(runner: DbOrTx, kind: PreviewKind, id: string, lock = false): Promise<ItemRow | null> {
    if (!isUuid(id)) return null;
    const t = itemTable(kind);
    const q = runner.select({ id: t.id, title: t.title, type: t.type, ownerId: t.ownerId, releasedAt: t.releasedAt }).from(t).where(eq(t.id, id));
    const [row] = lock ? await q.for('update') : await q;
    return row ?? null;
  }

  /** The caller's circle grant on a draft they do not own (none on a released item or their own). */
  async function grantOn(actor: Actor, kind: PreviewKind, item: ItemRow): Promise<CircleGrant | null> {
    if (item.releasedAt !== null || isOwner(actor.user, item.ownerId) || !mayHoldCircleGrant(actor)) return null;
    return circleGrant(deps, actor, kind, item.id);
  }

  /** The item as the caller may see it (lib/access.ts), with their grant; the same 404 as a missing item otherwise. */
  async function seen(actor: Actor, kind: PreviewKind, id: string) {
    const item = await itemRow(db, kind, id);
    if (!item) throw notFound(notFoundText(kind));
    const grant = await grantOn(actor, kind, item);
    if (!canSeeItem(actor, item, grant)) throw notFound(notFoundText(kind));
    return { item, grant };
  }

  /** The owner's item, for their circle: 404 for who may not see it, 403 for the circle, 409 once released when `draftOnly`. */
  async function owned(runner: DbOrTx, actor: Actor, kind: PreviewKind, id: string, draftOnly: boolean) {
    const { user } = requireUser(actor);
    const item = await itemRow(runner, kind, id, draftOnly);
    if (!item) throw notFound(notFoundText(kind));
    if (!isOwner(user, item.ownerId)) {
      if (!canSeeItem(actor, item, await grantOn(actor, kind, item))) throw notFound(notFoundText(kind));
      throw forbidden(M.notOwner);
    }
    if (draftOnly && item.releasedAt !== null) throw conflict(M.previewNotDraft);
    return { user, item };
  }

  async function settingsOf(runner: DbOrTx, kind: PreviewKind, id: string) {
    const [s] = await runner
      .select()
      .from(previewSettings)
      .where(eq(itemColumn(previewSettings, kind), id));
    return s ?? null;
  }

  async function memberDto(runner: DbOrTx, memberId: string): Promise<PreviewMemberDto> {
    const [r] = await runner
      .select(memberColumns)
      .from(previewMembers)
      .leftJoin(users, eq(users.id, previewMembers.userId))
      .where(eq(previewMembers.id, memberId));
    return toMemberDto(r as MemberRow);
  }

  async function memberOf(tx: Tx, kind: PreviewKind, itemId: string, memberId: string) {
    if (!isUuid(memberId)) throw notFound(M.previewMemberNotFound);
    const [m] = await tx
      .select()
      .from(previewMembers)
      .where(and(eq(previewMembers.id, memberId), eq(itemColumn(previewMembers, kind), itemId)))
      .for('update');
    if (!m) throw notFound(M.previewMemberNotFound);
    return m;
  }

  const itemValue = (kind: PreviewKind, id: string) => (kind === 'campaign' ? { campaignId: id } : { projectId: id });

  const service = {
    /** The owner's view of the circle: members with their visits, links, settings and failed lookups. */
    async circle(actor: Actor, kind: PreviewKind, id: string): Promise<CircleDto> {
      await owned(db, actor, kind, id, false);
      const [members, links, settings] = await Promise.all([
        db
          .select(memberColumns)
          .from(previewMembers)
          .leftJoin(users, eq(users.id, previewMembers.userId))
          .where(eq(itemColumn(previewMembers, kind), id))
          .orderBy(asc(previewMembers.createdAt), asc(previewMembers.id)),
        db
          .select()
          .from(previewLinks)
          .where(eq(itemColumn(previewLinks, kind), id))
          .orderBy(asc(previewLinks.createdAt), asc(previewLinks.id)),
        settingsOf(db, kind, id),
      ]);
      const now = Date.now();
      return {
        members: (members as MemberRow[]).map(toMemberDto),
        links: links.map((l) => toLinkDto(l, now)),
        settings: { circleReadsFeedback: settings?.circleReadsFeedback ?? false, followersDelayHours: Math.round((settings?.followersDelayMinutes ?? 0) / 60) },
        failedLookups: settings?.failedLookups ?? 0,
      };
    },

    /**
     * The owner invites a person by username (they open the draft signed in) or by email (the
     * invite's link, with its token, is emailed and answered this once). A revoked person may be
     * invited again.
     */
    async invite(actor: Actor, kind: PreviewKind, id: string, input: Out<typeof InviteInput>): Promise<{ member: PreviewMemberDto; url: string | null }> {
      requireUser(actor);
      await deps.limiter.write('preview', actor);
      let deliver = () => {};
      const result = await db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, true);
        const byEmail = input.who.includes('@');
        const email = byEmail ? input.who.toLowerCase() : null;
        if (email !== null && !EMAIL.test(email)) throw badRequest(M.previewInviteWho);
        const [person] = await tx
          .select({ id: users.id, email: users.email })
          .from(users)
          .where(email !== null ? eq(users.email, email) : eq(users.username, input.who.toLowerCase()))
          .limit(1);
        if (!person && email === null) throw notFound(M.userNotFound);
        if (person?.id === user.id) throw badRequest(M.previewInviteSelf);
        const col = itemColumn(previewMembers, kind);
        const [existing] = await tx
          .select({ id: previewMembers.id, state: previewMembers.state })
          .from(previewMembers)
          .where(
            and(
              eq(col, item.id),
              or(person ? eq(previewMembers.userId, person.id) : undefined, email !== null ? sql`lower(${previewMembers.email}) = ${email}` : undefined),
            ),
          )
          .limit(1);
        if (existing && existing.state !== 'revoked') throw conflict(M.previewAlreadyInvited);
        const token = email !== null ? newToken() : null;
        const values = {
          userId: person?.id ?? null,
          email,
          role: input.role,
          state: 'invited' as const,
          tokenHash: token ? hashToken(token) : null,
          invitedBy: user.id,
          revokedAt: null,
          joinedAt: null,
        };
        let memberId: string;
        if (existing) {
          await tx.update(previewMembers).set(values).where(eq(previewMembers.id, existing.id));
          memberId = existing.id;
        } else {
          const [row] = await tx
            .insert(previewMembers)
            .values({ ...itemValue(kind, item.id), ...values })
            .returning({ id: previewMembers.id });
          memberId = row.id;
        }
        await recordChange(tx, {
          modelName: 'PreviewMember',
          action: existing ? 'update' : 'create',
          key: memberId,
          fields: [modelOf(kind), 'role', 'state', ...(person ? ['userId'] : []), ...(email !== null ? ['email'] : [])],
          actorId: user.id,
          subjectUserId: user.id,
        });
        const inviter = user.name || user.username || 'A Kindling creator';
        const url = token ? previewUrl(config, kind, item.id, token) : null;
        if (token && email !== null && url) deliver = await mailer.record(tx, previewMail.invite(email, inviter, input.role, url, token));
        else if (person) deliver = await mailer.record(tx, previewMail.inviteMember(person.email, inviter, `${config.appUrl}/${kind}s/${item.id}`));
        return { member: await memberDto(tx, memberId), url };
      });
      deliver();
      return result;
    },

    /** The owner changes a member's role (viewer or commenter). */
    async setRole(actor: Actor, kind: PreviewKind, id: string, memberId: string, input: Out<typeof MemberRoleInput>): Promise<PreviewMemberDto> {
      return db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, true);
        const m = await memberOf(tx, kind, item.id, memberId);
        if (m.state === 'revoked') throw conflict(M.previewMemberNotFound);
        if (m.role !== input.role) {
          await tx.update(previewMembers).set({ role: input.role }).where(eq(previewMembers.id, m.id));
          await recordChange(tx, { modelName: 'PreviewMember', action: 'update', key: m.id, fields: ['role'], actorId: user.id, subjectUserId: user.id });
        }
        return memberDto(tx, m.id);
      });
    },

    /** The owner revokes a member: their invite token stops working and their account no longer opens the draft. */
    async revokeMember(actor: Actor, kind: PreviewKind, id: string, memberId: string): Promise<PreviewMemberDto> {
      return db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, true);
        const m = await memberOf(tx, kind, item.id, memberId);
        if (m.state !== 'revoked') {
          await tx.update(previewMembers).set({ state: 'revoked', revokedAt: new Date(), tokenHash: null }).where(eq(previewMembers.id, m.id));
          await recordChange(tx, {
            modelName: 'PreviewMember',
            action: 'update',
            key: m.id,
            fields: ['state', 'token'],
            actorId: user.id,
            subjectUserId: user.id,
          });
        }
        return memberDto(tx, m.id);
      });
    },

    /** A link for anyone who has it, with the owner's label and an expiry (1-90 days); its address is answered this once. */
    async createLink(actor: Actor, kind: PreviewKind, id: string, input: Out<typeof LinkInput>): Promise<{ link: PreviewLinkDto; url: string }> {
      requireUser(actor);
      await deps.limiter.write('preview', actor);
      return db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, true);
        const token = newToken();
        const [row] = await tx
          .insert(previewLinks)
          .values({
            ...itemValue(kind, item.id),
            label: input.label,
            tokenHash: hashToken(token),
            expiresAt: new Date(Date.now() + input.days * DAY),
            createdBy: user.id,
          })
          .returning();
        await recordChange(tx, { modelName: 'PreviewLink', action: 'create', key: row.id, fields: [modelOf(kind), 'label', 'expiresAt'], actorId: user.id });
        return { link: toLinkDto(row), url: previewUrl(config, kind, item.id, token) };
      });
    },

    /** The owner revokes one link. */
    async revokeLink(actor: Actor, kind: PreviewKind, id: string, linkId: string): Promise<PreviewLinkDto> {
      return db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, true);
        if (!isUuid(linkId)) throw notFound(M.previewLinkNotFound);
        const [l] = await tx
          .select()
          .from(previewLinks)
          .where(and(eq(previewLinks.id, linkId), eq(itemColumn(previewLinks, kind), item.id)))
          .for('update');
        if (!l) throw notFound(M.previewLinkNotFound);
        if (l.revokedAt) return toLinkDto(l);
        const [row] = await tx.update(previewLinks).set({ revokedAt: new Date() }).where(eq(previewLinks.id, l.id)).returning();
        await recordChange(tx, { modelName: 'PreviewLink', action: 'update', key: l.id, fields: ['revokedAt'], actorId: user.id });
        return toLinkDto(row);
      });
    },

    /**
     * "Revoke all": every link of the item and every invite token end at once, and with them the
     * addresses of its draft images for whoever held only those (images are served through the
     * same rule). A guest (no account) is revoked; a member with an account keeps their seat.
     */
    async revokeAll(actor: Actor, kind: PreviewKind, id: string): Promise<{ links: number; invites: number }> {
      return db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, true);
        const now = new Date();
        const links = await tx
          .update(previewLinks)
          .set({ revokedAt: now })
          .where(and(eq(itemColumn(previewLinks, kind), item.id), isNull(previewLinks.revokedAt)))
          .returning({ id: previewLinks.id });
        const invites = await tx
          .update(previewMembers)
          .set({
            tokenHash: null,
            state: sql`case when ${previewMembers.userId} is null then 'revoked'::preview_member_state else ${previewMembers.state} end`,
            revokedAt: sql`case when ${previewMembers.userId} is null then now() else ${previewMembers.revokedAt} end`,
          })
          .where(and(eq(itemColumn(previewMembers, kind), item.id), isNotNull(previewMembers.tokenHash)))
          .returning({ id: previewMembers.id });
        await recordChange(tx, {
          modelName: 'PreviewCircle',
          action: 'update',
          key: item.id,
          fields: ['revokeAll', `links:${links.length}`, `invites:${invites.length}`],
          actorId: user.id,
        });
        return { links: links.length, invites: invites.length };
      });
    },

    /** The owner's choices: whether the circle reads the feedback, and the delay before followers hear of the release. */
    async updateSettings(actor: Actor, kind: PreviewKind, id: string, input: Out<typeof SettingsInput>): Promise<CircleDto['settings']> {
      await db.transaction(async (tx) => {
        const { user, item } = await owned(tx, actor, kind, id, false);
        const set = {
          ...(input.circleReadsFeedback !== undefined ? { circleReadsFeedback: input.circleReadsFeedback } : {}),
          ...(input.followersDelayHours !== undefined ? { followersDelayMinutes: input.followersDelayHours * 60 } : {}),
        };
        if (!Object.keys(set).length) return;
        await tx
          .insert(previewSettings)
          .values({ ...itemValue(kind, item.id), ...set })
          .onConflictDoUpdate({ target: itemColumn(previewSettings, kind), set });
        await recordChange(tx, { modelName: 'PreviewSettings', action: 'update', key: item.id, fields: Object.keys(set), actorId: user.id });
      });
      return (await service.circle(actor, kind, id)).settings;
    },

    /** What the caller is to a draft they may see: the owner, a member (as viewer or commenter), or a link's holder. */
    async me(actor: Actor, kind: PreviewKind, id: string): Promise<PreviewMeDto> {
      const { item, grant } = await seen(actor, kind, id);
      if (isOwner(actor.user, item.ownerId)) {
        return {
          via: 'owner',
          role: 'owner',
          needsName: false,
          name: actor.user?.name ?? null,
          canReadFeedback: canReadFeedback(actor, item, null, false),
          canWriteFeedback: canWriteFeedback(actor, item, null),
          visitsSeen: false,
        };
      }
      if (!grant) throw notFound(notFoundText(kind));
      const settings = await settingsOf(db, kind, id);
      const readFeedback = canReadFeedback(actor, item, grant, settings?.circleReadsFeedback ?? false);
      if (!grant.memberId) {
        return { via: 'link', role: 'viewer', needsName: false, name: null, canReadFeedback: readFeedback, canWriteFeedback: false, visitsSeen: true };
      }
      const [m] = await db.select().from(previewMembers).where(eq(previewMembers.id, grant.memberId));
      const needsName = !actor.user && m.userId === null && m.guestName === null;
      // an invite sent to an account's address is that account's: signed out, its holder reads, and signs in to write
      const mustSignIn = !actor.user && m.userId !== null;
      return {
        via: 'member',
        role: grant.role,
        needsName,
        name: actor.user ? actor.user.name || actor.user.username : m.guestName,
        canReadFeedback: readFeedback,
        canWriteFeedback: canWriteFeedback(actor, item, grant) && !needsName && !mustSignIn,
        visitsSeen: true,
      };
    },

    /**
     * A person holding an email invite says who they are: signed out, under the name they type
     * (kept if they later register and verify that address); signed in, as their account.
     */
    async join(actor: Actor, kind: PreviewKind, id: string, input: Out<typeof JoinInput>): Promise<PreviewMeDto> {
      const { item, grant } = await seen(actor, kind, id);
      if (!grant?.memberId) throw forbidden(M.previewNotInvited);
      const memberId = grant.memberId;
      await db.transaction(async (tx) => {
        const [m] = await tx.select().from(previewMembers).where(eq(previewMembers.id, memberId)).for('update');
        const set: Partial<typeof previewMembers.$inferInsert> = {};
        if (actor.user) {
          if (m.userId === null) {
            const [other] = await tx
              .select({ id: previewMembers.id })
              .from(previewMembers)
              .where(and(eq(itemColumn(previewMembers, kind), item.id), eq(previewMembers.userId, actor.user.id), ne(previewMembers.id, m.id)));
            if (!other) set.userId = actor.user.id;
          }
        } else if (m.userId === null) set.guestName = input.name;
        if (m.state === 'invited') Object.assign(set, { state: 'joined', joinedAt: new Date() });
        if (!Object.keys(set).length) return;
        await tx.update(previewMembers).set(set).where(eq(previewMembers.id, m.id));
        await recordChange(tx, {
          modelName: 'PreviewMember',
          action: 'update',
          key: m.id,
          fields: Object.keys(set),
          actorId: actor.user?.id ?? null,
          subjectUserId: item.ownerId,
        });
      });
      return service.me(actor, kind, id);
    },

    /** The private feedback thread: the owner reads it (also after release, read-only); the circle when the owner lets it. */
    async feedback(actor: Actor, kind: PreviewKind, id: string): Promise<{ items: FeedbackDto[]; readOnly: boolean }> {
      const { item, grant } = await seen(actor, kind, id);
      if (!isOwner(actor.user, item.ownerId) && !grant) throw notFound(notFoundText(kind));
      const settings = await settingsOf(db, kind, id);
      if (!canReadFeedback(actor, item, grant, settings?.circleReadsFeedback ?? false)) throw forbidden(M.feedbackHidden);
      const rows = await db
        .select()
        .from(previewFeedback)
        .where(eq(itemColumn(previewFeedback, kind), id))
        .orderBy(asc(previewFeedback.createdAt), asc(previewFeedback.id));
      return {
        items: rows.map((r) => ({ _id: r.id, authorName: r.authorName, guest: r.authorId === null, body: r.body, createdAt: r.createdAt })),
        readOnly: !canWriteFeedback(actor, item, grant),
      };
    },

    /** A commenter of the circle (or the owner) writes feedback while the item is a draft. */
    async addFeedback(actor: Actor, kind: PreviewKind, id: string, input: Out<typeof FeedbackInput>): Promise<FeedbackDto> {
      const { item, grant } = await seen(actor, kind, id);
      // a released item is public: saying its feedback is closed tells nobody anything
      if (item.releasedAt !== null) throw conflict(M.feedbackClosed);
      if (!isOwner(actor.user, item.ownerId) && !grant) throw notFound(notFoundText(kind));
      if (!canWriteFeedback(actor, item, grant)) throw forbidden(M.feedbackNotAllowed);
      await deps.limiter.write('comment', actor);
      let name = actor.user ? actor.user.name || actor.user.username || '' : '';
      if (!actor.user && grant?.memberId) {
        const [m] = await db.select({ guestName: previewMembers.guestName }).from(previewMembers).where(eq(previewMembers.id, grant.memberId));
        if (!m?.guestName) throw forbidden(M.previewGuestName);
        name = m.guestName;
      }
      const [row] = await db
        .insert(previewFeedback)
        .values({ ...itemValue(kind, id), memberId: grant?.memberId ?? null, authorId: actor.user?.id ?? null, authorName: name, body: input.body })
        .returning();
      return { _id: row.id, authorName: row.authorName, guest: row.authorId === null, body: row.body, createdAt: row.createdAt };
    },

    /** Release notices (notices.ts): the release job and an owner's "Release now" call these. */
    notices,
  };
  return service;
}

export type PreviewsService = ReturnType<typeof createPreviewsService>;
