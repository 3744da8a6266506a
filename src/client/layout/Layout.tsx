import { Suspense } from 'react';
import { Link, Outlet, ScrollRestoration } from 'react-router-dom';
import { M } from '../../shared/messages';
import { useSession } from '../auth/useSession';
import { Loading } from '../components/Loading';
import { Nav } from './Nav';
import { VerifyEmailBanner } from './VerifyEmailBanner';

/** The site's own pages (issue #33, Trust), in the footer of every page. */
const FOOTER_LINKS = [
  ['/about', 'About'],
  ['/how-it-works', 'How it works'],
  ['/fees', 'Fees'],
  ['/trust', 'Trust and safety'],
  ['/terms', 'Terms'],
  ['/privacy', 'Privacy'],
] as const;

/**
 * The shared layout of every route except /admin/cron. Until the first session check answers,
 * the page is laid out (and asks for its data) but not shown: the verification banner and the
 * page then appear together, so the banner never pushes a page that is already on screen.
 */
export function Layout() {
  const { isLoading } = useSession();
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Nav />
      <VerifyEmailBanner />
      <main id="main" className={isLoading ? 'main main-pending' : 'main'} tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
      <footer className="footer">
        <nav aria-label="About Kindling">
          <ul className="footer-links">
            {FOOTER_LINKS.map(([to, label]) => (
              <li key={to}>
                <Link to={to}>{label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <p>
          {M.brand} · {M.tagline}
        </p>
      </footer>
      <ScrollRestoration />
    </div>
  );
}

/** Routes outside the shared layout (/admin/cron): just the page. */
export function BareLayout() {
  return (
    <main id="main" className="main main-bare">
      <Suspense fallback={<Loading />}>
        <Outlet />
      </Suspense>
      <ScrollRestoration />
    </main>
  );
}
