import { useEffect } from 'react';
import { useRouteError } from 'react-router-dom';
import { M } from '../../shared/messages';

/**
 * The router fallback (route errorElement): a render error or a chunk that failed to load.
 * Internals are logged to the console, never shown. A plain <a> reloads the app afresh.
 */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <section className="page page-narrow">
      <div className="card center">
        <h1>{M.unexpectedError}</h1>
        <p className="muted">Please reload the page or go back to the start.</p>
        <a className="button" href="/">
          Back to home
        </a>
      </div>
    </section>
  );
}
