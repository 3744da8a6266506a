import { lazy, Suspense, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { campaignInput } from '../../../shared/first-queries';
import { M } from '../../../shared/messages';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { categoryLabel, goalText, visibilityLabel } from '../../components/itemText';
import { DraftBanner } from '../../components/DraftBanner';
import { CircleBanner } from '../../components/preview/CircleBanner';
import { CirclePanel, FeedbackThread, GuestContinue, useCircleView } from '../../components/preview/DraftCircle';
import { ImageGallery } from '../../components/ImageGallery';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ImageOverlay } from '../../components/ImageOverlay';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { OwnerLink } from '../../components/OwnerLink';
import { ShareButton } from '../../components/ShareButton';
import { TagPills } from '../../components/TagPills';
import { useSession } from '../../auth/useSession';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { CommentsSection } from './comments/CommentsSection';
import { DonatePanel } from './DonatePanel';
import { mainActionOf, MoneyBox, StickyAction } from './MoneyBox';
import { RaiseDisputeButton } from '../disputes/RaiseDisputeButton';
import { PageNotice, usePageNotice } from './pageNotice';
import { RecentDonors } from './RecentDonors';
import { SupportPanel } from './SupportPanel';
import { UpdatesSection } from './UpdatesSection';

// the owner's panels (funds, supporters, donations) load only for admins: the owner has them on the dashboard
const FundsPanel = lazy(() => import('./FundsPanel').then((m) => ({ default: m.FundsPanel })));
const CampaignSupporters = lazy(() => import('./CampaignSupporters').then((m) => ({ default: m.CampaignSupporters })));
const CampaignDonations = lazy(() => import('./CampaignDonations').then((m) => ({ default: m.CampaignDonations })));

const BackLink = () => (
  <Link className="back-link" to="/campaigns">
    {M.backToCampaigns}
  </Link>
);

/** /campaigns/{id}: the campaign with its cover, owner, figures, description, tags and gallery; Edit for its owner. */
export default function CampaignDetailPage() {
  const { id = '' } = useParams();
  const campaign = trpc.campaigns.get.useQuery(campaignInput(id), { enabled: id !== '' });
  usePageTitle(campaign.data?.title ?? 'Campaign');

  // "Campaign created." or "Changes saved." when the form sent the person here
  const notice = usePageNotice();

  if (campaign.isPending) return <CampaignSkeleton />;
  if (campaign.isError) {
    const notFound = httpStatus(campaign.error) === 404;
    return (
      <section className="page item-detail">
        {notFound ? <h1>{M.notFound}</h1> : <Notice kind="error">{errorMessage(campaign.error, M.loadCampaignFailed)}</Notice>}
        <p>
          <BackLink />
        </p>
      </section>
    );
  }
  return <CampaignView c={campaign.data} notice={notice} />;
}

/**
 * The loading state in the page's own shape: the heading's line, the 16:9 cover and the details
 * card hold the places the campaign fills, so nothing moves when it arrives.
 */
function CampaignSkeleton() {
  return (
    <div className="page item-detail campaign-skeleton">
      <BackLink />
      <div className="item-head">
        <Loading />
      </div>
      <div className="detail-grid">
        <div className="detail-main">
          <div className="cover skeleton-block" />
        </div>
        <div className="detail-side-col">
          <div className="detail-side card skeleton-side" />
        </div>
      </div>
    </div>
  );
}

