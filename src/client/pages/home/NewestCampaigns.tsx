import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { HOME_CAMPAIGNS, homeCampaignsInput } from '../../../shared/first-queries';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { useSession } from '../../auth/useSession';
import { categoryLabel } from '../../components/itemText';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

function ownerName(c: CampaignDto): string {
  return c.ownerId.name || c.ownerId.username || 'Someone';
}

function CampaignCard({ c }: { c: CampaignDto }) {
  const href = `/campaigns/${encodeURIComponent(c._id)}`;
  return (
    <li className="home-card card">
      <div className="home-card-cover" aria-hidden="true">
        {c.imageUrl ? <img src={c.imageUrl} alt="" loading="lazy" decoding="async" /> : <span>{c.title.trim().charAt(0).toUpperCase() || '?'}</span>}
      </div>
      <div className="home-card-body">
        <h3 className="home-card-title">
          <Link to={href}>{c.title}</Link>
        </h3>
        <p className="home-card-line muted">
          <span className="type-badge">{categoryLabel(c.type)}</span> by {ownerName(c)}
        </p>
        <p className="home-card-line">
          <strong>{formatMoney(c.totalRaised, c.currency)}</strong> raised · {c.coordination}
        </p>
      </div>
    </li>
  );
}

/** Stand-ins of the cards' size while the list loads, so nothing below moves when it comes. */
function CardSkeletons() {
  return (
    <>
      <p className="visually-hidden" role="status">
        {M.loading}
      </p>
      <ul className="home-cards" aria-hidden="true">
        {Array.from({ length: HOME_CAMPAIGNS }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholder cards have no identity of their own and never move
          <li key={i} className="home-card card home-card-skeleton">
            <div className="home-card-cover" />
            <div className="home-card-body" />
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The home page's newest campaigns as cards with a link to all of them; on an instance without
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
      <ul className="home-cards">
        {list.data.items.slice(0, HOME_CAMPAIGNS).map((c) => (
          <CampaignCard key={c._id} c={c} />
        ))}
      </ul>
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
