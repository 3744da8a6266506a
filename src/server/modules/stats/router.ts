import { IdSchema } from '../../../shared/schemas/common';
import { CampaignStatsQuery, CampaignStatsSchema } from '../../../shared/schemas/stats';
import { authedProcedure, router } from '../../trpc/init';

/** The creator's dashboard (issue #33): one owner-only call for a campaign's figures, days and activity. */
export const statsRouter = router({
  campaign: authedProcedure
    .input(CampaignStatsQuery.extend({ campaignId: IdSchema }))
    .output(CampaignStatsSchema)
    .query(({ ctx, input }) => ctx.services.stats.ofCampaign(ctx.actor, input.campaignId, input.days)),
});
