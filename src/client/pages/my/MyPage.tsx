import { M } from '../../../shared/messages';
import { SignInRequired } from '../../auth/guards';
import { useSession } from '../../auth/useSession';
import { Loading } from '../../components/Loading';
import { Tabs, useTabParam } from '../../components/Tabs';
import { usePageTitle } from '../../hooks/usePageTitle';
import { CreateLink, OwnCampaigns, OwnProjects, OwnTeams } from './OwnLists';
import { Supported } from './Supported';

const TABS = [
  { id: 'campaigns', label: 'Campaigns' },
  { id: 'projects', label: 'Projects' },
  { id: 'teams', label: 'Teams' },
  { id: 'supported', label: 'Supported' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/**
 * /my: tabs campaigns, projects, teams (spec section 2), and supported (the campaigns I gave to
 * and my monthly donations). Signed out it says exactly 'Please log
 * in to view your campaigns, projects, and teams.' Campaigns are my own, split into Active and
 * Past; the projects and teams tabs have a '+ Create' link.
 */
export default function MyPage() {
  usePageTitle(M.navMy);
  const { user, isLoading } = useSession();
  const [tab, setTab] = useTabParam<TabId>(
    TABS.map((t) => t.id),
    'campaigns',
  );
  if (isLoading) return <Loading />;
  // the spec's own text for /my, on the sign-in page every signed-in route shows
  if (!user) return <SignInRequired message={M.signedOutMy} />;
  return (
    <section className="page">
      <h1>{M.navMy}</h1>
      <Tabs label="My area" tabs={TABS} selected={tab} onSelect={setTab}>
        {tab === 'campaigns' && <OwnCampaigns userId={user._id} />}
        {tab === 'projects' && (
          <>
            <CreateLink to="/projects/new" />
            <OwnProjects />
          </>
        )}
        {tab === 'teams' && (
          <>
            <CreateLink to="/teams/new" />
            <OwnTeams />
          </>
        )}
        {tab === 'supported' && <Supported />}
      </Tabs>
    </section>
  );
}
