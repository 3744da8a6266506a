import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { M } from '../../shared/messages';
import { AccessDenied } from '../components/AccessDenied';
import { Loading } from '../components/Loading';
import { usePageTitle } from '../hooks/usePageTitle';
import { loginPathFor } from './returnTo';
import { useSession } from './useSession';

/**
 * Pages for signed-in people only: others see a page saying so, with a Log in button that comes
 * back to this page after logging in (`/login?next=`).
 */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const { isSignedIn, isLoading } = useSession();
  if (isLoading) return <Loading />;
  if (!isSignedIn) return <SignInRequired />;
  return <>{children}</>;
}

/** The heading of the page a signed-out person meets on a signed-in page. */
const SIGN_IN_TITLE = 'Log in to continue';

/** What a signed-out person sees on a signed-in page: a heading, `message`, and Log in back to here. */
export function SignInRequired({ message = M.signInRequired }: { message?: string }) {
  usePageTitle(SIGN_IN_TITLE);
  const { pathname, search, hash } = useLocation();
  return (
    <section className="page page-narrow">
      <div className="card center">
        <h1>{SIGN_IN_TITLE}</h1>
        <p>{message}</p>
        <div className="button-row center-row">
          <Link className="button" to={loginPathFor(`${pathname}${search}${hash}`)}>
            Log in
          </Link>
          <Link className="button button-secondary" to="/register">
            Create an account
          </Link>
        </div>
      </div>
    </section>
  );
}

/** Admin routes: everyone else sees the Access denied page. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { isAdmin, isLoading } = useSession();
  if (isLoading) return <Loading />;
  if (!isAdmin) return <AccessDenied />;
  return <>{children}</>;
}
