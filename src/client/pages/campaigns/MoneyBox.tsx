import { useEffect, useState, type MouseEvent, type RefObject } from 'react';
import { formatMoney } from '../../../shared/money';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { goalText } from '../../components/itemText';
import { formatExecutionDate } from '../../lib/dates';

/** The ids of the panels the main action leads to (DonatePanel, SupportPanel). */
export const DONATE_PANEL_ID = 'donate';
export const SUPPORT_PANEL_ID = 'support';

const IM_IN = 'I’m in';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "12 days left", "5 hours left", "20 minutes left"; null once the time has passed. */
export function timeLeft(target: Date, now: number): string | null {
  const ms = target.getTime() - now;
  if (!(ms > 0)) return null;
  if (ms >= DAY_MS) return `${count(Math.floor(ms / DAY_MS), 'day', 'days')} left`;
  if (ms >= HOUR_MS) return `${count(Math.floor(ms / HOUR_MS), 'hour', 'hours')} left`;
  return `${count(Math.max(1, Math.floor(ms / 60_000)), 'minute', 'minutes')} left`;
}

/** What the page's main action is: Donate (donation or both), I'm in (support only); none for the owner, a draft, or once the date has passed. */
export function mainActionOf(c: CampaignDto, opts: { isOwner: boolean; released: boolean }): { label: string; target: string } | null {
  if (opts.isOwner || !opts.released || c.isPast) return null;
  if (c.actionMode === 'donation' || c.actionMode === 'both') return { label: 'Donate', target: DONATE_PANEL_ID };
  if (c.actionMode === 'support') return { label: IM_IN, target: SUPPORT_PANEL_ID };
  return null;
}

/**
 * Brings the panel on screen and puts the focus on its first field (or its heading): the main
 * action is a link to the panel, so it works without this too.
 */
function goToPanel(e: MouseEvent<HTMLAnchorElement>, target: string) {
  const panel = document.getElementById(target);
  if (!panel) return;
  e.preventDefault();
  const reduce = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
  panel.scrollIntoView({ behavior: reduce ? 'auto' : 'smooth', block: 'start' });
  const first =
    panel.querySelector<HTMLElement>('input:not([type="hidden"]):not([disabled]), button:not([disabled]), a[href]') ?? panel.querySelector<HTMLElement>('h2');
  if (first) {
    if (first.tagName === 'H2' && !first.hasAttribute('tabindex')) first.setAttribute('tabindex', '-1');
    first.focus({ preventScroll: true });
  }
}

function ActionLink({ action, className }: { action: { label: string; target: string }; className: string }) {
  return (
    <a className={className} href={`#${action.target}`} onClick={(e) => goToPanel(e, action.target)}>
      {action.label}
    </a>
  );
}

/**
 * The money box at the top of the campaign page: what was raised (the page's largest number) of
 * the goal, % funded with a bar, donors; supporters where the campaign takes support; the time
 * left or the day it takes place; then the main action. Only what applies to the campaign's mode.
 */
