import { and, eq, ne, sql } from 'drizzle-orm';
import { M } from '../../shared/messages';
import type { Db } from '../db/client';
import { campaigns } from '../db/schema';
import type { Actor } from '../deps';
import { notFound } from './errors';
import { isUuid } from './ids';
import { canSeeAdult } from './access';

/** What the money and support services read of a campaign they act on. */
const columns = {
  id: campaigns.id,
  title: campaigns.title,
  ownerId: campaigns.ownerId,
  currency: campaigns.currency,
  actionMode: campaigns.actionMode,
  executionDate: campaigns.executionDate,
};

type Lookup = ReturnType<typeof prepareLookup>;

/** The lookup as two prepared statements (with and without adult campaigns), made once per database. */
function prepareLookup(db: Db) {
  const id = sql.placeholder('id');
  return {
    all: db.select(columns).from(campaigns).where(eq(campaigns.id, id)).prepare('visible_campaign_all'),
    general: db
      .select(columns)
      .from(campaigns)
      .where(and(eq(campaigns.id, id), ne(campaigns.type, 'adult')))
      .prepare('visible_campaign_general'),
  };
}
const lookups = new WeakMap<Db, Lookup>();

/**
 * A campaign the actor may see (adult ones only with adult access), or 404 'Campaign not found'
 * for one that is hidden, unknown or malformed: the same answer, so nothing tells them apart.
 * Prepared (PostgreSQL plans it once per connection): the donation path reads it on every gift.
 */
export async function visibleCampaign(db: Db, actor: Actor, id: string) {
  if (!isUuid(id)) throw notFound(M.campaignNotFound);
  let lookup = lookups.get(db);
  if (!lookup) {
    lookup = prepareLookup(db);
    lookups.set(db, lookup);
  }
  const [c] = await (canSeeAdult(actor) ? lookup.all : lookup.general).execute({ id });
  if (!c) throw notFound(M.campaignNotFound);
  return c;
}

/** Whether a campaign's date has passed: a past campaign takes no more donations or supporters. */
export function isPast(executionDate: Date | null, now = Date.now()): boolean {
  return executionDate !== null && executionDate.getTime() < now;
}
