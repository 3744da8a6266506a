import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { useTokenLink } from '../../hooks/useTokenLink';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { AuthCard } from '../auth/AuthCard';

/** /verify-join?token=: a guest confirms their support through the emailed link (spec section 2). */
export default function VerifyJoinPage() {
  const utils = trpc.useUtils();
  const { token, state } = useTokenLink(
    'verifyJoin',
    (t) => utils.client.supports.verifyGuest.mutate({ token: t }),
    // the campaign's supporters count has moved
    () => {
      void utils.campaigns.invalidate();
      void utils.users.campaigns.invalidate();
    },
  );

  return (
    <AuthCard title="Confirm your support" footer={<Link to="/campaigns">Browse campaigns</Link>}>
      {!token ? (
        <Notice kind="error">{M.invalidOrExpiredToken}</Notice>
      ) : state.kind === 'verifying' ? (
        <Loading label={M.verifying} />
      ) : state.ok ? (
        <>
          <Notice kind="success">{state.value.message || M.guestSupportVerified}</Notice>
          <p className="verify-next">
            <Link to={`/campaigns/${encodeURIComponent(state.value.campaignId)}`}>View the campaign</Link>
          </p>
        </>
      ) : (
        <Notice kind="error">{errorMessage(state.error, M.invalidOrExpiredToken) || M.invalidOrExpiredToken}</Notice>
      )}
    </AuthCard>
  );
}
