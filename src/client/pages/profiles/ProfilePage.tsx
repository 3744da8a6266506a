import { Link, useParams } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { PublicUserDto } from '../../../shared/schemas/user';
import { useSession } from '../../auth/useSession';
import { FavoriteButton } from '../../components/FavoriteButton';
import { EmptyState, InfiniteList, ListSkeleton, type PagedQuery } from '../../components/InfiniteList';
import { type CardItem, ItemCardGrid } from '../../components/ItemCard';
import { nextPageParam } from '../../components/ItemList';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { Avatar } from '../../components/OwnerLink';
import { displayName, ProfileTagList } from '../../components/PersonSummary';
import { Tabs, useTabParam } from '../../components/Tabs';
import { nextCursorOf, TeamRows } from '../../components/TeamRows';
import { ZoomableImage } from '../../components/ZoomableImage';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';

const TABS = [
  { id: 'campaigns', label: 'Campaigns' },
  { id: 'projects', label: 'Projects' },
  { id: 'teams', label: 'Teams' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/**
 * /profiles/{id}: a person's public profile (spec section 2): avatar (click to enlarge), name,
 * username and tags; tabs Campaigns, Projects, Teams. The owner gets 'Edit Profile'; other
 * signed-in people a Favorite toggle and Block / Unblock. 'Not found' for an unknown profile,
 * otherwise 'Failed to load profile' (or the server's message).
 */
export default function ProfilePage() {
  const { id = '' } = useParams();
  const profile = trpc.users.get.useQuery({ id }, { enabled: id !== '' });
  usePageTitle(profile.data ? displayName(profile.data) : 'Profile');

  if (profile.isPending) return <Loading />;
  if (profile.isError) {
    const notFound = httpStatus(profile.error) === 404;
    return (
      <section className="page">
        {notFound ? <h1>{M.notFound}</h1> : <Notice kind="error">{errorMessage(profile.error, M.profileLoadFailed)}</Notice>}
        <p>
          <Link className="back-link" to="/profiles">
            Back to profiles
          </Link>
        </p>
      </section>
    );
  }
  return <ProfileView key={profile.data._id} person={profile.data} />;
}

function ProfileView({ person }: { person: PublicUserDto }) {
  const { user, isSignedIn } = useSession();
  const [tab, setTab] = useTabParam<TabId>(
    TABS.map((t) => t.id),
    'campaigns',
  );
  const isOwner = user?._id === person._id;
  const name = displayName(person);
  const picture = person.avatarUrl || person.imageUrl;

  return (
    <article className="page profile-page">
      <header className="profile-head card">
        <div className="profile-avatar">
          {picture ? (
            <ZoomableImage
              src={picture}
              alt={`${name} profile image`}
              className="profile-avatar-button"
              imgClassName="avatar avatar-xl"
              width={128}
              height={128}
            />
          ) : (
            <Avatar person={person} size={128} />
          )}
        </div>
        <div className="profile-info">
          <h1>{name}</h1>
          {person.username && <p className="profile-username muted">@{person.username}</p>}
          <ProfileTagList tags={person.tags} />
          <div className="profile-actions">
            {isOwner ? (
              <Link className="button button-secondary" to="/account">
                Edit Profile
              </Link>
            ) : (
              isSignedIn && (
                <>
                  <FavoriteButton targetType="profile" targetId={person._id} mode="toggle" />
                  <BlockControl userId={person._id} />
                </>
              )
            )}
          </div>
        </div>
      </header>

      <Tabs label="Profile sections" tabs={TABS} selected={tab} onSelect={setTab}>
        {tab === 'campaigns' && <CampaignsTab userId={person._id} name={name} />}
        {tab === 'projects' && <ProjectsTab userId={person._id} name={name} />}
        {tab === 'teams' && <TeamsTab userId={person._id} name={name} />}
      </Tabs>
    </article>
  );
}

/**
 * Block (blocks.block); once blocked, 'Blocked' and an Unblock button (blocks.unblock). Whether
 * this person is blocked is asked about them alone (blocks.status), however long my list is.
 */
function BlockControl({ userId }: { userId: string }) {
  const utils = trpc.useUtils();
  const status = trpc.blocks.status.useQuery({ userId });
  // the status and /blocked's list (a press here adds to it or takes from it)
  const refresh = () => void utils.blocks.invalidate();
  const block = trpc.blocks.block.useMutation({ onSuccess: refresh });
  const unblock = trpc.blocks.unblock.useMutation({ onSuccess: refresh });
  if (status.isPending) return null;
  const blocked = status.data?.blocked ?? false;
  const busy = block.isPending || unblock.isPending || status.isFetching;
  const failed = block.error ?? unblock.error;
  return (
    <span className="block-control">
      {blocked ? (
        <>
          <span className="status-badge status-blocked" role="status">
            Blocked
          </span>
          <button type="button" className="button button-small button-secondary" disabled={busy} onClick={() => unblock.mutate({ userId })}>
            Unblock
          </button>
        </>
      ) : (
        <button type="button" className="button button-small button-danger" disabled={busy} onClick={() => block.mutate({ userId })}>
          Block
        </button>
      )}
      {failed && <Notice kind="error">{errorMessage(failed, M.requestFailed)}</Notice>}
    </span>
  );
}

/** A person's campaigns or projects as image-first cards (without the creator's name: it is their page), with every list state. */
function ProfileCards<T extends CardItem>({ list, kind, label, empty }: { list: PagedQuery<T>; kind: 'campaign' | 'project'; label: string; empty: string }) {
  return (
    <InfiniteList query={list} empty={<EmptyState text={empty} />} skeleton={<ListSkeleton kind="tile" rows={2} />}>
      {(items) => <ItemCardGrid items={items} kind={kind} basePath={`/${kind}s`} label={label} showCreator={false} maxColumns={3} />}
    </InfiniteList>
  );
}

function CampaignsTab({ userId, name }: { userId: string; name: string }) {
  const list = trpc.users.campaigns.useInfiniteQuery({ userId, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return <ProfileCards list={list} kind="campaign" label={`Campaigns by ${name}`} empty={M.noCampaigns} />;
}

function ProjectsTab({ userId, name }: { userId: string; name: string }) {
  const list = trpc.projects.list.useInfiniteQuery({ ownerId: userId, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return <ProfileCards list={list} kind="project" label={`Projects by ${name}`} empty={M.noProjects} />;
}

function TeamsTab({ userId, name }: { userId: string; name: string }) {
  const teams = trpc.teams.ofUser.useInfiniteQuery({ userId, limit: PAGE_SIZE }, { getNextPageParam: nextCursorOf });
  return <TeamRows query={teams} label={`Teams of ${name}`} empty={<EmptyState text="No teams yet." />} />;
}
