import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../shared/messages';
import { TEAM_LIST_TAGS } from '../../shared/constants';
import type { TeamDto } from '../../shared/schemas/teams';
import { InfiniteList, ListSkeleton, type PagedQuery } from './InfiniteList';
import { ZoomableImage } from './ZoomableImage';

/** The slice of an infinite query of team pages (teams.mine, ofUser, ofProject) a list reads. */
export type TeamPagesLike = PagedQuery<TeamDto>;

/** getNextPageParam of a keyset list: the page's `nextCursor`, null (no more) on the last page. */
export const nextCursorOf = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

const STATUS_TEXT = { invited: 'Invited', requested: 'Requested', active: null } as const;

/**
 * Teams as compact rows (profile and /my Teams tabs): cover (zoomable), name linking to
 * /teams/{id}, the project, active member count and up to six 'looking for' tags. With
 * `showMyStatus`, a pending invite or request of the viewer is marked. Pages of teams load as
 * the end of the list scrolls into view.
 */
export function TeamRows({ query, label, empty, showMyStatus = false }: { query: TeamPagesLike; label: string; empty: ReactNode; showMyStatus?: boolean }) {
  return (
    <InfiniteList query={query} failedText={M.teamsLoadFailed} empty={empty} skeleton={<ListSkeleton kind="card" rows={4} />}>
      {(teams) => (
        <ul className="compact-items" aria-label={label}>
          {teams.map((t) => (
            <TeamRow key={t._id} team={t} status={showMyStatus && t.myMembership ? STATUS_TEXT[t.myMembership.status] : null} />
          ))}
        </ul>
      )}
    </InfiniteList>
  );
}

function TeamRow({ team: t, status }: { team: TeamDto; status: string | null }) {
  return (
    <li className="compact-item">
      <div className="compact-thumb">
        {t.imageUrl ? (
          <ZoomableImage src={t.imageUrl} alt={`${t.name} image`} imgClassName="thumb" />
        ) : (
          <span className="thumb thumb-placeholder" aria-hidden="true">
            {t.name.trim().charAt(0).toUpperCase() || '?'}
          </span>
        )}
      </div>
      <div className="compact-body">
        <Link className="compact-title" to={`/teams/${encodeURIComponent(t._id)}`}>
          {t.name}
        </Link>
        {status && <span className="status-badge">{status}</span>}
        <p className="compact-meta muted">
          {t.projectTitle && t.projectId && (
            <span>
              Project: <Link to={`/projects/${encodeURIComponent(t.projectId)}`}>{t.projectTitle}</Link>
            </span>
          )}
          <span>
            {t.memberCount} {t.memberCount === 1 ? 'member' : 'members'}
          </span>
        </p>
        {t.tags.length > 0 && (
          <ul className="tag-pills" aria-label="Looking for">
            {t.tags.slice(0, TEAM_LIST_TAGS).map((tag) => (
              <li key={tag}>
                <span className="tag-pill">{tag}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}
