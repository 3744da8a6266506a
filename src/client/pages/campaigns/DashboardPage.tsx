import { keepPreviousData } from '@tanstack/react-query';
import { lazy, Suspense, useId } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { campaignInput, dashboardDays, dashboardStatsInput } from '../../../shared/first-queries';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { STATS_PERIODS, type StatsPeriod } from '../../../shared/constants';
import type { CampaignStatsDto, StatsActivityDto } from '../../../shared/schemas/stats';
import { useSession } from '../../auth/useSession';
import { AccessDenied } from '../../components/AccessDenied';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { usePageTitle } from '../../hooks/usePageTitle';
import { formatDateTime } from '../../lib/dates';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { CampaignDonations } from './CampaignDonations';
import { CampaignSupporters } from './CampaignSupporters';
import { FundsPanel } from './FundsPanel';

// the chart library (uPlot) comes with the charts, after the figures: it is in no other page's script
const DashboardCharts = lazy(() => import('./DashboardCharts'));

const campaignPath = (id: string) => `/campaigns/${encodeURIComponent(id)}`;

/**
 * /campaigns/{id}/dashboard (issue #33): the campaign's owner reads raised, donors, supporters,
 * monthly donors, average gift and available; money per day, raised and supporters over the last
 * 30, 90 or 365 UTC days as charts, each with its table; the latest donations, refunds and
 * supporters; and the owner's panels (Funds with payouts, Donations, Supporters). Anyone else who
 * sees the campaign gets Access denied; a campaign they cannot see is Not found.
 */
export default function DashboardPage() {
  const { id = '' } = useParams();
  const { user } = useSession();
  const campaign = trpc.campaigns.get.useQuery(campaignInput(id), { enabled: id !== '' });
  usePageTitle(campaign.data ? `Dashboard: ${campaign.data.title}` : 'Dashboard');

  if (campaign.isPending) return <Loading />;
  if (campaign.isError) {
    const notFound = httpStatus(campaign.error) === 404;
    return (
      <section className="page page-narrow">
        {notFound ? <h1>{M.notFound}</h1> : <Notice kind="error">{errorMessage(campaign.error, M.loadCampaignFailed)}</Notice>}
        <p>
          <Link className="back-link" to="/campaigns">
            {M.backToCampaigns}
          </Link>
        </p>
      </section>
    );
  }
  if (!user || user._id !== campaign.data.ownerId._id) return <AccessDenied />;
  return <Dashboard c={campaign.data} />;
}

function Dashboard({ c }: { c: CampaignDto }) {
  const [params, setParams] = useSearchParams();
  const days = dashboardDays(params.get('days'));
  const stats = trpc.stats.campaign.useQuery(dashboardStatsInput(c._id, days), { placeholderData: keepPreviousData });
  const takesDonations = c.actionMode === 'donation' || c.actionMode === 'both';
  const takesSupport = c.actionMode === 'support' || c.actionMode === 'both';
  const pick = (n: StatsPeriod) => setParams(n === 30 ? {} : { days: String(n) }, { replace: true });

  return (
    <article className="page dashboard">
      <Link className="back-link" to={campaignPath(c._id)}>
        Back to the campaign
      </Link>
      <div className="page-head">
        <h1>Dashboard: {c.title}</h1>
      </div>
      {stats.isPending ? (
        <Loading />
      ) : stats.isError ? (
        httpStatus(stats.error) === 403 ? (
          <Notice kind="error">{M.dashboardOwnerOnly}</Notice>
        ) : (
          <Notice kind="error">{errorMessage(stats.error, M.loadStatsFailed)}</Notice>
        )
      ) : (
        <>
          <Figures s={stats.data} />
          <section className="dashboard-section" aria-labelledby="over-time-heading">
            <div className="section-head">
              <h2 id="over-time-heading">Over time</h2>
              <PeriodPicker days={days} onPick={pick} busy={stats.isFetching} />
            </div>
            <p className="muted">Days are UTC days (they start at midnight UTC), today’s included.</p>
            <Suspense fallback={<ChartsPlaceholder />}>
              <DashboardCharts stats={stats.data} />
            </Suspense>
          </section>
          <RecentActivity items={stats.data.recent} currency={stats.data.currency} />
        </>
      )}
      <FundsPanel campaign={c} />
      {(takesDonations || c.donors > 0) && <CampaignDonations campaignId={c._id} />}
      {(takesSupport || c.supporters > 0) && <CampaignSupporters campaignId={c._id} />}
    </article>
  );
}

/** The figures at the top: what the campaign has now. */
function Figures({ s }: { s: CampaignStatsDto }) {
  const money = (v: number) => formatMoney(v, s.currency);
  const figures: [string, string][] = [
    ['Raised', money(s.raised)],
    ['Donors', String(s.donors)],
    ['Supporters', String(s.supporters)],
    ['Monthly donors', String(s.monthlyDonors)],
    ['Average gift', money(s.averageGift)],
    ['Available', money(s.available)],
  ];
  return (
    <section className="dashboard-section" aria-labelledby="figures-heading">
      <h2 id="figures-heading" className="visually-hidden">
        At a glance
      </h2>
      <dl className="dashboard-figures">
        {figures.map(([label, value]) => (
          <div key={label} className="card">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** 30, 90 or 365 days: radio buttons (arrow keys move between them). */
function PeriodPicker({ days, onPick, busy }: { days: StatsPeriod; onPick: (n: StatsPeriod) => void; busy: boolean }) {
  const name = useId();
  return (
    <fieldset className="period-picker" aria-busy={busy || undefined}>
      <legend className="visually-hidden">Period</legend>
      {STATS_PERIODS.map((n) => (
        <label key={n} className={n === days ? 'period-option period-option-on' : 'period-option'}>
          <input type="radio" name={name} value={n} checked={n === days} onChange={() => onPick(n)} />
          {n} days
        </label>
      ))}
    </fieldset>
  );
}

const ACTIVITY: Record<StatsActivityDto['kind'], string> = { donation: 'Donation', refund: 'Refund', supporter: 'New supporter' };

/** The latest donations, refunds and supporters, newest first. */
function RecentActivity({ items, currency }: { items: StatsActivityDto[]; currency: CampaignStatsDto['currency'] }) {
  return (
    <section className="card dashboard-section" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Recent activity</h2>
      {items.length === 0 ? (
        <p className="muted">Nothing yet: donations, refunds and new supporters show here.</p>
      ) : (
        <ol className="activity-list">
          {items.map((a) => (
            <li key={`${a.kind}-${a.at.getTime()}-${a.who}-${a.amount ?? ''}`} className={`activity activity-${a.kind}`}>
              <span className="activity-kind">{ACTIVITY[a.kind]}</span>
              <span className="activity-what">
                {a.amount !== null && <strong>{formatMoney(a.amount, currency)}</strong>}
                {a.amount !== null ? (a.kind === 'refund' ? ' to ' : ' from ') : ''}
                {a.who}
                {a.monthly && a.kind === 'donation' ? ' (monthly)' : ''}
              </span>
              <time className="activity-when muted" dateTime={a.at.toISOString()}>
                {formatDateTime(a.at)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Where the charts will be, at their size, while their code loads: nothing below them moves when they come. */
function ChartsPlaceholder() {
  return (
    <div className="dashboard-charts">
      <p className="visually-hidden" role="status">
        Loading the charts
      </p>
      {[0, 1, 2].map((i) => (
        <div key={i} className="card chart-figure chart-placeholder" aria-hidden="true" />
      ))}
    </div>
  );
}
