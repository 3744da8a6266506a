import { useId, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { Currency } from '../../shared/constants';
import { formatMoney } from '../../shared/money';
import { categoryLabel, visibilityLabel } from './itemText';
import { ZoomableImage } from './ZoomableImage';

/** What a compact row of a campaign or project needs (both DTOs fit). */
export interface CompactItem {
  _id: string;
  title: string;
  type: string;
  coordination: string;
  totalRaised: number;
  currency: Currency;
  supporters: number;
  imageUrl: string | null;
  isPast?: boolean;
  /** A draft or a scheduled one is its owner's alone (shown as a badge). */
  visibility?: 'draft' | 'scheduled' | 'released';
}

interface CompactItemListProps<T extends CompactItem> {
  items: T[];
  /** '/campaigns' or '/projects'. */
  basePath: string;
  /** 'campaign' or 'project', for the list's accessible name and texts. */
  noun: 'campaign' | 'project';
  /** The list's accessible name ('Active campaigns'). */
  label: string;
  /** Buttons at the end of each row (Unfavorite...); `titleId` names the row's title for aria-describedby. */
  renderActions?: (item: T, titleId: string) => ReactNode;
}

/**
 * Campaigns or projects as compact rows (profile tabs, /my, /favorites): a thumbnail that opens
 * in the zoom overlay, the title linking to the item, and its type, coordination and figures.
 */
export function CompactItemList<T extends CompactItem>({ items, basePath, noun, label, renderActions }: CompactItemListProps<T>) {
  const base = useId();
  const titleId = (item: T) => `${base}-${item._id}`;
  return (
    <ul className="compact-items" aria-label={label}>
      {items.map((item) => (
        <li key={item._id} className="compact-item">
          <div className="compact-thumb">
            {item.imageUrl ? (
              <ZoomableImage src={item.imageUrl} alt={`${item.title} image`} imgClassName="thumb" />
            ) : (
              <span className="thumb thumb-placeholder" aria-hidden="true">
                {item.title.trim().charAt(0).toUpperCase() || '?'}
              </span>
            )}
          </div>
          <div className="compact-body">
            <Link id={titleId(item)} className="compact-title" to={`${basePath}/${encodeURIComponent(item._id)}`}>
              {item.title}
            </Link>
            <p className="compact-meta muted">
              <span className="type-badge">{categoryLabel(item.type)}</span>
              {item.isPast && <span className="status-badge">Past</span>}
              {item.visibility && item.visibility !== 'released' && <span className="status-badge">{visibilityLabel(item.visibility)}</span>}
              {noun === 'campaign' ? (
                <>
                  {/* "Executes 5 Dec 2026 - 42 supporters" or "Open" */}
                  <span>{item.coordination}</span>
                  <span>{formatMoney(item.totalRaised, item.currency)} raised</span>
                </>
              ) : (
                <span>
                  {item.supporters} {item.supporters === 1 ? 'follower' : 'followers'}
                </span>
              )}
            </p>
          </div>
          {renderActions && <div className="compact-actions">{renderActions(item, titleId(item))}</div>}
        </li>
      ))}
    </ul>
  );
}
