import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';

/** The navigation state that carries a one-time notice to the next page ("Campaign created."). */
export interface PageNoticeState {
  notice: string;
}

export const withNotice = (notice: string): PageNoticeState => ({ notice });

function noticeOf(state: unknown): string | null {
  const notice = (state as Partial<PageNoticeState> | null)?.notice;
  return typeof notice === 'string' && notice !== '' ? notice : null;
}

/**
 * A notice another page sent along with the navigation (withNotice), shown once: it is taken
 * from the history entry at once, so a reload or coming Back does not show it again. It is there
 * from the first paint (nothing moves) and belongs to the path it arrived with.
 */
export function usePageNotice(): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const incoming = noticeOf(location.state);
  const [notice, setNotice] = useState(() => (incoming ? { path: location.pathname, text: incoming } : null));
  useEffect(() => {
    if (!incoming) return;
    setNotice({ path: location.pathname, text: incoming });
    void navigate({ pathname: location.pathname, search: location.search, hash: location.hash }, { replace: true, state: null });
  }, [incoming, location.pathname, location.search, location.hash, navigate]);
  return notice && notice.path === location.pathname ? notice.text : null;
}

/** The notice in a polite live region (role status); renders nothing without one. */
export function PageNotice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p className="notice notice-success page-notice" role="status">
      {text}
    </p>
  );
}
