import type { ReactNode } from 'react';
import { usePageTitle } from '../../hooks/usePageTitle';

/** The narrow card the sign-in, registration and recovery screens share. */
export function AuthCard({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  usePageTitle(title);
  return (
    <section className="page page-narrow">
      <div className="card auth-card">
        <h1>{title}</h1>
        {children}
        {footer && <div className="auth-footer">{footer}</div>}
      </div>
    </section>
  );
}
