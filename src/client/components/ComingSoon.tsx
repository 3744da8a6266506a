import type { ReactNode } from 'react';
import { usePageTitle } from '../hooks/usePageTitle';

/** A page that later work fills: its title and a short line. */
export function ComingSoon({ title, children }: { title: string; children?: ReactNode }) {
  usePageTitle(title);
  return (
    <section className="page">
      <h1>{title}</h1>
      <div className="card">
        <p className="muted">{children ?? 'Coming soon.'}</p>
      </div>
    </section>
  );
}
