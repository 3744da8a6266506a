import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { PAGE_SIZE, TEAM_LIST_TAGS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { normaliseTags } from '../../../shared/tags';
import type { TeamDto } from '../../../shared/schemas/teams';
import { useSession } from '../../auth/useSession';
import { EmptyState, InfiniteList, ListSkeleton } from '../../components/InfiniteList';
import { ListCard } from '../../components/ListCard';
import { nextPageParam, SearchBox, useSearchQuery, type InfiniteListResult } from '../../components/ItemList';
import { TagInput } from '../../components/TagInput';
import { useNarrow } from '../../hooks/useNarrow';
import { usePageTitle } from '../../hooks/usePageTitle';
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

/** /teams: search (?q=) and a tag filter, the teams table (cards below 640 px), infinite scroll. */
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
      <TeamList list={list} filtered={Boolean(q || tag)} />
    </section>
  );
}

function TeamList({ list, filtered }: { list: InfiniteListResult<TeamDto>; filtered: boolean }) {
  const narrow = useNarrow();
  const { isSignedIn, isLoading } = useSession();
  const last = list.data?.pages[list.data.pages.length - 1];
  const empty = filtered ? (
    <EmptyState text={NO_TEAMS} hint="Try other words or another tag, or clear the search." />
  ) : (
    <EmptyState
      text={NO_TEAMS}
      hint="Teams gather people around a project, and say which skills they are looking for."
      action={
        isLoading ? null : isSignedIn ? (
          <Link className="button" to="/teams/new">
            Create the first team
          </Link>
        ) : (
          <Link className="button" to="/register">
            Sign up to start one
          </Link>
        )
      }
    />
  );
  return (
    <InfiniteList
      query={list}
      failedText={M.teamsLoadFailed}
      empty={empty}
      count={last && { total: last.total }}
      endText
      skeleton={<ListSkeleton kind={narrow ? 'card' : 'row'} rows={narrow ? 4 : 10} />}
    >
      {(teams) => (narrow ? <TeamCards teams={teams} /> : <TeamTable teams={teams} />)}
    </InfiniteList>
  );
}

function TeamThumb({ team: t }: { team: TeamDto }) {
  return t.imageUrl ? (
    <img className="thumb" src={t.imageUrl} alt="" width={72} height={41} loading="lazy" />
  ) : (
    <span className="thumb thumb-placeholder" aria-hidden="true">
      {t.name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}

function LookingFor({ team: t }: { team: TeamDto }) {
  return t.tags.length > 0 ? (
    <ul className="tag-pills" aria-label={`${t.name} is looking for`}>
      {t.tags.slice(0, TEAM_LIST_TAGS).map((tag) => (
        <li key={tag}>
          <span className="tag-pill">{tag}</span>
        </li>
      ))}
    </ul>
  ) : (
    <span className="muted">—</span>
  );
}

/** The teams as cards below 640 px: the table's facts (name, looking for, members) under their column names. */
function TeamCards({ teams }: { teams: TeamDto[] }) {
  return (
    <ul className="list-cards team-cards" aria-label="Teams">
      {teams.map((t) => (
        <ListCard
          key={t._id}
          href={teamPath(t._id)}
          title={t.name}
          thumb={<TeamThumb team={t} />}
          facts={[
            { label: 'Looking for', value: <LookingFor team={t} />, wide: true },
            { label: 'Members', value: t.memberCount, num: true },
          ]}
        />
      ))}
    </ul>
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
                <TeamThumb team={t} />
              </td>
              <th scope="row" className="title-cell">
                <Link to={teamPath(t._id)}>{t.name}</Link>
              </th>
              <td>
                <LookingFor team={t} />
              </td>
              <td className="num">{t.memberCount}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
