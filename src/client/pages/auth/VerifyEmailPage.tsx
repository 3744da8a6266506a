import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

type State = { kind: 'verifying' } | { kind: 'done'; ok: boolean; message: string };

/**
 * The token is single use, so it is sent once per page load: the call is remembered by token,
 * and React StrictMode's second effect run (or a remount) reads the same answer.
 */
const calls = new Map<string, Promise<State>>();

export default function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const utils = trpc.useUtils();
  const [state, setState] = useState<State>({ kind: 'verifying' });

  useEffect(() => {
    if (!token) return;
    let call = calls.get(token);
    if (!call) {
      call = utils.client.auth.verifyEmail.mutate({ token }).then(
        (r): State => ({ kind: 'done', ok: true, message: r.message || M.emailVerified }),
        (err: unknown): State => ({ kind: 'done', ok: false, message: errorMessage(err, M.verificationFailed) }),
      );
      calls.set(token, call);
      // a signed-in person's banner goes away once the address is verified
      void call.then((s) => {
        if (s.kind === 'done' && s.ok) void utils.auth.me.invalidate();
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
    <AuthCard title="Verify email" footer={<Link to="/login">Sign in</Link>}>
      {!token ? (
        <Notice kind="error">{M.missingToken}</Notice>
      ) : state.kind === 'verifying' ? (
        <Loading label={M.verifying} />
      ) : (
        <Notice kind={state.ok ? 'success' : 'error'}>{state.message}</Notice>
      )}
    </AuthCard>
  );
}
