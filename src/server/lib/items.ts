import { and, eq, inArray } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { toMinor } from '../../shared/money';
import type { DbOrTx } from '../db/client';
import { images as uploadedImages } from '../db/schema';
import type { z } from 'zod';
import type { CreateProjectInput, UpdateProjectInput } from '../../shared/schemas/projects';
import { badRequest } from './errors';

/** What create and update take of an item's state (shared schemas: `visibility`, `releaseAt`). */
interface StateInput {
  visibility?: 'draft' | 'released';
  releaseAt?: Date | null;
}

function assertFuture(releaseAt: Date, now: Date): void {
  if (releaseAt.getTime() <= now.getTime()) throw badRequest(M.releaseAtPast);
}

/**
 * A new item's state columns: released now (the default), a draft, or a draft scheduled for
 * `releaseAt` (which must be ahead; `visibility: 'released'` with a time is refused).
 */
export function releaseValues(input: StateInput, now = new Date()): { releasedAt: Date | null; releaseAt: Date | null } {
  const releaseAt = input.releaseAt ?? null;
  if (releaseAt !== null) {
    if (input.visibility === 'released') throw badRequest(M.releaseAtWithReleased);
    assertFuture(releaseAt, now);
    return { releasedAt: null, releaseAt };
  }
  return input.visibility === 'draft' ? { releasedAt: null, releaseAt: null } : { releasedAt: now, releaseAt: null };
}

/**
 * An edit's change of state, given the item's: a draft is released now (`visibility: 'released'`),
 * scheduled or moved (`releaseAt`, ahead of now) or unscheduled (`releaseAt: null`); a released item
 * never goes back (`visibility: 'draft'` is refused) and has no schedule to set. Undefined leaves a
 * column as it is.
 */
export function releasePatch(input: StateInput, before: { releasedAt: Date | null }, now = new Date()): { releasedAt?: Date; releaseAt?: Date | null } {
  if (before.releasedAt !== null) {
    if (input.visibility === 'draft') throw badRequest(M.cannotUnrelease);
    if (input.releaseAt) throw badRequest(M.releaseAtReleased);
    return {};
  }
  if (input.visibility === 'released') {
    if (input.releaseAt) throw badRequest(M.releaseAtWithReleased);
    return { releasedAt: now, releaseAt: null };
  }
  if (input.releaseAt === undefined) return {};
  if (input.releaseAt !== null) assertFuture(input.releaseAt, now);
  return { releaseAt: input.releaseAt };
}

/** Rules shared by campaigns and projects (the spec's "items"). */

/** Goal in minor units, or a head count when the goal counts supporters (a whole number). */
export function goalToStored(goal: number, targetType: 'amount' | 'supporters'): number {
  if (targetType === 'supporters') {
    if (!Number.isInteger(goal)) throw badRequest(M.goalSupportersWhole);
    return goal;
  }
  return toMinor(goal);
}

/** The images an item refers to: its cover and its gallery. */
export function imageUrlsOf(item: { imageUrl?: string | null; images?: { url: string }[] | null }): string[] {
  return [...(item.imageUrl ? [item.imageUrl] : []), ...(item.images ?? []).map((i) => i.url)];
}

/**
 * Every image an item refers to must be one of our uploads, made by the caller (or already on
 * the item being edited), so nobody can point an item at someone else's files or another site.
 */
export async function assertOwnImages(db: DbOrTx, ownerId: string, urls: string[], alreadyOnItem: string[] = []): Promise<void> {
  const wanted = [...new Set(urls.filter((u) => !alreadyOnItem.includes(u)))];
  if (!wanted.length) return;
  const found = await db
    .select({ url: uploadedImages.url })
    .from(uploadedImages)
    .where(and(inArray(uploadedImages.url, wanted), eq(uploadedImages.ownerId, ownerId)));
  if (found.length !== wanted.length) throw badRequest(M.imageNotUploaded);
}

/** The columns campaigns and projects share, from a create form (the goal stored in its unit). */
export function itemValues(input: z.output<typeof CreateProjectInput>) {
  return {
    title: input.title,
    description: input.description,
    tags: input.tags,
    type: input.type,
    targetType: input.targetType,
    goalAmount: goalToStored(input.goalAmount, input.targetType),
    currency: input.currency,
    imageUrl: input.imageUrl,
    images: input.images,
    actionMode: input.actionMode,
    ...releaseValues(input),
  };
}

/** The same columns from an edit: only what was sent (undefined leaves a column as it is). */
export function itemPatch(input: z.output<typeof UpdateProjectInput>, currentTargetType: 'amount' | 'supporters') {
  const targetType = input.targetType ?? currentTargetType;
  return {
    title: input.title,
    description: input.description,
    tags: input.tags,
    type: input.type,
    targetType: input.targetType,
    goalAmount: input.goalAmount === undefined ? undefined : goalToStored(input.goalAmount, targetType),
    currency: input.currency,
    imageUrl: input.imageUrl,
    images: input.images,
    actionMode: input.actionMode,
  };
}
