import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { AuthCard } from '../auth/AuthCard';

type State = { kind: 'verifying' } | { kind: 'done'; ok: true; message: string; campaignId: string } | { kind: 'done'; ok: false; message: string };

/**
 * The token is single use, so it is sent once per page load: the call is remembered by token,
 * and React StrictMode's second effect run (or a remount) reads the same answer.
 */
const calls = new Map<string, Promise<State>>();

/** /verify-join?token=: a guest confirms their support through the emailed link (spec section 2). */
export default function VerifyJoinPage() {
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const utils = trpc.useUtils();
  const [state, setState] = useState<State>({ kind: 'verifying' });

  useEffect(() => {
    if (!token) return;
    let call = calls.get(token);
    if (!call) {
      call = utils.client.supports.verifyGuest.mutate({ token }).then(
        (r): State => ({ kind: 'done', ok: true, message: r.message || M.guestSupportVerified, campaignId: r.campaignId }),
        (err: unknown): State => ({ kind: 'done', ok: false, message: errorMessage(err, M.invalidOrExpiredToken) || M.invalidOrExpiredToken }),
      );
      calls.set(token, call);
      // the campaign's supporters count has moved
      void call.then((s) => {
        if (s.kind === 'done' && s.ok) {
          void utils.campaigns.invalidate();
          void utils.users.campaigns.invalidate();
        }
      });
    }
    let active = true;
    void call.then((s) => {
      if (active) setState(s);
    });
    return () => {
      active = false;
    };
  }, [token, utils]);

  return (
    <AuthCard title="Confirm your support" footer={<Link to="/campaigns">Browse campaigns</Link>}>
      {!token ? (
        <Notice kind="error">{M.invalidOrExpiredToken}</Notice>
      ) : state.kind === 'verifying' ? (
        <Loading label={M.verifying} />
      ) : state.ok ? (
        <>
          <Notice kind="success">{state.message}</Notice>
          <p className="verify-next">
            <Link to={`/campaigns/${encodeURIComponent(state.campaignId)}`}>View the campaign</Link>
          </p>
        </>
      ) : (
        <Notice kind="error">{state.message}</Notice>
      )}
    </AuthCard>
  );
}
