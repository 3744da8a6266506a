import { Link } from 'react-router-dom';
import { usePageTitle } from '../hooks/usePageTitle';

/** Any path no route of the app matches (the server answers it with a 404 and this page). */
export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section className="page page-narrow">
      <div className="card center">
        <h1>Page not found</h1>
        <p>There is no page at this address. It may have moved, or the link may have a typo.</p>
        <Link className="button" to="/">
          Back to home
        </Link>
      </div>
    </section>
  );
}
