import { Link } from 'react-router-dom';
import { M } from '../../shared/messages';
import { TEAM_LIST_TAGS } from '../../shared/constants';
import type { TeamDto } from '../../shared/schemas/teams';
import { errorMessage } from '../lib/errors';
import { Loading } from './Loading';
import { Notice } from './Notice';
import { ZoomableImage } from './ZoomableImage';

interface TeamQueryLike {
  data?: { items: TeamDto[] };
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch(): unknown;
}

const STATUS_TEXT = { invited: 'Invited', requested: 'Requested', active: null } as const;

/**
 * Teams as compact rows (profile and /my Teams tabs): cover (zoomable), name linking to
 * /teams/{id}, the project, active member count and up to six 'looking for' tags. With
 * `showMyStatus`, a pending invite or request of the viewer is marked.
 */
export function TeamRows({ query, label, emptyText, showMyStatus = false }: { query: TeamQueryLike; label: string; emptyText: string; showMyStatus?: boolean }) {
  if (query.isPending) return <Loading />;
  if (query.isError || !query.data) {
    return (
      <div className="list-error">
        <Notice kind="error">{errorMessage(query.error, M.teamsLoadFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const teams = query.data.items;
  if (!teams.length) return <p className="empty-state muted">{emptyText}</p>;
  return (
    <ul className="compact-items" aria-label={label}>
      {teams.map((t) => {
        const status = showMyStatus && t.myMembership ? STATUS_TEXT[t.myMembership.status] : null;
        return (
          <li key={t._id} className="compact-item">
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
      })}
    </ul>
  );
}
