import { Link } from 'react-router-dom';
import { M } from '../../shared/messages';
import { usePageTitle } from '../hooks/usePageTitle';

/** Shown on admin routes to everyone who is not an admin. */
export function AccessDenied() {
  usePageTitle(M.accessDeniedTitle);
  return (
    <section className="page page-narrow">
      <div className="card center">
        <h1>{M.accessDeniedTitle}</h1>
        <p>{M.accessDenied}</p>
        <Link className="button button-secondary" to="/">
          Back to home
        </Link>
      </div>
    </section>
  );
}
