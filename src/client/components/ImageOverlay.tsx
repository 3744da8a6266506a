import { useEffect, useRef } from 'react';
import { createPortal } from 'react-dom';

/**
 * A picture enlarged over the page. Escape, a click anywhere or the Close button closes it; the
 * focus moves to Close while it is open and goes back where it was afterwards.
 */
export function ImageOverlay({ src, alt, onClose }: { src: string; alt: string; onClose(): void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        onCloseRef.current();
      } else if (e.key === 'Tab') {
        // the only control: keep the focus in the dialog
        e.preventDefault();
        closeRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.style.overflow = overflow;
      before?.focus?.();
    };
  }, []);

  return createPortal(
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click outside the picture closes it; keys have Escape and the Close button
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Enlarged image" onClick={() => onCloseRef.current()}>
      <img className="overlay-image" src={src} alt={alt} />
      <button ref={closeRef} type="button" className="overlay-close" aria-label="Close">
        ×
      </button>
    </div>,
    document.body,
  );
}
