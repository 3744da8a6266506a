import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router-dom';

export interface TabDef<K extends string> {
  id: K;
  label: string;
}

interface TabsProps<K extends string> {
  /** The accessible name of the tab list ('Favorites', 'Profile sections'). */
  label: string;
  tabs: readonly TabDef<K>[];
  selected: K;
  onSelect(id: K): void;
  /** The selected tab's content; only it is rendered (the others' queries do not run). */
  children: ReactNode;
}

/**
 * WAI-ARIA tabs: buttons with role="tab" and aria-selected in a tablist, one tabpanel. Arrow
 * keys, Home and End move between tabs (and select them); only the selected tab is in the Tab order.
 */
export function Tabs<K extends string>({ label, tabs, selected, onSelect, children }: TabsProps<K>) {
  const base = useId();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const tabId = (k: K) => `${base}-tab-${k}`;
  const panelId = `${base}-panel`;

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const i = tabs.findIndex((t) => t.id === selected);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % tabs.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = tabs.length - 1;
    if (next < 0) return;
    e.preventDefault();
    onSelect(tabs[next].id);
    refs.current[next]?.focus();
  }

  return (
    <div className="tabs">
      <div className="tab-list" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
        {tabs.map((t, i) => {
          const active = t.id === selected;
          return (
            <button
              key={t.id}
              ref={(el) => {
                refs.current[i] = el;
              }}
              id={tabId(t.id)}
              type="button"
              role="tab"
              className={active ? 'tab active' : 'tab'}
              aria-selected={active}
              aria-controls={panelId}
              tabIndex={active ? 0 : -1}
              onClick={() => onSelect(t.id)}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      <div id={panelId} className="tab-panel" role="tabpanel" aria-labelledby={tabId(selected)} tabIndex={0}>
        {children}
      </div>
    </div>
  );
}

/**
 * The selected tab kept in the URL (`?tab=`), so a reload or a shared link opens the same tab.
 * A click shows the tab at once and then replaces the history entry's URL (no new entry).
 */
export function useTabParam<K extends string>(ids: readonly K[], fallback: K, param = 'tab'): [K, (k: K) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get(param);
  const fromUrl = (ids as readonly string[]).includes(raw ?? '') ? (raw as K) : fallback;
  const [current, setCurrent] = useState<K>(fromUrl);
  // the URL changed elsewhere (Back, a link): follow it
  useEffect(() => setCurrent(fromUrl), [fromUrl]);
  const set = (k: K) => {
    if (k === current) return;
    setCurrent(k);
    const p = new URLSearchParams(params);
    if (k === fallback) p.delete(param);
    else p.set(param, k);
    setParams(p, { replace: true });
  };
  return [current, set];
}