function CampaignView({ c, notice }: { c: CampaignDto; notice: string | null }) {
  const [coverOpen, setCoverOpen] = useState(false);
  const session = useSession();
  const coverAlt = `${c.title} cover`;
  const takesDonations = c.actionMode === 'donation' || c.actionMode === 'both';
  const takesSupport = c.actionMode === 'support' || c.actionMode === 'both';
  const isOwner = session.user !== null && session.user._id === c.ownerId._id;
  const ownerView = isOwner || session.isAdmin;
  // money, support and comments open at release (a draft is seen by its owner and its circle)
  const released = c.visibility === 'released';
  // the money box's main action (Donate or I'm in), and the phone's bar that keeps it on screen
  const action = mainActionOf(c, { isOwner, released });
  const boxActionRef = useRef<HTMLDivElement>(null);
  const circle = useCircleView('campaign', c._id, !released, isOwner);
  if (circle.state === 'loading') return <CampaignSkeleton />;
  if (circle.state === 'continue')
    return (
      <Suspense fallback={<Loading />}>
        <GuestContinue kind="campaign" id={c._id} />
      </Suspense>
    );
  return (
    <article className="page item-detail campaign-page">
      <BackLink />
      <PageNotice text={notice} />
      {notice === M.campaignCreated && released && (
        <div className="share-notice notice notice-info">
          <p>Share it: the first people to hear about a campaign are the ones who start it off.</p>
          <ShareButton title={c.title} className="button button-small" label="Share it" />
        </div>
      )}
      {isOwner && !released && <DraftBanner kind="campaign" item={c} />}
      {circle.state === 'member' && <CircleBanner releaseAt={c.releaseAt} me={circle.me} />}
      <header className="item-head">
        <h1>{c.title}</h1>
        <span className="type-badge">{categoryLabel(c.type)}</span>
        {c.visibility !== 'released' && <span className="status-badge">{visibilityLabel(c.visibility)}</span>}
        {c.isPast && <span className="status-badge">Past</span>}
        {released && !isOwner && <FavoriteButton targetType="campaign" targetId={c._id} mode="toggle" />}
        {released && <ShareButton title={c.title} />}
        {isOwner && (
          <Link className="button button-secondary button-small" to={`/campaigns/${encodeURIComponent(c._id)}/edit`}>
            Edit
          </Link>
        )}
        {isOwner && (
          <Link className="button button-secondary button-small" to={`/campaigns/${encodeURIComponent(c._id)}/dashboard`}>
            Dashboard
          </Link>
        )}
      </header>
      <div className="detail-grid campaign-grid">
        <div className="detail-cover">
          {c.imageUrl ? (
            <button type="button" className="image-button cover" onClick={() => setCoverOpen(true)} aria-label="Enlarge cover image">
              <img src={c.imageUrl} alt={coverAlt} />
            </button>
          ) : (
            <div className="cover cover-placeholder" aria-hidden="true">
              {c.title.trim().charAt(0).toUpperCase()}
            </div>
          )}
          {coverOpen && c.imageUrl && <ImageOverlay src={c.imageUrl} alt={coverAlt} onClose={() => setCoverOpen(false)} />}
        </div>
        <div className="detail-money">
          <MoneyBox campaign={c} action={action} actionRef={boxActionRef} />
        </div>
        <div className="detail-main">
          <section className="description" aria-labelledby="about-heading">
            <h2 id="about-heading">About</h2>
            {c.description.trim() ? <p className="prewrap">{c.description}</p> : <p className="muted">No description yet.</p>}
          </section>
          <ImageGallery images={c.images} title={c.title} />
          <UpdatesSection campaignId={c._id} />
        </div>
        <div className="detail-side-col">
          <aside className="detail-side card" aria-label="Campaign details">
            <div className="owner-row">
              <OwnerLink person={c.ownerId} avatar size={40} />
            </div>
            <dl className="facts">
              <div>
                <dt>Type</dt>
                <dd>{categoryLabel(c.type)}</dd>
              </div>
              {c.goalAmount > 0 && (
                <div>
                  <dt>Goal</dt>
                  <dd>{goalText(c)}</dd>
                </div>
              )}
            </dl>
            <TagPills tags={c.tags} basePath="/campaigns" />
            {/* owners see their dashboard and Edit instead (#33) */}
            {session.user && released && !isOwner && <RaiseDisputeButton campaignId={c._id} className="button button-secondary button-small" />}
          </aside>
          {released && takesSupport && <SupportPanel campaign={c} />}
          {released && takesDonations && !isOwner && <DonatePanel campaign={c} />}
          {released && (takesDonations || c.donors > 0) && <RecentDonors campaignId={c._id} isOwner={isOwner} />}
        </div>
      </div>
      {isOwner && (
        <Suspense fallback={<Loading />}>
          <CirclePanel kind="campaign" id={c._id} released={released} />
          <FeedbackThread kind="campaign" id={c._id} canRead canWrite={!released} owner />
        </Suspense>
      )}
      {circle.state === 'member' && (
        <Suspense fallback={<Loading />}>
          <FeedbackThread
            kind="campaign"
            id={c._id}
            canRead={circle.me.canReadFeedback}
            canWrite={circle.me.canWriteFeedback}
            owner={false}
            signInToWrite={circle.signInToWrite}
          />
        </Suspense>
      )}
      {/* the owner reads these on the dashboard (linked above); an admin who is not the owner here */}
      {ownerView && !isOwner && (
        <Suspense fallback={<Loading />}>
          <FundsPanel campaign={c} />
          {(takesSupport || c.supporters > 0) && <CampaignSupporters campaignId={c._id} />}
          {(takesDonations || c.donors > 0) && <CampaignDonations campaignId={c._id} />}
        </Suspense>
      )}
      {released && <CommentsSection campaignId={c._id} />}
      {action && <StickyAction campaign={c} action={action} boxActionRef={boxActionRef} />}
    </article>
  );
}
