import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { MAX_PAGE_SIZE, PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { CompactItemList } from '../../components/CompactItemList';
import { InfiniteCompactList } from '../../components/InfiniteCompactList';
import { nextPageParam } from '../../components/ItemList';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { nextCursorOf, TeamRows } from '../../components/TeamRows';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { OwnCampaignFunds } from './OwnCampaignFunds';

/** Next page of a full load (pages of 100): while the last one came back full and the total is not reached. */
function nextFullPage<T>(last: { items: T[]; total: number; nextCursor: string | null }, all: { items: T[] }[]) {
  const loaded = all.reduce((n, p) => n + p.items.length, 0);
  return last.nextCursor && last.items.length >= MAX_PAGE_SIZE && loaded < last.total ? last.nextCursor : undefined;
}

/**
 * The signed-in person's own campaigns, split into Active and Past (past: the execution date is
 * earlier than now, the API's isPast). Every page is loaded, so each section is complete. Each row
 * has an Edit link and a "Funds" disclosure with the campaign's Funds panel; its balance is only loaded once opened.
 */
export function OwnCampaigns({ userId }: { userId: string }) {
  /** The campaign whose Funds panel is open (one at a time). */
  const [fundsOpen, setFundsOpen] = useState<string | null>(null);
  const list = trpc.users.campaigns.useInfiniteQuery({ userId, limit: MAX_PAGE_SIZE }, { getNextPageParam: nextFullPage });
  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = list;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage]);

  if (list.isPending) return <Loading />;
  if (list.isError && !list.data) {
    return (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const items = list.data.pages.flatMap((p) => p.items);
  if (!items.length) {
    return (
      <div className="empty-state">
        <p className="muted">{M.noCampaigns}</p>
        <Link className="button button-secondary" to="/campaigns/new">
          + New campaign
        </Link>
      </div>
    );
  }
  const fundsOf = (c: (typeof items)[number], titleId: string) => (
    <>
      <Link className="button button-secondary button-small" to={`/campaigns/${encodeURIComponent(c._id)}/edit`} aria-describedby={titleId}>
        Edit
      </Link>
      <OwnCampaignFunds campaign={c} titleId={titleId} open={fundsOpen === c._id} onToggle={() => setFundsOpen((id) => (id === c._id ? null : c._id))} />
    </>
  );
  const active = items.filter((c) => !c.isPast);
  const past = items.filter((c) => c.isPast);
  return (
    <div className="own-campaigns">
      <section aria-labelledby="active-campaigns">
        <h2 id="active-campaigns">Active</h2>
        {active.length ? (
          <CompactItemList items={active} basePath="/campaigns" noun="campaign" label="Active campaigns" renderActions={fundsOf} />
        ) : (
          <p className="muted">No active campaigns.</p>
        )}
      </section>
      <section aria-labelledby="past-campaigns">
        <h2 id="past-campaigns">Past</h2>
        {past.length ? <CompactItemList items={past} basePath="/campaigns" noun="campaign" label="Past campaigns" renderActions={fundsOf} /> : <p className="muted">No past campaigns.</p>}
      </section>
      {list.isFetchingNextPage && <Loading />}
      {list.isFetchNextPageError && (
        <div className="list-error">
          <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
          <button type="button" className="button button-secondary" onClick={() => void list.fetchNextPage()}>
            Try again
          </button>
        </div>
      )}
    </div>
  );
}

/** The signed-in person's own projects (projects.list my=true), with infinite scroll. */
export function OwnProjects() {
  const list = trpc.projects.list.useInfiniteQuery({ my: true, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return <InfiniteCompactList list={list} basePath="/projects" noun="project" label="My projects" emptyText={M.myProjectsPlaceholder} />;
}

/** Teams I own or belong to (teams.mine), with pending invites and requests marked; pages of 20 with infinite scroll. */
export function OwnTeams() {
  const teams = trpc.teams.mine.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextCursorOf });
  return <TeamRows query={teams} label="My teams" emptyText="Your teams will appear here." showMyStatus />;
}

/** A '+ Create' link above a tab's list. */
export function CreateLink({ to }: { to: string }) {
  return (
    <div className="tab-actions">
      <Link className="button button-small" to={to}>
        + Create
      </Link>
    </div>
  );
}
