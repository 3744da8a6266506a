import type { Deps } from '../../deps';
import { donationAdmin } from './admin';
import { createDonationsContext, type DonationsOptions } from './context';
import { donationRequests } from './donate';
import { donationExport } from './export';
import { donationLists } from './list';
import { monthlyCharges } from './monthly';
import { donationPublicNotes } from './public-notes';
import { donationReceipts } from './receipts';
import { donationReconciliation } from './reconcile';
import { donationRefunds } from './refund';
import { donationSettlement } from './settle';
import { paymentStarts } from './start';
import { donorSubscriptions } from './subscriptions';
import { donationWebhooks } from './webhook';

// what other modules and the tests read of the donations beside the service
export { addMonth, donationRequestHash, MAX_FAILED_CHARGES, periodOf, receiptToken, retryDelayDays } from './dto';

/**
 * The Donations service: one file per use case (donate, webhook, admin, receipts, refund, list,
 * export, subscriptions, reconcile, monthly) over the shared context (context.ts), the booking
 * of payments (settle.ts, with statements.ts's one-statement form and reversals.ts for money
 * coming back) and the starting of payments (start.ts), put together here for the router and
 * the REST door.
 */
export function createDonationsService(deps: Deps, opts: DonationsOptions) {
  const ctx = createDonationsContext(deps, opts);
  const settle = donationSettlement(ctx);
  const starts = paymentStarts(ctx, settle);
  const receipts = donationReceipts(ctx);
  const lists = donationLists(ctx);
  // biome-ignore-start lint/nursery/noMisusedPromises: each part is a plain object of functions (read as a Promise by the rule's inference)
  return {
    ...donationRequests(ctx, starts),
    ...donationWebhooks(ctx, settle),
    ...donationAdmin(ctx, receipts),
    ...receipts,
    ...donationRefunds(ctx, receipts),
    ofCampaign: lists.ofCampaign,
    ...donationExport(lists),
    supported: lists.supported,
    ...donorSubscriptions(ctx),
    ...donationReconciliation(ctx, settle),
    ...monthlyCharges(ctx),
    ...donationPublicNotes(ctx),
  };
  // biome-ignore-end lint/nursery/noMisusedPromises: see above
}

export type DonationsService = ReturnType<typeof createDonationsService>;
