import { useState } from 'react';
import { Link } from 'react-router-dom';
import { MAX_PAGE_SIZE, PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { CompactItemList } from '../../components/CompactItemList';
import { InfiniteCompactList } from '../../components/InfiniteCompactList';
import { EmptyState, InfiniteList, ListSkeleton } from '../../components/InfiniteList';
import { nextPageParam } from '../../components/ItemList';
import { nextCursorOf, TeamRows } from '../../components/TeamRows';
import { trpc } from '../../trpc';
import { OwnCampaignFunds } from './OwnCampaignFunds';

/** Next page of a full load (pages of 100): while the last one came back full and the total is not reached. */
function nextFullPage<T>(last: { items: T[]; total: number; nextCursor: string | null }, all: { items: T[] }[]) {
  const loaded = all.reduce((n, p) => n + p.items.length, 0);
  return last.nextCursor && last.items.length >= MAX_PAGE_SIZE && loaded < last.total ? last.nextCursor : undefined;
}

/** The two parts of my campaigns: active (the execution date is not past), then past. */
const SECTIONS = [
  { id: 'active-campaigns', heading: 'Active', past: false, none: 'No active campaigns.' },
  { id: 'past-campaigns', heading: 'Past', past: true, none: 'No past campaigns.' },
] as const;

/**
 * The signed-in person's own campaigns, split into Active and Past (past: the execution date is
 * earlier than now, the API's isPast). Every page is loaded, so each section is complete. Each row
 * has a "Funds" disclosure with the campaign's Funds panel; its balance is only loaded once opened.
 */
export function OwnCampaigns({ userId }: { userId: string }) {
  /** The campaign whose Funds panel is open (one at a time). */
  const [fundsOpen, setFundsOpen] = useState<string | null>(null);
  const list = trpc.users.campaigns.useInfiniteQuery({ userId, limit: MAX_PAGE_SIZE }, { getNextPageParam: nextFullPage });
  const fundsOf = (c: CampaignDto, titleId: string) => (
    <>
      <Link className="button button-secondary button-small" to={`/campaigns/${encodeURIComponent(c._id)}/edit`} aria-describedby={titleId}>
        Edit
      </Link>
      <OwnCampaignFunds campaign={c} titleId={titleId} open={fundsOpen === c._id} onToggle={() => setFundsOpen((id) => (id === c._id ? null : c._id))} />
    </>
  );
  const empty = (
    <EmptyState
      text={M.noCampaigns}
      hint="A campaign collects donations or support for something you want to make happen."
      action={
        <Link className="button" to="/campaigns/new">
          Start your first campaign
        </Link>
      }
    />
  );
  return (
    <InfiniteList query={list} empty={empty} more="all" skeleton={<ListSkeleton kind="card" rows={4} />}>
      {(items) => (
        <div className="own-campaigns">
          {SECTIONS.map(({ id, heading, past, none }) => {
            const shown = items.filter((c) => c.isPast === past);
            return (
              <section key={id} aria-labelledby={id}>
                <h2 id={id}>{heading}</h2>
                {shown.length ? (
                  <CompactItemList items={shown} basePath="/campaigns" noun="campaign" label={`${heading} campaigns`} renderActions={fundsOf} />
                ) : (
                  <p className="muted">{none}</p>
                )}
              </section>
            );
          })}
        </div>
      )}
    </InfiniteList>
  );
}

/** The signed-in person's own projects (projects.list my=true), with infinite scroll. */
export function OwnProjects() {
  const list = trpc.projects.list.useInfiniteQuery({ my: true, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return (
    <InfiniteCompactList
      list={list}
      basePath="/projects"
      noun="project"
      label="My projects"
      empty={
        <EmptyState
          text={M.myProjectsPlaceholder}
          hint="A project gathers people and teams around a piece of work."
          action={
            <Link className="button" to="/projects/new">
              Start your first project
            </Link>
          }
        />
      }
    />
  );
}

/** Teams I own or belong to (teams.mine), with pending invites and requests marked; pages of 20 with infinite scroll. */
export function OwnTeams() {
  const teams = trpc.teams.mine.useInfiniteQuery({ limit: PAGE_SIZE }, { getNextPageParam: nextCursorOf });
  const empty = (
    <EmptyState
      text="Your teams will appear here."
      hint="Teams you create, join or are invited to are listed here."
      action={
        <Link className="button button-secondary" to="/teams">
          Find a team to join
        </Link>
      }
    />
  );
  return <TeamRows query={teams} label="My teams" empty={empty} showMyStatus />;
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
