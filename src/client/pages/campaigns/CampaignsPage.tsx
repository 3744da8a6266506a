import { keepPreviousData } from '@tanstack/react-query';
import type { CampaignSort } from '../../../shared/constants';
import { campaignListInput } from '../../../shared/first-queries';
import { M } from '../../../shared/messages';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ItemListPage, nextPageParam } from '../../components/ItemList';
import type { ListFilters, SortChoice } from '../../components/ListFilters';
import { trpc } from '../../trpc';

/** The sort choice of /campaigns, the default first (spec: newest first). */
const CAMPAIGN_SORT_CHOICES: readonly SortChoice<CampaignSort>[] = [
  { value: 'newest', label: 'Newest' },
  { value: 'ending', label: 'Ending soon' },
  { value: 'funded', label: 'Most funded' },
  { value: 'supported', label: 'Most supporters' },
];

const useCampaigns = (filters: ListFilters) =>
  trpc.campaigns.list.useInfiniteQuery(campaignListInput(filters), { getNextPageParam: nextPageParam, placeholderData: keepPreviousData });

/**
 * /campaigns (accepts q, type, status, sort): search bound to ?q=, the category, status and sort
 * choices, the campaigns table (cards on small screens), infinite scroll.
 */
export default function CampaignsPage() {
  return (
    <ItemListPage
      title={M.navCampaigns}
      searchPlaceholder="Search campaigns by title, tag or description"
      emptyText={M.noCampaigns}
      purpose="Campaigns collect donations and support for something a creator wants to make happen."
      newPath="/campaigns/new"
      newText="+ New campaign"
      startText="Start the first campaign"
      sorts={CAMPAIGN_SORT_CHOICES}
      withStatus
      useList={useCampaigns}
      basePath="/campaigns"
      noun="campaign"
      showProgress
      renderFavorite={(item) => <FavoriteButton targetType="campaign" targetId={item._id} itemName={item.title} mode="oneWay" />}
    />
  );
}
