import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import type { TeamDto } from '../../../shared/schemas/teams';
import { useSession } from '../../auth/useSession';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { OwnerLink } from '../../components/OwnerLink';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { LoadMoreMembers, MemberName, MembersPending, ROLE_LABEL, STATUS_LABEL, TeamCover, teamPath, useTeamMembers } from './teamParts';

const BackLink = () => (
  <Link className="back-link" to="/teams">
    Back to teams
  </Link>
);

/** /teams/{id}: the team, its members, and the one membership action that applies to the viewer. */
export default function TeamDetailPage() {
  const { id = '' } = useParams();
  const team = trpc.teams.get.useQuery({ id }, { enabled: id !== '' });
  usePageTitle(team.data?.name ?? 'Team');

  if (team.isPending) return <Loading />;
  if (team.isError) {
    const notFound = httpStatus(team.error) === 404;
    return (
      <section className="page item-detail">
        {notFound ? <h1>{M.notFound}</h1> : <Notice kind="error">{errorMessage(team.error, M.teamLoadFailed)}</Notice>}
        <p>
          <BackLink />
        </p>
      </section>
    );
  }
  return <TeamView team={team.data} readAt={team.dataUpdatedAt} />;
}

/** `readAt`: when the team was read (its first page of members is as fresh as that). */
function TeamView({ team, readAt }: { team: TeamDto; readAt: number }) {
  return (
    <article className="page item-detail team-detail">
      <BackLink />
      <header className="item-head">
        <h1>{team.name}</h1>
      </header>
      <div className="detail-grid">
        <div className="detail-main">
          <TeamCover team={team} />
          <section className="description" aria-labelledby="team-about-heading">
            <h2 id="team-about-heading">About</h2>
            {team.description.trim() ? <p className="prewrap">{team.description}</p> : <p className="muted">No description yet.</p>}
          </section>
          <MembersTable team={team} readAt={readAt} />
        </div>
        <aside className="detail-side card" aria-label="Team details">
          <dl className="facts">
            <div>
              <dt>Owner</dt>
              <dd>
                <OwnerLink person={team.ownerId} avatar size={28} />
              </dd>
            </div>
            <div>
              <dt>Project</dt>
              <dd>
                {team.projectId && team.projectTitle ? (
                  <Link to={`/projects/${encodeURIComponent(team.projectId)}`}>{team.projectTitle}</Link>
                ) : (
                  <span className="muted">None</span>
                )}
              </dd>
            </div>
            <div>
              <dt>Members</dt>
              <dd>{team.memberCount}</dd>
            </div>
          </dl>
          {team.tags.length > 0 && (
            <div className="looking-for">
              <h2 className="side-heading" id="team-looking-for">
                Looking for
              </h2>
              <ul className="tag-pills" aria-labelledby="team-looking-for">
                {team.tags.map((t) => (
                  <li key={t}>
                    <Link className="tag-pill" to={`/teams?tags=${encodeURIComponent(t)}`}>
                      {t}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          )}
          <MembershipActions team={team} />
        </aside>
      </div>
    </article>
  );
}

/** The members the viewer may see, 50 at a time, with 'Load more members' while there are more. */
function MembersTable({ team, readAt }: { team: TeamDto; readAt: number }) {
  const { query, members } = useTeamMembers(team, readAt);
  return (
    <section className="team-members" aria-labelledby="team-members-heading">
      <h2 id="team-members-heading">Members</h2>
      {!query.data ? (
        <MembersPending query={query} />
      ) : members.length === 0 ? (
        <p className="muted">No members yet.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table members-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {members.map((m) => (
                  <tr key={m.userId}>
                    <th scope="row">
                      <MemberName member={m} />
                    </th>
                    <td>{ROLE_LABEL[m.role]}</td>
                    <td>{STATUS_LABEL[m.status]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <LoadMoreMembers query={query} />
        </>
      )}
    </section>
  );
}

/**
 * What the viewer may do, each shown only when it applies: Manage (the owner), Request to join
 * (signed in, no membership), Accept invite or Decline (invited), Leave team (active, not the owner).
 * A signed-out visitor sees none of them.
 */
function MembershipActions({ team }: { team: TeamDto }) {
  const { user, isLoading } = useSession();
  const utils = trpc.useUtils();
  // the call stays busy until the team is read again, so no stale button can be pressed twice
  const refresh = () => utils.teams.invalidate();
  const request = trpc.teams.request.useMutation({ onSuccess: refresh });
  const accept = trpc.teams.accept.useMutation({ onSuccess: refresh });
  const leave = trpc.teams.leave.useMutation({ onSuccess: refresh });
  // leaving while invited is declining (the same call: the invite's row goes)
  const [declined, setDeclined] = useState(false);

  if (isLoading || !user) return null;
  const isOwner = user._id === team.ownerId._id;
  const mine = team.myMembership;
  const busy = request.isPending || accept.isPending || leave.isPending;
  const id = { id: team._id };
  const failure = request.isError
    ? errorMessage(request.error, M.teamRequestFailed)
    : accept.isError
      ? errorMessage(accept.error, M.teamAcceptFailed)
      : leave.isError
        ? errorMessage(leave.error, M.teamLeaveFailed)
        : null;
  const reset = () => {
    request.reset();
    accept.reset();
    leave.reset();
  };

  let note: string | null = null;
  if (!isOwner && mine?.status === 'invited') note = 'You are invited to join this team.';
  else if (!isOwner && mine?.status === 'requested') note = 'Your request to join is waiting for the owner.';
  else if (!isOwner && mine?.status === 'active') note = `You are a ${mine.role} of this team.`;
  else if (!isOwner && !mine && leave.isSuccess) note = declined ? 'You declined the invite.' : 'You left the team.';

  return (
    // biome-ignore lint/a11y/useSemanticElements: a note and the membership buttons, not form fields under a legend
    <div className="team-actions" role="group" aria-label="Membership">
      {note && <p className="muted team-note">{note}</p>}
      <div className="button-row">
        {isOwner && (
          <Link className="button" to={teamPath(team._id, '/manage')}>
            Manage
          </Link>
        )}
        {!isOwner && !mine && (
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => {
              reset();
              request.mutate(id);
            }}
          >
            Request to join
          </button>
        )}
        {!isOwner && mine?.status === 'invited' && (
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => {
              reset();
              accept.mutate(id);
            }}
          >
            Accept invite
          </button>
        )}
        {!isOwner && mine?.status === 'invited' && (
          <button
            type="button"
            className="button button-secondary"
            disabled={busy}
            onClick={() => {
              reset();
              setDeclined(true);
              leave.mutate(id);
            }}
          >
            Decline
          </button>
        )}
        {!isOwner && mine?.status === 'active' && (
          <button
            type="button"
            className="button button-secondary"
            disabled={busy}
            onClick={() => {
              reset();
              setDeclined(false);
              leave.mutate(id);
            }}
          >
            Leave team
          </button>
        )}
      </div>
      <Notice kind="error">{failure}</Notice>
    </div>
  );
}
