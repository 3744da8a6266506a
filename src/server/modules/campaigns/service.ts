import { and, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import { toMajor } from '../../../shared/money';
import type { CampaignDto, CreateCampaignInput, ListQuery, UpdateCampaignInput } from '../../../shared/schemas/campaigns';
import { campaigns, donations, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { conflict, notFound } from '../../lib/errors';
import { assertOwnImages, imageUrlsOf, itemPatch, releasePatch } from '../../lib/items';
import { assertCategoryAllowed, canSeeItem, requireOwner, requireUser, visibilityOf } from '../../lib/access';
import { createItemStore } from '../../lib/item-store';
import { changedFields, recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { isPast } from '../../lib/campaign-access';
import { readerFor } from '../../db/replica';
import { coordinationText } from './coordination';
import { campaignColumns, campaignSelection, createCampaignListQueries, type CampaignListInput, type CampaignRow } from './list-queries';

type Out<T extends z.ZodType> = z.output<T>;

type Row = CampaignRow;

export function toCampaignDto(r: Row, now = new Date()): CampaignDto {
  const supporters = Number(r.supporters);
  return {
    _id: r.c.id,
    title: r.c.title,
    description: r.c.description,
    tags: r.c.tags,
    type: r.c.type,
    targetType: r.c.targetType,
    coordination: coordinationText(r.c.executionDate, supporters),
    goalAmount: r.c.targetType === 'supporters' ? r.c.goalAmount : toMajor(r.c.goalAmount),
    currency: r.c.currency,
    imageUrl: r.c.imageUrl,
    images: r.c.images.map((i) => ({ url: i.url, alt: i.alt ?? '' })),
    actionMode: r.c.actionMode,
    executionDate: r.c.executionDate,
    isPast: isPast(r.c.executionDate, now.getTime()),
    totalRaised: toMajor(Number(r.raised)),
    donors: Number(r.donors),
    support: supporters,
    supporters,
    donated: toMajor(Number(r.donated)),
    supported: r.supported === true,
    ownerId: { _id: r.owner.id, username: r.owner.username, name: r.owner.name, imageUrl: r.owner.imageUrl, avatarUrl: r.owner.imageUrl },
    visibility: visibilityOf(r.c),
    releaseAt: r.c.releasedAt === null ? r.c.releaseAt : null,
    createdAt: r.c.createdAt,
    updatedAt: r.c.updatedAt,
  };
}

/** Whether any money has moved for the campaign (a donation that succeeded, refunded or not): its currency and goal kind then stay. */
async function moneyMoved(db: Pick<Deps['db'], 'select'>, campaignId: string): Promise<boolean> {
  const [moved] = await db
    .select({ id: donations.id })
    .from(donations)
    .where(and(eq(donations.campaignId, campaignId), inArray(donations.status, ['succeeded', 'refunded'])))
    .limit(1);
  return moved !== undefined;
}

export function createCampaignsService(deps: Deps) {
  const { db } = deps;
  const listQueries = createCampaignListQueries(db);
  // the replica's own statements and page marks (its generation is read there too)
  const replicaLists = deps.readDb ? createCampaignListQueries(deps.readDb) : listQueries;
  const listsFor = (actor: Actor) => (readerFor(deps, actor) === db ? listQueries : replicaLists);

  const store = createItemStore(deps, {
    table: campaigns,
    columns: campaignColumns,
    selection: campaignSelection,
    toDto: (r: Row) => toCampaignDto(r),
    model: 'Campaign',
    kind: 'campaign',
    budget: 'campaign',
    notFoundText: M.campaignNotFound,
  });

  const service = {
    /**
     * The list: a search, a category, a status and a sort (newest first by default). `page`
     * pages by offset (the documented API); `cursor` (each answer's nextCursor, with the sort's
     * key in it) pages by keyset, which is what the app's infinite scroll uses.
     */
    async list(actor: Actor, query: CampaignListInput, filter: { ownerId?: string } = {}) {
      const { page, limit } = query;
      if (filter.ownerId !== undefined && !isUuid(filter.ownerId)) return { items: [], total: 0, totalCapped: false, page, limit, nextCursor: null };
      const { rows, total, totalCapped, nextCursor } = await listsFor(actor).run(actor, query, filter);
      const now = new Date();
      return { items: rows.map((r) => toCampaignDto(r, now)), total, totalCapped, page, limit, nextCursor };
    },

    /** A person's campaigns (their profile's tab); 404 when there is no such person. */
    async listOfUser(actor: Actor, userId: string, query: Out<typeof ListQuery>) {
      const [person] = isUuid(userId) ? await readerFor(deps, actor).select({ id: users.id }).from(users).where(eq(users.id, userId)) : [];
      if (!person) throw notFound(M.userNotFound);
      return service.list(actor, query, { ownerId: userId });
    },

    /** The detail: a draft to its circle too (lib/item-store.ts `show`). */
    get: store.show,

    /** The campaign as what hangs on it asks (its comments): by audience or owner only, never through a draft's circle. */
    visible: store.load,

    /** Resolves when the list's page marks are not being taken (tests wait for them). */
    pageMarksSettled: () => Promise.all([listQueries.settled(), replicaLists.settled()]).then(() => {}),

    /** The visible ones among these ids (for favorites), in no particular order. */
    byIds: store.byIds,

    create: (actor: Actor, input: Out<typeof CreateCampaignInput>): Promise<CampaignDto> =>
      store.create(actor, input, { executionDate: input.executionDate ?? null }),

    /**
     * What the owner's edit form must hold still: once money has moved, the currency and the goal
     * kind (update answers 409 for a change to either). Others get the answers update gives them.
     */
    async editLocks(actor: Actor, id: string): Promise<{ currencyLocked: boolean; targetTypeLocked: boolean }> {
      requireUser(actor);
      if (!isUuid(id)) throw notFound(M.campaignNotFound);
      const [c] = await db
        .select({ ownerId: campaigns.ownerId, type: campaigns.type, releasedAt: campaigns.releasedAt })
        .from(campaigns)
        .where(eq(campaigns.id, id));
      if (!c || !canSeeItem(actor, c)) throw notFound(M.campaignNotFound);
      // the owner's form only: update refuses everybody else (admins too) with 403
      requireOwner(actor, c.ownerId);
      const locked = await moneyMoved(db, id);
      return { currencyLocked: locked, targetTypeLocked: locked };
    },

    /**
     * The owner edits text, tags, images, goal and execution date, and a draft's state: release
     * now, schedule, move or cancel the schedule (lib/items.ts `releasePatch`).
     */
    async update(actor: Actor, id: string, input: Out<typeof UpdateCampaignInput>): Promise<CampaignDto> {
      let released: () => Promise<void> = async () => {};
      await db.transaction(async (tx) => {
        const { user, before } = await store.ownedForUpdate(tx, actor, id);
        assertCategoryAllowed(user, input.type);
        // totals are kept in the campaign's currency and goal kind: once money has moved, they stay
        if (
          (input.currency !== undefined && input.currency !== before.currency) ||
          (input.targetType !== undefined && input.targetType !== before.targetType)
        ) {
          if (await moneyMoved(tx, id)) throw conflict(M.currencyLocked);
        }
        await assertOwnImages(tx, user.id, imageUrlsOf(input), imageUrlsOf(before));
        const patch: Partial<typeof campaigns.$inferInsert> = {
          ...itemPatch(input, before.targetType),
          executionDate: input.executionDate,
          ...releasePatch(input, before),
        };
        const fields = changedFields(before as Record<string, unknown>, patch as Record<string, unknown>);
        if (!fields.length) return;
        await tx
          .update(campaigns)
          .set({ ...patch, updatedAt: new Date() })
          .where(eq(campaigns.id, id));
        await recordChange(tx, { modelName: 'Campaign', action: 'update', key: id, fields, actorId: user.id, subjectUserId: before.ownerId });
        // released now by its owner: the circle hears in this transaction (previews/notices.ts)
        if (patch.releasedAt) released = await store.released(tx, { id, title: patch.title ?? before.title });
      });
      await released();
      return store.load(actor, id);
    },
  };
  return service;
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
