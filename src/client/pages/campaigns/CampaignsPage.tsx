import { Link } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { useSession } from '../../auth/useSession';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ItemListView, nextPageParam, SearchBox, useSearchQuery } from '../../components/ItemList';
import { usePageTitle } from '../../hooks/usePageTitle';
import { trpc } from '../../trpc';

/** /campaigns (accepts q): search bound to ?q=, the campaigns table, infinite scroll. */
export default function CampaignsPage() {
  usePageTitle(M.navCampaigns);
  const { isSignedIn } = useSession();
  const [q, setQ] = useSearchQuery();
  const list = trpc.campaigns.list.useInfiniteQuery({ q, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return (
    <section className="page list-page">
      <div className="page-head">
        <h1>{M.navCampaigns}</h1>
        {isSignedIn && (
          <Link className="button" to="/campaigns/new">
            + New campaign
          </Link>
        )}
      </div>
      <SearchBox q={q} onSearch={setQ} placeholder="Search campaigns by title, tag or description" />
      <ItemListView
        list={list}
        basePath="/campaigns"
        noun="campaign"
        emptyText={M.noCampaigns}
        showProgress
        renderFavorite={(item) => <FavoriteButton targetType="campaign" targetId={item._id} itemName={item.title} mode="oneWay" />}
      />
    </section>
  );
}
