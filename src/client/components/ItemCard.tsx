import { useSyncExternalStore, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { type ActionMode, PAGE_SIZE } from '../../shared/constants';
import { M } from '../../shared/messages';
import { formatMoney } from '../../shared/money';
import { FavoriteIdsGroup } from './FavoriteButton';
import { goalProgress } from './GoalProgress';
import { categoryLabel, visibilityLabel } from './itemText';
import type { ListItem } from './ItemList';
import { OwnerLink } from './OwnerLink';

/** What a card shows of a campaign or a project (both DTOs fit). */
export interface CardItem extends ListItem {
  description: string;
  goalAmount: number;
  targetType: 'amount' | 'supporters';
  actionMode: ActionMode;
  /** A campaign whose execution date has passed (the server's answer). */
  isPast?: boolean;
  executionDate?: Date | null;
  /** Campaigns: people with a donation that stands. */
  donors?: number;
  /** A project's cover (its image otherwise). */
  coverUrl?: string | null;
  /** A draft or a scheduled one is its owner's alone (shown as a badge). */
  visibility?: 'draft' | 'scheduled' | 'released';
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** 'n thing' or 'n things'. */
const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * The time left until a campaign's execution date: '12 days left' (whole days, rounded), under a
 * day '5 hours left', under an hour '12 minutes left'. Null once it has passed.
 */
export function timeLeft(target: Date, now: number = Date.now()): string | null {
  const ms = target.getTime() - now;
  if (!(ms > 0)) return null;
  if (ms >= DAY_MS) return M.cardTimeLeft(count(Math.round(ms / DAY_MS), 'day', 'days'));
  if (ms >= HOUR_MS) return M.cardTimeLeft(count(Math.floor(ms / HOUR_MS), 'hour', 'hours'));
  return M.cardTimeLeft(count(Math.max(1, Math.floor(ms / MINUTE_MS)), 'minute', 'minutes'));
}

/** The first line of the description that has words, for the card's one-line summary. */
export function summaryOf(description: string): string {
  for (const line of description.split(/\r?\n/)) {
    const t = line.trim();
    if (t) return t.length > 240 ? `${t.slice(0, 240)}…` : t;
  }
  return '';
}

/** Which of a campaign's figures apply to its mode: donations (money, donors), support (supporters), or both. */
function takes(mode: ActionMode): { money: boolean; people: boolean } {
  return { money: mode !== 'support', people: mode !== 'donation' };
}

/**
 * Columns of the card grid (the stylesheet's breakpoints: one column below 560 px, two below 900,
 * three below 1200, four from there; `max` caps it, the home page's three newest use 3). The first
 * row's covers load at once, the rest lazily.
 */
const COLUMN_QUERIES = ['(min-width: 560px)', '(min-width: 900px)', '(min-width: 1200px)'];

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const lists = COLUMN_QUERIES.map((q) => window.matchMedia(q));
  for (const mq of lists) mq.addEventListener('change', onChange);
  return () => {
    for (const mq of lists) mq.removeEventListener('change', onChange);
  };
}

const columnsNow = () => (typeof window !== 'undefined' && window.matchMedia ? 1 + COLUMN_QUERIES.filter((q) => window.matchMedia(q).matches).length : 1);

function useColumns(max: number): number {
  return Math.min(
    max,
    useSyncExternalStore(subscribe, columnsNow, () => 1),
  );
}

function Cover({ item, href, eager }: { item: CardItem; href: string; eager: boolean }) {
  const src = item.coverUrl ?? item.imageUrl;
  return (
    // the title's link is the card's link; this one is for the pointer only (out of the Tab order and of the accessibility tree)
    <Link className="item-card-cover" to={href} tabIndex={-1} aria-hidden="true">
      {src ? (
        <img
          src={src}
          alt={M.cardCoverAlt(item.title)}
          width={640}
          height={360}
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
          fetchPriority={eager ? 'high' : undefined}
        />
      ) : (
        <span className="item-card-placeholder">{item.title.trim().charAt(0).toUpperCase() || '?'}</span>
      )}
    </Link>
  );
}

/** The progress toward the goal: the bar, '% funded' (or '% of the goal' of people) and what the goal is. */
function CardProgress({ item, kind }: { item: CardItem; kind: 'campaign' | 'project' }) {
  // only a goal the item can move toward: a project takes no money (a goal of people, its
  // followers, has progress); a campaign's goal of money needs donations, of people support
  const people = item.targetType === 'supporters';
  const { money, people: takesPeople } = kind === 'project' ? { money: false, people: true } : takes(item.actionMode);
  if (people ? !takesPeople : !money) return null;
  const p = goalProgress(item);
  if (!p) return null;
  const now = Math.min(100, Math.max(0, p.percent));
  // '3 of 10 people' or '$50.00 of $100.00'
  const reached = people ? item.supporters.toLocaleString('en-US') : formatMoney(item.totalRaised, item.currency);
  const goal = people ? count(item.goalAmount, 'person', 'people') : formatMoney(item.goalAmount, item.currency);
  const pct = people ? M.cardPercentOfGoal(p.percent) : M.cardPercentFunded(p.percent);
  return (
    <div className="item-card-progress">
      <div
        className="meter"
        role="progressbar"
        aria-label={M.cardProgressLabel(item.title)}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={now}
        aria-valuetext={`${pct}: ${reached} of ${goal}`}
      >
        <div className="meter-bar" style={{ width: `${now}%` }} />
      </div>
      <p className="item-card-goal">
        <strong>{pct}</strong>
        <span className="muted">
          {reached} of {goal}
        </span>
      </p>
    </div>
  );
}

/** The figures that apply: raised and donors (donations), supporters (support), followers (projects). */
function CardFigures({ item, kind }: { item: CardItem; kind: 'campaign' | 'project' }) {
  const facts: ReactNode[] = [];
  if (kind === 'project') {
    facts.push(<span key="followers">{count(item.supporters, 'follower', 'followers')}</span>);
  } else {
    const { money, people } = takes(item.actionMode);
    if (money) {
      facts.push(<span key="raised">{M.cardRaised(formatMoney(item.totalRaised, item.currency))}</span>);
      if (item.donors !== undefined) facts.push(<span key="donors">{count(item.donors, 'donor', 'donors')}</span>);
    }
    if (people) facts.push(<span key="supporters">{count(item.supporters, 'supporter', 'supporters')}</span>);
  }
  return <p className="item-card-figures">{facts}</p>;
}

/** 'Past', '12 days left', or nothing (no execution date; projects have none). */
function CardTime({ item }: { item: CardItem }) {
  if (item.isPast) return <span className="status-badge status-past">{M.cardPast}</span>;
  const left = item.executionDate ? timeLeft(new Date(item.executionDate)) : null;
  return left ? <span className="item-card-time">{left}</span> : null;
}

export interface ItemCardProps<T extends CardItem> {
  item: T;
  kind: 'campaign' | 'project';
  /** '/campaigns' or '/projects'. */
  basePath: string;
  /** 2 under the page's h1, 3 under a section's h2 (the home page). */
  headingLevel?: 2 | 3;
  /** The creator's name (left out on the creator's own profile). */
  showCreator?: boolean;
  /** The cover loads at once (the first row), else lazily. */
  eager?: boolean;
  /** Buttons at the card's foot (Favorite). */
  actions?: ReactNode;
}

/**
 * A campaign or project as an image-first card: the cover (a placeholder letter without one), the
 * title (the card's link), the category and the creator, the description's first line, progress
 * toward the goal, the time left or 'Past', and the figures its mode has. The card is not one big
 * link: the title is the link, the cover repeats it for the pointer only.
 */
export function ItemCard<T extends CardItem>({ item, kind, basePath, headingLevel = 2, showCreator = true, eager = false, actions }: ItemCardProps<T>) {
  const href = `${basePath}/${encodeURIComponent(item._id)}`;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const summary = summaryOf(item.description);
  return (
    <li className="item-card card">
      <Cover item={item} href={href} eager={eager} />
      <div className="item-card-body">
        <Heading className="item-card-title">
          <Link to={href}>{item.title}</Link>
        </Heading>
        <p className="item-card-meta muted">
          <span className="type-badge">{categoryLabel(item.type)}</span>
          {item.visibility && item.visibility !== 'released' && <span className="status-badge">{visibilityLabel(item.visibility)}</span>}
          {showCreator && (
            <span className="item-card-creator">
              {M.cardBy} <OwnerLink person={item.ownerId} />
            </span>
          )}
        </p>
        {summary && <p className="item-card-summary">{summary}</p>}
        <div className="item-card-foot">
          <CardProgress item={item} kind={kind} />
          <div className="item-card-facts">
            <CardFigures item={item} kind={kind} />
            <CardTime item={item} />
          </div>
          {actions && <div className="item-card-actions">{actions}</div>}
        </div>
      </div>
    </li>
  );
}

export interface ItemCardGridProps<T extends CardItem> {
  items: T[];
  kind: 'campaign' | 'project';
  basePath: string;
  /** The list's accessible name ('Campaigns'). */
  label: string;
  headingLevel?: 2 | 3;
  showCreator?: boolean;
  /** At most this many columns (default 4). */
  maxColumns?: number;
  /**
   * The Favorite button of a card. The buttons of one page of the list (PAGE_SIZE cards) share
   * one FavoriteIdsGroup, so they ask about their ids in one request.
   */
  renderFavorite?: (item: T) => ReactNode;
}

/** Cards in a responsive grid: one column on a phone, two to four on wider screens. */
export function ItemCardGrid<T extends CardItem>({
  items,
  kind,
  basePath,
  label,
  headingLevel,
  showCreator,
  maxColumns = 4,
  renderFavorite,
}: ItemCardGridProps<T>) {
  const columns = useColumns(maxColumns);
  const groups: string[][] = [];
  if (renderFavorite) for (let i = 0; i < items.length; i += PAGE_SIZE) groups.push(items.slice(i, i + PAGE_SIZE).map((x) => x._id));
  return (
    <ul className={`item-cards-grid item-cards-max-${maxColumns}`} aria-label={label}>
      {items.map((item, i) => {
        const group = groups[Math.floor(i / PAGE_SIZE)];
        return (
          <ItemCard
            key={item._id}
            item={item}
            kind={kind}
            basePath={basePath}
            headingLevel={headingLevel}
            showCreator={showCreator}
            eager={i < columns}
            actions={renderFavorite && group ? <FavoriteIdsGroup ids={group}>{renderFavorite(item)}</FavoriteIdsGroup> : undefined}
          />
        );
      })}
    </ul>
  );
}
