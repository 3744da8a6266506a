import { useEffect, useId, useRef, useState } from 'react';
import { M } from '../../shared/messages';

interface ShareButtonProps {
  /** What is shared: the page's title (the email's subject, the share sheet's title). */
  title: string;
  /** The address to share; defaults to the page's own, without its query or hash. */
  url?: string;
  className?: string;
  /** The button's text (default "Share"). */
  label?: string;
}

/** The page's address as people should share it: no query, no hash. */
const pageUrl = () => `${window.location.origin}${window.location.pathname}`;

/** Copies text: the Clipboard API, else a hidden text area and execCommand (older browsers, plain http). */
async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // refused (no permission, not focused): try the old way
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/**
 * Share: the device's own share sheet (navigator.share) where the browser has one; elsewhere a
 * small menu (a disclosure: aria-expanded, Escape closes it and gives the focus back) with Copy
 * link (announced politely: "Link copied") and Email (a mailto: link with the title as subject
 * and the link in the body).
 */
export function ShareButton({ title, url, className = 'button button-secondary button-small', label = M.shareButton }: ShareButtonProps) {
  const [open, setOpen] = useState(false);
  const [said, setSaid] = useState('');
  const menuId = useId();
  const wrapRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const link = url ?? (typeof window === 'undefined' ? '' : pageUrl());
  // with the device's share sheet the button opens no menu of ours (unless the sheet fails)
  const hasSheet = typeof navigator !== 'undefined' && typeof navigator.share === 'function';

  // a click outside or the focus leaving closes the menu
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!wrapRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);

  // the visible "Link copied" goes after a few seconds (the live region has said it)
  useEffect(() => {
    if (said === '') return;
    const t = window.setTimeout(() => setSaid(''), 4000);
    return () => window.clearTimeout(t);
  }, [said]);

  async function onShare() {
    setSaid('');
    const canShare = typeof navigator.share === 'function' && (!navigator.canShare || navigator.canShare({ title, url: link }));
    if (canShare) {
      try {
        await navigator.share({ title, url: link });
        return;
      } catch (err) {
        // the person closed the sheet: nothing to do; any other failure falls back to the menu
        if ((err as Error | undefined)?.name === 'AbortError') return;
      }
    }
    setOpen((o) => !o);
  }

  async function onCopy() {
    const ok = await copyText(link);
    // said again even when it was said before: the live region hears a change
    setSaid('');
    window.setTimeout(() => setSaid(ok ? M.shareLinkCopied : M.shareCopyFailed), 30);
    setOpen(false);
    buttonRef.current?.focus();
  }

  const mailto = `mailto:?subject=${encodeURIComponent(title)}&body=${encodeURIComponent(`${title}\n${link}`)}`;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the menu closes it (the keys themselves go to its buttons and links)
    <div
      ref={wrapRef}
      className="share"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          setOpen(false);
          buttonRef.current?.focus();
        }
      }}
      onBlur={(e) => {
        if (open && !wrapRef.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        className={className}
        aria-expanded={hasSheet && !open ? undefined : open}
        aria-controls={open ? menuId : undefined}
        onClick={() => void onShare()}
      >
        <span aria-hidden="true">↗ </span>
        {label}
      </button>
      {open && (
        <ul id={menuId} className="share-menu" aria-label={`${label}: ${title}`}>
          <li>
            <button type="button" className="share-option" onClick={() => void onCopy()}>
              {M.shareCopyLink}
            </button>
          </li>
          <li>
            <a className="share-option" href={mailto} onClick={() => setOpen(false)}>
              {M.shareEmail}
            </a>
          </li>
        </ul>
      )}
      <span className="visually-hidden" role="status" aria-live="polite">
        {said}
      </span>
      {said !== '' && (
        <span className="share-said" aria-hidden="true">
          {said}
        </span>
      )}
    </div>
  );
}