export function MoneyBox({
  campaign: c,
  action,
  actionRef,
}: {
  campaign: CampaignDto;
  action: { label: string; target: string } | null;
  actionRef?: RefObject<HTMLDivElement | null>;
}) {
  const takesDonations = c.actionMode === 'donation' || c.actionMode === 'both';
  const takesSupport = c.actionMode === 'support' || c.actionMode === 'both';
  const showsMoney = takesDonations || c.totalRaised > 0;
  const showsSupport = takesSupport || c.supporters > 0;
  const bySupporters = c.targetType === 'supporters';
  const hasGoal = c.goalAmount > 0;
  const current = bySupporters ? c.supporters : c.totalRaised;
  const percent = hasGoal ? Math.floor((current / c.goalAmount) * 100) : null;
  const barNow = percent === null ? 0 : Math.min(100, Math.max(0, percent));
  const now = Date.now();
  const date = c.executionDate;
  const past = c.isPast || (date !== null && date.getTime() <= now);
  const left = date && !past ? timeLeft(date, now) : null;
  const people = count(c.supporters, 'person', 'people');
  const raised = formatMoney(c.totalRaised, c.currency);

  return (
    <section className="money-box card" aria-labelledby="money-heading">
      <h2 id="money-heading" className="visually-hidden">
        {showsMoney ? 'Funding' : 'Taking part'}
      </h2>
      {showsMoney ? (
        <p className="money-raised">
          <span className="money-amount">{raised}</span> <span className="money-of">{hasGoal && !bySupporters ? `raised of ${goalText(c)}` : 'raised'}</span>
        </p>
      ) : (
        <p className="money-raised">
          <span className="money-amount">{c.supporters}</span>{' '}
          <span className="money-of">{hasGoal && bySupporters ? `of ${goalText(c)}` : c.supporters === 1 ? 'person in' : 'people in'}</span>
        </p>
      )}
      {percent !== null && (
        <div
          className="meter money-meter"
          role="progressbar"
          aria-label="Progress toward the goal"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={barNow}
          aria-valuetext={`${bySupporters ? `${c.supporters} of ${goalText(c)}` : `${raised} of ${goalText(c)}`} (${percent}%)`}
        >
          <div className="meter-bar" style={{ width: `${barNow}%` }} />
        </div>
      )}
      <ul className="money-stats">
        {percent !== null && (
          <li>
            <strong>{percent}%</strong> {bySupporters ? 'of the goal' : 'funded'}
          </li>
        )}
        {showsMoney && takesDonations && (
          <li>
            <strong>{c.donors}</strong> {c.donors === 1 ? 'donor' : 'donors'}
          </li>
        )}
        {/* with a date, the people in are said on the date's line */}
        {showsMoney && showsSupport && !date && (
          <li>
            <strong>{c.supporters}</strong> {c.supporters === 1 ? 'supporter' : 'supporters'}
          </li>
        )}
        {left && (
          <li className="money-left">
            <strong>{left.split(' ')[0]}</strong> {left.split(' ').slice(1).join(' ')}
          </li>
        )}
      </ul>
      {date && (
        <p className="money-when">
          {past ? 'Took place on ' : 'Takes place on '}
          <time dateTime={date.toISOString()}>{formatExecutionDate(date)}</time>
          {/* a support-only campaign's large figure is the people in already */}
          {showsMoney && showsSupport && ` · ${people} in`}
        </p>
      )}
      {c.donated > 0 && <p className="donated-note">You donated {formatMoney(c.donated, c.currency)}</p>}
      {action && (
        <div className="money-action" ref={actionRef}>
          <ActionLink action={action} className="button button-block button-large" />
        </div>
      )}
    </section>
  );
}

/** Whether the element (a ref's, or the one with this id) is on screen (an IntersectionObserver). */
function useOnScreen(target: RefObject<Element | null> | string): boolean {
  // on screen until the observer says otherwise: the bar does not flash in on the first paint
  const [on, setOn] = useState(true);
  useEffect(() => {
    const el = typeof target === 'string' ? document.getElementById(target) : target.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setOn(entries.some((e) => e.isIntersecting)));
    io.observe(el);
    return () => io.disconnect();
  }, [target]);
  return on;
}

/**
 * On a phone (below 640 px: the stylesheet shows it only there) the main action stays on screen
 * in a bar at the bottom while the visitor scrolls: sticky at the end of the page's article, so
 * it never covers the page's end. It steps aside while the money box's own action or the panel
 * it leads to is on screen.
 */
export function StickyAction({
  campaign: c,
  action,
  boxActionRef,
}: {
  campaign: CampaignDto;
  action: { label: string; target: string };
  boxActionRef: RefObject<HTMLDivElement | null>;
}) {
  const boxOn = useOnScreen(boxActionRef);
  const panelOn = useOnScreen(action.target);
  const hidden = boxOn || panelOn;
  const showsMoney = c.actionMode !== 'support';
  // visibility, not display: the bar keeps its place at the article's end, so nothing moves when it steps aside
  return (
    <div className={hidden ? 'sticky-action is-hidden' : 'sticky-action'} data-testid="sticky-action">
      <p className="sticky-action-text">
        {showsMoney ? (
          <>
            <strong>{formatMoney(c.totalRaised, c.currency)}</strong> raised
          </>
        ) : (
          <>
            <strong>{c.supporters}</strong> {c.supporters === 1 ? 'person in' : 'people in'}
          </>
        )}
      </p>
      <ActionLink action={action} className="button" />
    </div>
  );
}
