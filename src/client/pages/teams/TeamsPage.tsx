import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { PAGE_SIZE, TEAM_LIST_TAGS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { normaliseTags } from '../../../shared/schemas/common';
import type { TeamDto } from '../../../shared/schemas/teams';
import { useSession } from '../../auth/useSession';
import { InfiniteScrollSentinel } from '../../components/InfiniteScrollSentinel';
import { nextPageParam, SearchBox, useSearchQuery, type InfiniteListResult } from '../../components/ItemList';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { TagInput } from '../../components/TagInput';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { teamPath } from './teamParts';

const NO_TEAMS = 'No teams found.';

/**
 * The tag filter in the URL (?tags=a,b). The list is filtered by the first tag only (spec
 * section 2); the others stay as typed, so removing the first one moves the filter on.
 */
function useTagFilter(): [string[], (tags: string[]) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get('tags') ?? '';
  const [tags, setLocal] = useState<string[]>(() => normaliseTags(raw.split(',')));
  useEffect(() => setLocal(normaliseTags(raw.split(','))), [raw]);
  const set = (next: string[]) => {
    setLocal(next);
    const p = new URLSearchParams(params);
    if (next.length) p.set('tags', next.join(','));
    else p.delete('tags');
    setParams(p);
  };
  return [tags, set];
}

/** /teams: search (?q=) and a tag filter, the teams table, infinite scroll. */
export default function TeamsPage() {
  usePageTitle('Teams');
  const { isSignedIn } = useSession();
  const [q, setQ] = useSearchQuery();
  const [tags, setTags] = useTagFilter();
  const tag = tags[0] ?? '';
  const list = trpc.teams.list.useInfiniteQuery({ q, tag, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });

  return (
    <section className="page list-page teams-page">
      <div className="page-head">
        <h1>Teams</h1>
        {isSignedIn && (
          <Link className="button" to="/teams/new">
            + Create Team
          </Link>
        )}
      </div>
      <SearchBox q={q} onSearch={setQ} placeholder="Search teams by name, tag or description" />
      <div className="team-tag-filter">
        <TagInput label="Filter by tag" hint={tags.length > 1 ? `the first tag (${tag}) is used` : 'teams looking for it'} tags={tags} onChange={setTags} />
      </div>
      <TeamList list={list} />
    </section>
  );
}

function TeamList({ list }: { list: InfiniteListResult<TeamDto> }) {
  if (list.isPending) return <Loading />;
  if (list.isError && !list.data) {
    return (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.teamsLoadFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const pages = list.data?.pages ?? [];
  // keyset pages cannot repeat a team, but a team made meanwhile could shift an offset: show each once
  const seen = new Set<string>();
  const items = pages.flatMap((p) => p.items).filter((t) => {
    if (seen.has(t._id)) return false;
    seen.add(t._id);
    return true;
  });
  const total = pages[pages.length - 1]?.total ?? items.length;
  if (!items.length) return <p className="empty-state muted">{NO_TEAMS}</p>;
  return (
    <>
      <p className="list-count muted" aria-live="polite">
        Showing {items.length} of {Math.max(total, items.length)}
      </p>
      <TeamTable teams={items} />
      <InfiniteScrollSentinel
        hasMore={list.hasNextPage}
        loading={list.isFetchingNextPage}
        failed={list.isFetchNextPageError}
        onLoadMore={() => void list.fetchNextPage()}
      />
      {list.isFetchingNextPage && <Loading />}
      {list.isFetchNextPageError && (
        <div className="list-error">
          <Notice kind="error">{errorMessage(list.error, M.teamsLoadFailed)}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void list.fetchNextPage()}>
            Try again
          </button>
        </div>
      )}
      {!list.hasNextPage && !list.isFetchingNextPage && <p className="end-of-results muted">{M.endOfResults}</p>}
    </>
  );
}

function TeamTable({ teams }: { teams: TeamDto[] }) {
  return (
    <div className="table-wrap">
      <table className="table item-table team-table">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Thumbnail</span>
            </th>
            <th scope="col">Name</th>
            <th scope="col">Looking for</th>
            <th scope="col" className="num">
              Members
            </th>
          </tr>
        </thead>
        <tbody>
          {teams.map((t) => (
            <tr key={t._id}>
              <td className="thumb-cell">
                {t.imageUrl ? (
                  <img className="thumb" src={t.imageUrl} alt="" loading="lazy" />
                ) : (
                  <span className="thumb thumb-placeholder" aria-hidden="true">
                    {t.name.trim().charAt(0).toUpperCase() || '?'}
                  </span>
                )}
              </td>
              <th scope="row" className="title-cell">
                <Link to={teamPath(t._id)}>{t.name}</Link>
              </th>
              <td>
                {t.tags.length > 0 ? (
                  <ul className="tag-pills" aria-label={`${t.name} is looking for`}>
                    {t.tags.slice(0, TEAM_LIST_TAGS).map((tag) => (
                      <li key={tag}>
                        <span className="tag-pill">{tag}</span>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="num">{t.memberCount}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
