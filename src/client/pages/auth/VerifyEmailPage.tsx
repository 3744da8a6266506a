import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { useTokenLink } from '../../hooks/useTokenLink';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { AuthCard } from './AuthCard';

/** /verify-email?token=: the link of the verification email. */
export default function VerifyEmailPage() {
  const utils = trpc.useUtils();
  const { token, state } = useTokenLink(
    'verifyEmail',
    (t) => utils.client.auth.verifyEmail.mutate({ token: t }),
    // a signed-in person's banner goes away once the address is verified
    () => void utils.auth.me.invalidate(),
  );

  return (
    <AuthCard title="Verify email" footer={<Link to="/login">Sign in</Link>}>
      {!token ? (
        <Notice kind="error">{M.missingToken}</Notice>
      ) : state.kind === 'verifying' ? (
        <Loading label={M.verifying} />
      ) : state.ok ? (
        <Notice kind="success">{state.value.message || M.emailVerified}</Notice>
      ) : (
        <Notice kind="error">{errorMessage(state.error, M.verificationFailed)}</Notice>
      )}
    </AuthCard>
  );
}
