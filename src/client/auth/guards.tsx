import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../shared/messages';
import { AccessDenied } from '../components/AccessDenied';
import { Loading } from '../components/Loading';
import { useSession } from './useSession';

/** Pages for signed-in people only: others see the sign-in hint with a link to /login. */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const { isSignedIn, isLoading } = useSession();
  if (isLoading) return <Loading />;
  if (!isSignedIn) {
    return (
      <section className="page page-narrow">
        <div className="card center">
          <p>{M.signInRequired}</p>
          <Link className="button" to="/login">
            Log in
          </Link>
        </div>
      </section>
    );
  }
  return <>{children}</>;
}

/** Admin routes: everyone else sees the Access denied page. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { isAdmin, isLoading } = useSession();
  if (isLoading) return <Loading />;
  if (!isAdmin) return <AccessDenied />;
  return <>{children}</>;
}
