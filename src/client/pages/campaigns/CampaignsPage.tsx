import { campaignListInput } from '../../../shared/first-queries';
import { M } from '../../../shared/messages';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ItemListPage, nextPageParam } from '../../components/ItemList';
import { trpc } from '../../trpc';

const useCampaigns = (q: string) => trpc.campaigns.list.useInfiniteQuery(campaignListInput(q), { getNextPageParam: nextPageParam });

/** /campaigns (accepts q): search bound to ?q=, the campaigns table (cards on small screens), infinite scroll. */
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
      useList={useCampaigns}
      basePath="/campaigns"
      noun="campaign"
      showProgress
      renderFavorite={(item) => <FavoriteButton targetType="campaign" targetId={item._id} itemName={item.title} mode="oneWay" />}
    />
  );
}
