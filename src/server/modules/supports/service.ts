import { and, asc, desc, eq, gt, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type { SupportersQuery, SupporterDto, SupportInput, SupportStateDto, VerifyGuestDto } from '../../../shared/schemas/supports';
import { consumeToken, issueToken } from '../../auth/one-time-tokens';
import { campaignReminders, campaigns, oneTimeTokens, supports, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { badRequest, conflict, forbidden } from '../../lib/errors';
import { isPast, visibleCampaign } from '../../lib/campaign-access';
import { csvDocument, csvFilename } from '../../lib/csv';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { supportTemplates } from '../../mail/support-templates';
import { assertReleased, requireOwnerOrAdmin, requireUser } from '../../lib/access';

type Out<T extends z.ZodType> = z.output<T>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** 'jane@example.com' -> 'j***@example.com'. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/**
 * Support and coordination: people pledge to take part in a campaign whose actionMode is
 * `support` or `both`. Account holders are confirmed at once; guests confirm through an emailed
 * single-use link (7 days). Only confirmed supports count.
 */
export function createSupportsService(deps: Deps) {
  const { db, config, mailer, limiter } = deps;

  const supportable = (actor: Actor, id: string) => visibleCampaign(db, actor, id);

  const assertOpen = (c: { actionMode: string; executionDate: Date | null; releasedAt: Date | null }) => {
    assertReleased(c);
    if (c.actionMode === 'donation') throw forbidden(M.supportNotAccepted);
    if (isPast(c.executionDate)) throw conflict(M.campaignPast);
  };

  async function supporters(campaignId: string): Promise<number> {
    const [r] = await db
      .select({ n: sql<string>`count(*)` })
      .from(supports)
      .where(and(eq(supports.campaignId, campaignId), isNotNull(supports.confirmedAt)));
    return Number(r.n);
  }

  const service = {
    /**
     * Signed in: supported at once (again is fine). Signed out with an email: a confirmation link
     * goes to that address (a fresh one each time; the older ones stop working), and the support
     * counts once it is followed.
     */
    async support(
      actor: Actor,
      campaignId: string,
      input: Out<typeof SupportInput>,
    ): Promise<({ kind: 'supported' } & SupportStateDto) | { kind: 'pending'; message: string }> {
      const c = await supportable(actor, campaignId);
      assertOpen(c);
      if (actor.user) {
        await limiter.write('support', actor);
        await db.insert(supports).values({ campaignId: c.id, userId: actor.user.id, confirmedAt: new Date() }).onConflictDoNothing();
        return { kind: 'supported', supported: true, supporters: await supporters(c.id) };
      }
      const email = input.email?.toLowerCase();
      if (!email) throw badRequest(M.guestSupportEmailRequired);
      await limiter.hit(`guest-support:ip:${actor.ip}`, `guest-support:email:${email}`);
      const token = await db.transaction(async (tx) => {
        await tx.insert(supports).values({ campaignId: c.id, email }).onConflictDoNothing();
        // a new link replaces the older ones for this campaign and address
        await tx
          .update(oneTimeTokens)
          .set({ usedAt: new Date() })
          .where(
            and(eq(oneTimeTokens.purpose, 'guest_support'), eq(oneTimeTokens.email, email), eq(oneTimeTokens.subjectId, c.id), isNull(oneTimeTokens.usedAt)),
          );
        return issueToken(tx, { purpose: 'guest_support', email, subjectId: c.id });
      });
      await mailer.send(supportTemplates.confirm(email, { campaignTitle: c.title, link: `${config.appUrl}/verify-join?token=${token}` }));
      return { kind: 'pending', message: M.supportCheckEmail };
    },

    /** Follows a guest's link: confirms the support once; a used, unknown or expired token is a 400. */
    async verifyGuest(actor: Actor, token: string): Promise<VerifyGuestDto> {
      await limiter.hit(`verify-guest:ip:${actor.ip}`);
      const campaignId = await db.transaction(async (tx) => {
        const t = await consumeToken(tx, 'guest_support', token);
        if (!t?.subjectId) return null;
        await tx
          .update(supports)
          .set({ confirmedAt: new Date() })
          .where(and(eq(supports.campaignId, t.subjectId), eq(supports.email, t.email), isNull(supports.confirmedAt)));
        return t.subjectId;
      });
      if (!campaignId) throw badRequest(M.invalidOrExpiredToken);
      return { message: M.guestSupportVerified, campaignId };
    },

    /** A signed-in person withdraws (not supporting is fine too); a past campaign's supporters are its history (409). */
    async withdraw(actor: Actor, campaignId: string): Promise<SupportStateDto> {
      const { user } = requireUser(actor);
      const c = await supportable(actor, campaignId);
      if (isPast(c.executionDate)) throw conflict(M.campaignPast);
      await db.delete(supports).where(and(eq(supports.campaignId, c.id), eq(supports.userId, user.id)));
      return { supported: false, supporters: await supporters(c.id) };
    },

    /** The campaign's confirmed supporters, newest first: for its owner and admins. */
    async list(
      actor: Actor,
      campaignId: string,
      query: Out<typeof SupportersQuery>,
    ): Promise<{ items: SupporterDto[]; nextCursor: string | null; title: string }> {
      requireUser(actor);
      const c = await supportable(actor, campaignId);
      requireOwnerOrAdmin(actor, c.ownerId);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ id: supports.id, confirmedAt: supports.confirmedAt, email: supports.email, name: users.name, username: users.username })
        .from(supports)
        .leftJoin(users, eq(users.id, supports.userId))
        .where(and(eq(supports.campaignId, c.id), isNotNull(supports.confirmedAt), cursor ? afterCursor(supports.confirmedAt, supports.id, cursor) : undefined))
        .orderBy(desc(supports.confirmedAt), desc(supports.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ createdAt: r.confirmedAt!, id: r.id }));
      return {
        title: c.title,
        nextCursor,
        items: page.map((r) => ({
          name: r.email ? 'Guest' : r.name || r.username || 'Member',
          email: r.email ? maskEmail(r.email) : null,
          confirmedAt: r.confirmedAt!,
        })),
      };
    },

    /** Every confirmed supporter as CSV (the owner's export). */
    async csv(actor: Actor, campaignId: string): Promise<{ filename: string; csv: string }> {
      const lines: string[][] = [];
      let cursor: string | undefined;
      let title = 'campaign';
      for (;;) {
        const page = await service.list(actor, campaignId, { limit: 100, cursor, format: 'csv' });
        title = page.title;
        for (const r of page.items) lines.push([r.confirmedAt.toISOString(), r.name, r.email ?? '']);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return { filename: csvFilename('supporters', title), csv: csvDocument(['confirmed', 'name', 'email'], lines) };
    },

    /**
     * Emails every confirmed supporter of each campaign whose execution date is within the next
     * 24 hours, once per campaign and person: the campaign_reminders row is claimed in the
     * transaction that records the email, so a second run (even at the same time) sends nothing.
     * The scheduled-jobs runner calls this hourly.
     */
    async sendReminders(now = new Date()): Promise<{ sent: number }> {
      const due = await db
        .select({
          campaignId: campaigns.id,
          title: campaigns.title,
          executionDate: campaigns.executionDate,
          userId: supports.userId,
          email: sql<string>`coalesce(${supports.email}, ${users.email})`,
        })
        .from(supports)
        .innerJoin(campaigns, eq(campaigns.id, supports.campaignId))
        .leftJoin(users, eq(users.id, supports.userId))
        .where(
          and(
            isNotNull(supports.confirmedAt),
            gt(campaigns.executionDate, sql`${now.toISOString()}::timestamptz`),
            lte(campaigns.executionDate, sql`${new Date(now.getTime() + DAY_MS).toISOString()}::timestamptz`),
          ),
        )
        .orderBy(asc(campaigns.executionDate));
      let sent = 0;
      for (const r of due) {
        if (!r.email) continue;
        // the claim and the email are one transaction: a second run waits on the claim and skips it
        const deliver = await db.transaction(async (tx) => {
          const claimed = await tx
            .insert(campaignReminders)
            .values(r.userId ? { campaignId: r.campaignId, userId: r.userId } : { campaignId: r.campaignId, email: r.email })
            .onConflictDoNothing()
            .returning({ id: campaignReminders.id });
          if (!claimed.length) return null;
          return mailer.record(
            tx,
            supportTemplates.reminder(r.email, { campaignTitle: r.title, executionDate: r.executionDate!, link: `${config.appUrl}/campaigns/${r.campaignId}` }),
          );
        });
        if (deliver) {
          deliver();
          sent += 1;
        }
      }
      return { sent };
    },
  };
  return service;
}

export type SupportsService = ReturnType<typeof createSupportsService>;
