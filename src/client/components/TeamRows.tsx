import { Link } from 'react-router-dom';
import { M } from '../../shared/messages';
import { TEAM_LIST_TAGS } from '../../shared/constants';
import type { TeamDto } from '../../shared/schemas/teams';
import { errorMessage } from '../lib/errors';
import { InfiniteScrollSentinel } from './InfiniteScrollSentinel';
import { Loading } from './Loading';
import { Notice } from './Notice';
import { ZoomableImage } from './ZoomableImage';

/** The slice of an infinite query of team pages (teams.mine, ofUser, ofProject) a list reads. */
export interface TeamPagesLike {
  data?: { pages: { items: TeamDto[] }[] };
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch(): unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  fetchNextPage(): unknown;
}

/** getNextPageParam of a keyset list: the page's `nextCursor`, null (no more) on the last page. */
export const nextCursorOf = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

/**
 * The teams of the loaded pages, each once (keyset pages never repeat a row, but a refetch of
 * the first page after a new team could overlap the next one).
 */
export function teamsOf(query: TeamPagesLike): TeamDto[] {
  const seen = new Set<string>();
  return (query.data?.pages ?? []).flatMap((p) => p.items).filter((t) => {
    if (seen.has(t._id)) return false;
    seen.add(t._id);
    return true;
  });
}

/** After a paged list: infinite scroll (the next page loads 300 px before the end), Loading, and a retry when a page failed. */
export function InfiniteTail({ query, failedText = M.teamsLoadFailed }: { query: TeamPagesLike; failedText?: string }) {
  return (
    <>
      <InfiniteScrollSentinel
        hasMore={query.hasNextPage}
        loading={query.isFetchingNextPage}
        failed={query.isFetchNextPageError}
        onLoadMore={() => void query.fetchNextPage()}
      />
      {query.isFetchingNextPage && <Loading />}
      {query.isFetchNextPageError && (
        <div className="list-error">
          <Notice kind="error">{errorMessage(query.error, failedText)}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void query.fetchNextPage()}>
            Try again
          </button>
        </div>
      )}
    </>
  );
}

const STATUS_TEXT = { invited: 'Invited', requested: 'Requested', active: null } as const;

/**
 * Teams as compact rows (profile and /my Teams tabs): cover (zoomable), name linking to
 * /teams/{id}, the project, active member count and up to six 'looking for' tags. With
 * `showMyStatus`, a pending invite or request of the viewer is marked. Pages of teams load as
 * the end of the list scrolls into view.
 */
export function TeamRows({ query, label, emptyText, showMyStatus = false }: { query: TeamPagesLike; label: string; emptyText: string; showMyStatus?: boolean }) {
  if (query.isPending) return <Loading />;
  if (!query.data) {
    return (
      <div className="list-error">
        <Notice kind="error">{errorMessage(query.error, M.teamsLoadFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const teams = teamsOf(query);
  if (!teams.length && !query.hasNextPage) return <p className="empty-state muted">{emptyText}</p>;
  return (
    <>
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
      <InfiniteTail query={query} />
    </>
  );
}
