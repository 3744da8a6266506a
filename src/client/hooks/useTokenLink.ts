import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';

/** What a page opened from an emailed single-use link shows: the call under way, then its outcome. */
export type TokenLinkState<T> = { kind: 'verifying' } | { kind: 'done'; ok: true; value: T } | { kind: 'done'; ok: false; error: unknown };

/**
 * The tokens of emailed links are single use, so each is sent once per page load: the call is
 * remembered by its name and token, and React StrictMode's second effect run (or a remount)
 * reads the same answer instead of spending the token twice.
 */
const calls = new Map<string, Promise<TokenLinkState<unknown>>>();

/**
 * Reads `?token=` from the page's address and sends it once with `redeem`; `onRedeemed` runs once
 * after a success (to refresh what the answer changed). `name` tells the links apart.
 */
export function useTokenLink<T>(
  name: string,
  redeem: (token: string) => Promise<T>,
  onRedeemed?: (value: T) => void,
): { token: string; state: TokenLinkState<T> } {
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const [state, setState] = useState<TokenLinkState<T>>({ kind: 'verifying' });

  // biome-ignore lint/correctness/useExhaustiveDependencies: `redeem` and `onRedeemed` are read once per token (the page passes new closures on each render)
  useEffect(() => {
    if (!token) return;
    const key = `${name}\n${token}`;
    let call = calls.get(key) as Promise<TokenLinkState<T>> | undefined;
    if (!call) {
      call = redeem(token).then(
        (value): TokenLinkState<T> => ({ kind: 'done', ok: true, value }),
        (error: unknown): TokenLinkState<T> => ({ kind: 'done', ok: false, error }),
      );
      calls.set(key, call);
      void call.then((s) => {
        if (s.kind === 'done' && s.ok) onRedeemed?.(s.value);
      });
    }
    let active = true;
    void call.then((s) => {
      if (active) setState(s);
    });
    return () => {
      active = false;
    };
  }, [name, token]);

  return { token, state };
}
