import { Link } from 'react-router-dom';
import { PAGE_SIZE, TEAM_TABLE_ROLES } from '../../shared/constants';
import { M } from '../../shared/messages';
import type { TeamDto } from '../../shared/schemas/teams';
import { useSession } from '../auth/useSession';
import { trpc } from '../trpc';
import { InfiniteList } from './InfiniteList';
import { Loading } from './Loading';
import { nextCursorOf } from './TeamRows';

const ROLE_TEXT: Record<TeamDto['members'][number]['role'], string> = { member: 'Member', manager: 'Manager' };

/** The roles of the first three active members (owner first), as the project's Teams table shows them. */
export function firstRoles(team: Pick<TeamDto, 'members'>): string {
  return team.members
    .filter((m) => m.status === 'active')
    .slice(0, TEAM_TABLE_ROLES)
    .map((m) => ROLE_TEXT[m.role])
    .join(', ');
}

/**
 * The Teams section of /projects/{id} (spec section 2): a table of the teams attached to the
 * project (name linking to the team, active member count, the first three roles, and a Manage
 * link for the team's owner), and '+ Create Team' (/teams/new?projectId=) for signed-in people.
 * Pages of 20 teams, newest first; the next loads as the end of the table scrolls into view.
 */
export function ProjectTeams({ projectId }: { projectId: string }) {
  const { user, isSignedIn } = useSession();
  const teams = trpc.teams.ofProject.useInfiniteQuery({ projectId, limit: PAGE_SIZE }, { getNextPageParam: nextCursorOf });
  return (
    <section className="card project-teams" aria-labelledby="project-teams-heading">
      <div className="section-head">
        <h2 id="project-teams-heading">Teams</h2>
        {isSignedIn && (
          <Link className="button button-small" to={`/teams/new?projectId=${encodeURIComponent(projectId)}`}>
            + Create Team
          </Link>
        )}
      </div>
      <InfiniteList
        className="infinite-list-inline"
        query={teams}
        failedText={M.teamsLoadFailed}
        empty={<p className="muted">No teams yet.</p>}
        skeleton={<Loading />}
      >
        {(items) => (
          <div className="table-wrap">
            <table className="table project-teams-table">
              <thead>
                <tr>
                  <th scope="col">Team</th>
                  <th scope="col" className="num">
                    Members
                  </th>
                  <th scope="col">Roles</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((t) => {
                  const path = `/teams/${encodeURIComponent(t._id)}`;
                  const nameId = `project-team-${t._id}`;
                  return (
                    <tr key={t._id}>
                      <th scope="row">
                        <Link id={nameId} to={path}>
                          {t.name}
                        </Link>
                      </th>
                      <td className="num">{t.memberCount}</td>
                      <td>{firstRoles(t)}</td>
                      <td className="actions-cell">
                        {user !== null && user._id === t.ownerId._id && (
                          <Link className="button button-small button-secondary" to={`${path}/manage`} aria-describedby={nameId}>
                            Manage
                          </Link>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </InfiniteList>
    </section>
  );
}
