import { and, eq, ne, type SQL } from 'drizzle-orm';
import { M } from '../../shared/messages';
import type { Db } from '../db/client';
import { campaigns } from '../db/schema';
import type { Actor } from '../deps';
import { notFound } from './errors';
import { isUuid } from './ids';
import { canSeeAdult } from './items';

/** What the money and support services read of a campaign they act on. */
const columns = {
  id: campaigns.id,
  title: campaigns.title,
  ownerId: campaigns.ownerId,
  currency: campaigns.currency,
  actionMode: campaigns.actionMode,
  executionDate: campaigns.executionDate,
};

/**
 * A campaign the actor may see (adult ones only with adult access), or 404 'Campaign not found'
 * for one that is hidden, unknown or malformed: the same answer, so nothing tells them apart.
 */
export async function visibleCampaign(db: Db, actor: Actor, id: string) {
  if (!isUuid(id)) throw notFound(M.campaignNotFound);
  const conds: SQL[] = [eq(campaigns.id, id)];
  if (!canSeeAdult(actor)) conds.push(ne(campaigns.type, 'adult'));
  const [c] = await db.select(columns).from(campaigns).where(and(...conds));
  if (!c) throw notFound(M.campaignNotFound);
  return c;
}
