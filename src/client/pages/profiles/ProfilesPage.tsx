import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { PROFILE_LIST_TAGS, PROFILE_PAGE_SIZES, USER_SEARCH_DEBOUNCE_MS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { normaliseTags } from '../../../shared/tags';
import { useSession } from '../../auth/useSession';
import { EmptyState, InfiniteList, ListSkeleton } from '../../components/InfiniteList';
import { PersonSummary } from '../../components/PersonSummary';
import { TagInput } from '../../components/TagInput';
import { usePageTitle } from '../../hooks/usePageTitle';
import { trpc } from '../../trpc';

type PageSize = (typeof PROFILE_PAGE_SIZES)[number];
const DEFAULT_SIZE: PageSize = 20;

interface DirectoryFilter {
  q: string;
  tags: string[];
  match: 'all' | 'any';
  limit: PageSize;
}

function parseFilter(params: URLSearchParams): DirectoryFilter {
  const size = Number(params.get('limit'));
  return {
    q: (params.get('q') ?? '').trim(),
    tags: normaliseTags((params.get('tags') ?? '').split(',')),
    match: params.get('match') === 'all' ? 'all' : 'any',
    limit: (PROFILE_PAGE_SIZES as readonly number[]).includes(size) ? (size as PageSize) : DEFAULT_SIZE,
  };
}

function filterParams(f: DirectoryFilter): URLSearchParams {
  const p = new URLSearchParams();
  if (f.q.trim()) p.set('q', f.q.trim());
  if (f.tags.length) p.set('tags', f.tags.join(','));
  if (f.match === 'all') p.set('match', 'all');
  if (f.limit !== DEFAULT_SIZE) p.set('limit', String(f.limit));
  return p;
}

/**
 * The directory's filter lives in the URL (?q=&tags=a,b&match=all&limit=50): links, reloads and
 * Back keep it. A change shows at once (local state) and then goes to the URL; a URL change made
 * elsewhere (Back, a tag link) replaces the local state.
 */
function useDirectoryFilter(): [DirectoryFilter, (patch: Partial<DirectoryFilter>, replace?: boolean) => void] {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const [filter, setLocal] = useState<DirectoryFilter>(() => parseFilter(params));
  useEffect(() => {
    setLocal(parseFilter(new URLSearchParams(key)));
  }, [key]);
  const set = (patch: Partial<DirectoryFilter>, replace = false) => {
    const next = { ...filter, ...patch, q: (patch.q ?? filter.q).trim() };
    setLocal(next);
    const p = filterParams(next);
    if (p.toString() !== key) setParams(p, { replace });
  };
  return [filter, set];
}

/**
 * /profiles: the people directory (spec sections 2 and 9). Search by name or username (typing
 * pauses 300 ms before asking), a tag filter, 'Match all tags' (match=all, else any), page size
 * 10, 20 or 50, and infinite scroll: the next page is asked for 300 px before the end, while the
 * last page came back full and fewer than the total are shown.
 */
export default function ProfilesPage() {
  usePageTitle('Profiles');
  const utils = trpc.useUtils();
  const { isSignedIn, isLoading } = useSession();
  const [filter, setFilter] = useDirectoryFilter();
  const searchId = useId();
  const sizeId = useId();
  const matchId = useId();
  const [text, setText] = useState(filter.q);

  // Back or a tag link changes ?q=: the box shows it
  useEffect(() => setText((t) => (t.trim() === filter.q ? t : filter.q)), [filter.q]);
  // typing settles before the URL (and the list) follow; the latest filter is used when it fires
  const latest = useRef({ filter, setFilter });
  latest.current = { filter, setFilter };
  useEffect(() => {
    if (text.trim() === latest.current.filter.q) return;
    const t = window.setTimeout(() => latest.current.setFilter({ q: text }, true), USER_SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(t);
  }, [text]);

  const list = useInfiniteQuery({
    queryKey: ['profiles-directory', filter],
    queryFn: ({ pageParam, signal }) =>
      utils.client.users.list.query({ q: filter.q, tags: filter.tags, match: filter.match, limit: filter.limit, page: pageParam }, { signal }),
    initialPageParam: 1,
    getNextPageParam: (last, all) => {
      const loaded = all.reduce((n, p) => n + p.items.length, 0);
      return last.items.length >= filter.limit && loaded < last.total ? last.page + 1 : undefined;
    },
    placeholderData: keepPreviousData,
  });

  const total = list.data?.pages[list.data.pages.length - 1]?.total ?? 0;
  const filtered = Boolean(filter.q || filter.tags.length);

  // Enter in the search box searches at once
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setFilter({ q: text });
  }

  return (
    <section className="page list-page">
      <h1>Profiles</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: a form with role=search is the ARIA search landmark; <search> would only wrap it in one more box */}
      <form className="directory-filter card" role="search" aria-label="Find people" onSubmit={onSubmit}>
        <div className="field directory-search">
          <div className="field-label">
            <label htmlFor={searchId}>Search</label>
          </div>
          <input
            id={searchId}
            type="search"
            name="q"
            value={text}
            placeholder="Name or username"
            autoComplete="off"
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <TagInput label="Tags" tags={filter.tags} onChange={(tags) => setFilter({ tags })} />
        <div className="directory-options">
          <label className="checkbox" htmlFor={matchId}>
            <input id={matchId} type="checkbox" checked={filter.match === 'all'} onChange={(e) => setFilter({ match: e.target.checked ? 'all' : 'any' })} />
            Match all tags
          </label>
          <div className="field field-inline">
            <label htmlFor={sizeId}>Page size</label>
            <select id={sizeId} value={filter.limit} onChange={(e) => setFilter({ limit: Number(e.target.value) as PageSize })}>
              {PROFILE_PAGE_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </div>
        </div>
      </form>

      <InfiniteList
        query={list}
        empty={
          <EmptyState
            text={M.noUsersFound}
            hint={filtered ? 'Try another name, fewer tags, or untick Match all tags.' : 'Everyone who signs up is listed here, with the tags they chose.'}
            action={
              !filtered && !isSignedIn && !isLoading ? (
                <Link className="button" to="/register">
                  Sign up to be the first
                </Link>
              ) : null
            }
          />
        }
        count={{ total }}
        endText
        skeleton={<ListSkeleton kind="card" rows={6} />}
      >
        {(people) => (
          // pages are offsets: someone who signed up meanwhile could appear twice; InfiniteList shows each person once
          <ul className="people-rows directory-list" aria-label="People" aria-busy={list.isPlaceholderData || undefined}>
            {people.map((u) => (
              <li key={u._id} className="people-row">
                <PersonSummary person={u} tagLimit={PROFILE_LIST_TAGS} />
              </li>
            ))}
          </ul>
        )}
      </InfiniteList>
    </section>
  );
}
