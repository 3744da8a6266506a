import { and, eq, sql } from 'drizzle-orm';
import { M } from '../../shared/messages';
import type { Db } from '../db/client';
import { campaigns } from '../db/schema';
import type { Actor } from '../deps';
import { notFound } from './errors';
import { isUuid } from './ids';
import { audiencesKey, itemVisibleSql, viewerOf, type Audience } from './access';

/** What the money and support services read of a campaign they act on. */
const columns = {
  id: campaigns.id,
  title: campaigns.title,
  ownerId: campaigns.ownerId,
  currency: campaigns.currency,
  actionMode: campaigns.actionMode,
  executionDate: campaigns.executionDate,
  /** Null for a draft: its owner sees it, but it takes no money or support (access.ts `assertReleased`). */
  releasedAt: campaigns.releasedAt,
};

type Lookup = ReturnType<typeof prepareLookup>;

/**
 * The lookup as a prepared statement per set of audiences a viewer sees (lib/access.ts's
 * `itemVisibleSql`, the viewer's account a parameter: null when signed out), made once per database.
 */
function prepareLookup(db: Db, audiences: readonly Audience[]) {
  const viewer = { audiences, userId: sql.placeholder('viewer') };
  return db
    .select(columns)
    .from(campaigns)
    .where(and(eq(campaigns.id, sql.placeholder('id')), itemVisibleSql(viewer, campaigns)))
    .prepare(`visible_campaign_${audiencesKey(audiences).replace(/\W/g, '_')}`);
}
const lookups = new WeakMap<Db, Map<string, Lookup>>();

/**
 * A campaign the actor may see (lib/access.ts: its audience, or their own), or 404 'Campaign not
 * found' for one that is hidden, unknown or malformed: the same answer, so nothing tells them apart.
 * Prepared (PostgreSQL plans it once per connection): the donation path reads it on every gift.
 */
export async function visibleCampaign(db: Db, actor: Actor, id: string) {
  if (!isUuid(id)) throw notFound(M.campaignNotFound);
  const viewer = viewerOf(actor);
  let byAudiences = lookups.get(db);
  if (!byAudiences) {
    byAudiences = new Map();
    lookups.set(db, byAudiences);
  }
  const key = audiencesKey(viewer.audiences);
  let lookup = byAudiences.get(key);
  if (!lookup) {
    lookup = prepareLookup(db, viewer.audiences);
    byAudiences.set(key, lookup);
  }
  const [c] = await lookup.execute({ id, viewer: viewer.userId });
  if (!c) throw notFound(M.campaignNotFound);
  return c;
}

/** Whether a campaign's date has passed: a past campaign takes no more donations or supporters. */
export function isPast(executionDate: Date | null, now = Date.now()): boolean {
  return executionDate !== null && executionDate.getTime() < now;
}
