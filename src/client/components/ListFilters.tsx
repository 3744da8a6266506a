import { useEffect, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { CATEGORIES, type CampaignStatus, type Category } from '../../shared/constants';
import { M } from '../../shared/messages';
import { useSession } from '../auth/useSession';
import { categoryLabel } from './itemText';

/** A way to order a list: its value in `?sort=` and the words the sort choice shows. */
export interface SortChoice<S extends string = string> {
  value: S;
  label: string;
}

import { ENDING_SORT, type ListFilters, parseListFilters } from '../../shared/first-queries';

export { ENDING_SORT, type ListFilters };

/** Whether a category, a status or a sort that narrows the list (ending) is chosen; the search is apart. */
export function narrowed(f: ListFilters): boolean {
  return Boolean(f.type || f.status || f.sort === ENDING_SORT);
}

/**
 * The filters of the URL and a setter that pushes a history entry (Back returns to the previous
 * view), leaving defaults out of the URL and keeping the search (`q`). The same view again adds
 * no entry.
 *
 * A choice shows at once, before the router has moved to its URL (React Router renders the new
 * location in a transition, and a controlled select would meanwhile snap back, so a second arrow
 * key pressed quickly would start from the old choice again). Once the URL moves, by the choice
 * or by Back, the URL is what shows.
 */
export function useListFilters(sorts: readonly SortChoice[], withStatus: boolean): [ListFilters, (patch: Partial<Omit<ListFilters, 'q'>>) => void] {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const [pending, setPending] = useState<{ from: string; to: string; filters: ListFilters } | null>(null);
  // the URL moved: what was waiting for it is done (and Back to the old URL shows that URL)
  const [seen, setSeen] = useState(key);
  if (seen !== key) {
    setSeen(key);
    setPending(null);
  }
  const waiting = seen === key && pending !== null && pending.from === key ? pending : null;
  const filters = waiting
    ? waiting.filters
    : parseListFilters(
        params,
        sorts.map((s) => s.value),
        withStatus,
      );
  const set = (patch: Partial<Omit<ListFilters, 'q'>>) => {
    const next = { ...filters, ...patch };
    const p = new URLSearchParams(params);
    for (const name of ['type', 'status', 'sort'] as const) p.delete(name);
    if (next.type) p.set('type', next.type);
    if (withStatus && next.status && next.sort !== ENDING_SORT) p.set('status', next.status);
    if (next.sort && next.sort !== sorts[0]?.value) p.set('sort', next.sort);
    // the view (?view=table) stays last, as its switch puts it
    const view = p.get('view');
    if (view !== null) {
      p.delete('view');
      p.set('view', view);
    }
    const to = p.toString();
    if (to === (waiting ? waiting.to : key)) return;
    setPending({
      from: key,
      to,
      filters: parseListFilters(
        p,
        sorts.map((s) => s.value),
        withStatus,
      ),
    });
    setParams(p);
  };
  return [filters, set];
}

/**
 * How a list is shown: image-first cards (the default) or the spec's table, kept in the URL as
 * `?view=table` (cards leave it out), apart from the filters: the list's query is the same in
 * both, so the first page the server read still serves either view.
 */
export type ListView = 'cards' | 'table';

/** The URL's view: `?view=table` is the table, anything else the cards. */
export function useListView(): ListView {
  const [params] = useSearchParams();
  return params.get('view') === 'table' ? 'table' : 'cards';
}

/** `search` with the view of `params` kept (a link that clears the filters stays in the same view). */
export function withView(params: URLSearchParams, search: URLSearchParams): string {
  const p = new URLSearchParams(search);
  if (params.get('view') === 'table') p.set('view', 'table');
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * The Cards / Table switch above a list: two links to the same view in the other form (so a link
 * reproduces it and Back returns to the previous one), the current one marked `aria-current`.
 * The list's result is said again with the new view's name (ListAnnouncer).
 */
export function ViewSwitch({ view }: { view: ListView }) {
  const [params] = useSearchParams();
  const id = useId();
  const to = (v: ListView) => {
    const p = new URLSearchParams(params);
    if (v === 'table') p.set('view', 'table');
    else p.delete('view');
    const s = p.toString();
    return { search: s ? `?${s}` : '' };
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: two links that show the list another way, named as a group like the filters; not a form's fieldset
    <div className="view-switch" role="group" aria-labelledby={`${id}-label`}>
      <span id={`${id}-label`} className="view-switch-label">
        {M.viewSwitchLabel}
      </span>
      <span className="view-switch-options">
        {(['cards', 'table'] as const).map((v) => (
          <Link key={v} to={to(v)} className={`view-switch-option${v === view ? ' active' : ''}`} aria-current={v === view ? 'true' : undefined}>
            {v === 'cards' ? M.viewCards : M.viewTable}
          </Link>
        ))}
      </span>
    </div>
  );
}

/** The view's words for the announcement: 'Music, active, most funded'. */
function describe(f: ListFilters, sorts: readonly SortChoice[]): string {
  const parts: string[] = [];
  if (f.q) parts.push(`matching “${f.q}”`);
  if (f.type) parts.push(categoryLabel(f.type));
  if (f.status) parts.push(f.status);
  if (f.sort) parts.push((sorts.find((s) => s.value === f.sort)?.label ?? f.sort).toLowerCase());
  return parts.join(', ');
}

/**
 * Says the result of a new view once, to screen readers ('Music, most funded: 3 of 3 campaigns
 * shown.'), when its first page is in: not on the first load of the page and not on each
 * further page infinite scroll brings (the visible count above the list is not a live region).
 */
export function ListAnnouncer({
  filters,
  sorts,
  noun,
  result,
  view = 'cards',
}: {
  filters: ListFilters;
  sorts: readonly SortChoice[];
  /** Plural: 'campaigns'. */
  noun: string;
  /** The first page of the current view once it is in (not a previous view's placeholder). */
  result: { shown: number; total: number; capped: boolean } | undefined;
  /** Cards or table: the table is named in what is said, and so are the cards just after a switch back to them. */
  view?: ListView;
}) {
  const key = JSON.stringify({ ...filters, view });
  const [said, setSaid] = useState({ key, view, text: '' });
  const ready = result !== undefined;
  useEffect(() => {
    if (!ready || said.key === key || !result) return;
    const shownAs = view === 'table' ? M.viewTableSaid : view !== said.view ? `${M.viewCards.toLowerCase()} view` : '';
    const filtered = describe(filters, sorts);
    const what = [filtered, shownAs].filter(Boolean).join(', ');
    // not the words of the visible texts ('No campaigns found.', 'Showing 3 of 3'), which stay one of a kind on the page
    const count = result.total === 0 ? `0 ${noun} found` : `${result.shown} of ${result.total}${result.capped ? '+' : ''} ${noun} shown`;
    const text = what ? `${what}: ${count}.` : `${count}.`;
    setSaid({ key, view, text });
  });
  return (
    <p className="visually-hidden" role="status" aria-live="polite">
      {said.text}
    </p>
  );
}

interface FilterBarProps {
  filters: ListFilters;
  onChange(patch: Partial<Omit<ListFilters, 'q'>>): void;
  sorts: readonly SortChoice[];
  withStatus: boolean;
}

/**
 * The category, status (campaigns) and sort choices above a list: native selects with visible
 * labels, wrapping under the search box on a narrow screen. 'Adult' is offered only to people
 * with adult access (as the create form does), or when the URL already asks for it.
 */
export function ListFilterBar({ filters, onChange, sorts, withStatus }: FilterBarProps) {
  const { user } = useSession();
  const id = useId();
  const categories = CATEGORIES.filter((c) => c !== 'adult' || user?.hasAdultAccess || filters.type === 'adult');
  const ending = filters.sort === ENDING_SORT;
  const noteId = `${id}-ending`;
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: a group of three choices, not a form that is sent */}
      <div className="list-filters" role="group" aria-label="Filter and sort">
        <div className="list-filter">
          <label htmlFor={`${id}-type`}>Category</label>
          <select
            id={`${id}-type`}
            name="type"
            value={filters.type ?? ''}
            onChange={(e) => onChange({ type: (e.target.value || undefined) as Category | undefined })}
          >
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {categoryLabel(c)}
              </option>
            ))}
          </select>
        </div>
        {withStatus && (
          <div className="list-filter">
            <label htmlFor={`${id}-status`}>Status</label>
            <select
              id={`${id}-status`}
              name="status"
              value={ending ? 'active' : (filters.status ?? '')}
              disabled={ending}
              aria-describedby={ending ? noteId : undefined}
              onChange={(e) => onChange({ status: (e.target.value || undefined) as CampaignStatus | undefined })}
            >
              <option value="">All</option>
              <option value="active">Active</option>
              <option value="past">Past</option>
            </select>
          </div>
        )}
        <div className="list-filter">
          <label htmlFor={`${id}-sort`}>Sort by</label>
          <select
            id={`${id}-sort`}
            name="sort"
            value={filters.sort ?? sorts[0]?.value}
            aria-describedby={ending && withStatus ? noteId : undefined}
            onChange={(e) => onChange({ sort: e.target.value })}
          >
            {sorts.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {/* a line of its own under the search and the choices, so they stay side by side */}
      {ending && withStatus && (
        <p id={noteId} className="list-filters-note muted">
          Ending soon lists active campaigns only.
        </p>
      )}
    </>
  );
}
