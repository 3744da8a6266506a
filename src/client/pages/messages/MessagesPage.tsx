import { usePageTitle } from '../../hooks/usePageTitle';

/** /messages: a placeholder in the spec (section 2); there is no messaging in this version. */
export default function MessagesPage() {
  usePageTitle('Messages');
  return (
    <section className="page page-narrow">
      <h1>Messages</h1>
      <div className="card">
        <p className="muted">Messages are not available yet.</p>
      </div>
    </section>
  );
}
