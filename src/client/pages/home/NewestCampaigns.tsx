import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { HOME_CAMPAIGNS, homeCampaignsInput } from '../../../shared/first-queries';
import { M } from '../../../shared/messages';
import { useSession } from '../../auth/useSession';
import { ItemCardGrid } from '../../components/ItemCard';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

/** Stand-ins of the cards' size while the list loads, so nothing below moves when it comes. */
function CardSkeletons() {
  return (
    <>
      <p className="visually-hidden" role="status">
        {M.loading}
      </p>
      <ul className="item-cards-grid item-cards-max-3" aria-hidden="true">
        {Array.from({ length: HOME_CAMPAIGNS }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholder cards have no identity of their own and never move
          <li key={i} className="item-card card skeleton-tile">
            <span className="item-card-cover skeleton-cover" />
            <span className="skeleton-lines item-card-body">
              <span className="skeleton-line" />
              <span className="skeleton-line skeleton-line-short" />
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The home page's newest campaigns as image-first cards (ItemCard, as on /campaigns) with a link to all of them; on an instance without
 * campaigns, what a campaign is and the next step (start the first one, or sign up to).
 */
export function NewestCampaigns() {
  const { isSignedIn, isLoading } = useSession();
  const list = trpc.campaigns.list.useQuery(homeCampaignsInput());
  let body: ReactNode;
  if (list.isPending) body = <CardSkeletons />;
  else if (list.isError) {
    body = (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  } else if (!list.data.items.length) {
    body = (
      <div className="card home-empty">
        <p>{M.homeEmpty}</p>
        {!isLoading &&
          (isSignedIn ? (
            <Link className="button" to="/campaigns/new">
              {M.startFirstCampaign}
            </Link>
          ) : (
            <Link className="button" to="/register">
              {M.signUpToStart}
            </Link>
          ))}
      </div>
    );
  } else {
    body = (
      <ItemCardGrid
        items={list.data.items.slice(0, HOME_CAMPAIGNS)}
        kind="campaign"
        basePath="/campaigns"
        label={M.newestCampaigns}
        headingLevel={3}
        maxColumns={HOME_CAMPAIGNS}
      />
    );
  }
  const hasMore = list.data !== undefined && list.data.items.length > 0;
  return (
    <section className="home-newest" aria-labelledby="home-newest-heading">
      <div className="home-section-head">
        <h2 id="home-newest-heading">{M.newestCampaigns}</h2>
        {hasMore && <Link to="/campaigns">{M.seeAllCampaigns}</Link>}
      </div>
      {body}
    </section>
  );
}
