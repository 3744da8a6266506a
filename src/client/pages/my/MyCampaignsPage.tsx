import { Link } from 'react-router-dom';
import { useSession } from '../../auth/useSession';
import { Loading } from '../../components/Loading';
import { usePageTitle } from '../../hooks/usePageTitle';
import { OwnCampaigns } from './OwnLists';

/** /myCampaigns (signed in only, linked from home): my own campaigns, active and past. */
export default function MyCampaignsPage() {
  usePageTitle('My campaigns');
  const { user } = useSession();
  return (
    <section className="page">
      <div className="page-head">
        <h1>My campaigns</h1>
        <Link className="button" to="/campaigns/new">
          + New campaign
        </Link>
      </div>
      {user ? <OwnCampaigns userId={user._id} /> : <Loading />}
    </section>
  );
}
