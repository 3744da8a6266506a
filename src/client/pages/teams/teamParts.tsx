import { Link } from 'react-router-dom';
import { MAX_PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { TEAM_MEMBERS_PAGE_SIZE, type TeamDto, type TeamMemberDto } from '../../../shared/schemas/teams';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { Avatar, personName } from '../../components/OwnerLink';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

/** Path of a team's page (and, with `/manage`, of its manage page). */
export const teamPath = (id: string, sub = '') => `/teams/${encodeURIComponent(id)}${sub}`;

export const ROLE_LABEL: Record<TeamMemberDto['role'], string> = { member: 'Member', manager: 'Manager' };
export const STATUS_LABEL: Record<TeamMemberDto['status'], string> = { invited: 'Invited', requested: 'Requested', active: 'Active' };

/** How a member is named: their username, else their name. */
export const memberName = (m: Pick<TeamMemberDto, 'username' | 'name'>) => personName(m);

export interface ProjectOption {
  _id: string;
  title: string;
}

/**
 * The signed-in person's own projects, for the "assign to project" selects (teams attach only
 * to their owner's projects). The first 100 are loaded; a `wanted` project (the ?projectId= of
 * the page) that is not among them is asked for by id, so it is offered when it is one of mine.
 */
export function useMyProjects(wanted?: string | null) {
  const mine = trpc.projects.list.useQuery({ my: true, limit: MAX_PAGE_SIZE });
  const items: ProjectOption[] = mine.data?.items ?? [];
  const missing = Boolean(wanted && mine.data && !items.some((p) => p._id === wanted));
  const extra = trpc.projects.list.useQuery({ my: true, projectId: wanted ?? '', limit: 1 }, { enabled: missing });
  const options: ProjectOption[] = missing && extra.data ? [...extra.data.items, ...items] : items;
  return {
    options,
    /** Still asking (the list, or the wanted project). */
    isPending: mine.isPending || (missing && extra.isPending),
    error: mine.error ?? extra.error ?? null,
    has: (id: string | null | undefined) => Boolean(id && options.some((p) => p._id === id)),
  };
}

/** The 'None' option and one per project, for a select of my projects. */
export function ProjectOptions({ options }: { options: ProjectOption[] }) {
  return (
    <>
      <option value="">None</option>
      {options.map((p) => (
        <option key={p._id} value={p._id}>
          {p.title}
        </option>
      ))}
    </>
  );
}

/** A member's name as a link to their profile, with avatar and an "Owner" mark. */
export function MemberName({ member }: { member: TeamMemberDto }) {
  return (
    <span className="member-name">
      <Link className="owner-link" to={`/profiles/${encodeURIComponent(member.userId)}`}>
        <Avatar person={{ _id: member.userId, username: member.username, name: member.name, imageUrl: member.imageUrl }} size={28} />
        <span>{memberName(member)}</span>
      </Link>
      {member.isOwner && <span className="status-badge">Owner</span>}
    </span>
  );
}

/** The team's cover, or its initial on a placeholder. */
export function TeamCover({ team }: { team: Pick<TeamDto, 'name' | 'imageUrl'> }) {
  if (team.imageUrl) {
    return (
      <div className="cover team-cover">
        <img src={team.imageUrl} alt={`${team.name} cover`} />
      </div>
    );
  }
  return (
    <div className="cover cover-placeholder team-cover" role="img" aria-label={`${team.name} (no image)`}>
      <span aria-hidden="true">{team.name.trim().charAt(0).toUpperCase() || '?'}</span>
    </div>
  );
}

/**
 * The members the viewer may see (owner, active, then invited and requested), a page of 50 at a
 * time from the members call; `members` are those of the loaded pages, each once. The first page
 * is the one the team came with (read at `readAt`), so the table shows at once; any
 * `utils.teams.invalidate()` after a change reads the loaded pages again.
 */
export function useTeamMembers(team: TeamDto, readAt: number) {
  const query = trpc.teams.members.useInfiniteQuery(
    { id: team._id, limit: TEAM_MEMBERS_PAGE_SIZE },
    {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      initialData: { pages: [{ items: team.members, nextCursor: team.membersNextCursor ?? null }], pageParams: [undefined] },
      initialDataUpdatedAt: readAt,
    },
  );
  const seen = new Set<string>();
  const members = (query.data?.pages ?? [])
    .flatMap((p) => p.items)
    .filter((m) => {
      if (seen.has(m.userId)) return false;
      seen.add(m.userId);
      return true;
    });
  return { query, members };
}
type MembersQuery = ReturnType<typeof useTeamMembers>['query'];

/** The members table's states before it has rows: Loading, or the failure with Try again. */
export function MembersPending({ query }: { query: MembersQuery }) {
  if (query.isPending) return <Loading />;
  return (
    <div className="list-error">
      <Notice kind="error">{errorMessage(query.error, M.teamLoadFailed)}</Notice>
      <button type="button" className="button button-secondary" onClick={() => void query.refetch()}>
        Try again
      </button>
    </div>
  );
}

/**
 * 'Load more members' under a members table while more pages exist. While a page is on its way
 * the button is aria-busy and a press does nothing (it keeps its focus); a failure says so and
 * the button tries again.
 */
export function LoadMoreMembers({ query }: { query: MembersQuery }) {
  if (!query.hasNextPage) return null;
  const busy = query.isFetchingNextPage;
  return (
    <div className="load-more">
      <div className="button-row">
        <button
          type="button"
          className="button button-secondary"
          aria-busy={busy || undefined}
          aria-disabled={busy || undefined}
          onClick={() => {
            if (!busy) void query.fetchNextPage();
          }}
        >
          {M.loadMoreMembers}
        </button>
      </div>
      {busy && <Loading />}
      {query.isFetchNextPageError && <Notice kind="error">{errorMessage(query.error, M.teamLoadFailed)}</Notice>}
    </div>
  );
}
