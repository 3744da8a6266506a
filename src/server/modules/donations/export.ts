import type { Actor } from '../../deps';
import { csvDocument, csvFilename } from '../../lib/csv';
import type { DonationLists } from './list';

/** A campaign's donations as a CSV download. */
export function donationExport(lists: DonationLists) {
  return {
    /** Every donation of `ofCampaign` as CSV (a header row, amounts with 2 decimals). */
    async csvOfCampaign(actor: Actor, campaignId: string): Promise<{ filename: string; csv: string }> {
      const lines: string[][] = [];
      let cursor: string | undefined;
      let title = 'campaign';
      for (;;) {
        const page = await lists.ofCampaign(actor, campaignId, { limit: 100, cursor, format: 'csv' });
        title = page.campaign.title;
        for (const r of page.items) {
          lines.push([r.date.toISOString(), r.donor, r.amount.toFixed(2), r.currency, r.status, r.monthly ? 'yes' : 'no', r._id]);
        }
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return { filename: csvFilename('donations', title), csv: csvDocument(['date', 'donor', 'amount', 'currency', 'status', 'monthly', 'id'], lines) };
    },
  };
}
