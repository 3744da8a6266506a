import { M } from '../../shared/messages';
import { useSession } from '../auth/useSession';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';

/** A reminder for signed-in people whose email is not verified yet, with "Send again". */
export function VerifyEmailBanner() {
  const { user } = useSession();
  const resend = trpc.auth.resendVerification.useMutation();
  if (!user || user.emailVerified) return null;
  const message = resend.isSuccess ? resend.data.message || M.verificationSent : resend.isError ? errorMessage(resend.error, M.requestFailed) : null;
  return (
    <section className="banner" aria-label="Email verification">
      <div className="banner-inner">
        <p>
          Please verify your email address. We sent a link to <strong>{user.email}</strong>.
        </p>
        <button type="button" className="button button-small" onClick={() => resend.mutate()} disabled={resend.isPending}>
          Send again
        </button>
        {message && (
          <p className={resend.isError ? 'banner-error' : 'banner-note'} role={resend.isError ? 'alert' : 'status'}>
            {message}
          </p>
        )}
      </div>
    </section>
  );
}
