import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { usePageTitle } from '../../hooks/usePageTitle';

/** One of the site's own pages (About, How it works, Fees, Trust and safety, Terms, Privacy): a title, a lead and sections. */
export function InfoPage({ title, lead, children }: { title: string; lead: string; children: ReactNode }) {
  usePageTitle(title);
  return (
    <article className="page page-narrow info-page">
      <h1>{title}</h1>
      <p className="info-lead">{lead}</p>
      {children}
      <p className="info-more">
        More: <Link to="/how-it-works">How it works</Link> · <Link to="/fees">Fees</Link> · <Link to="/trust">Trust and safety</Link>
      </p>
    </article>
  );
}

/** A titled section of an info page. */
export function InfoSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="info-section">
      <h2>{title}</h2>
      {children}
    </section>
  );
}
