import { Link } from 'react-router-dom';
import type { PaymentProblemDto } from '../../../shared/schemas/donations';
import { nextPageParam, PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/dates';
import { trpc } from '../../trpc';

const PAGE = 20;

/** The providers' event types in words (an unknown one is shown as it came). */
const EVENT_LABEL: Record<string, string> = {
  'payment.succeeded': 'Payment succeeded',
  'payment.failed': 'Payment failed',
  'payment.refunded': 'Refund',
  'chargeback.opened': 'Chargeback opened',
  'chargeback.closed': 'Chargeback closed',
};

const PROVIDER_LABEL: Record<string, string> = { sandbox: 'Sandbox', stripe: 'Stripe' };

/** '1.00 EUR', as the problem sentences write amounts (an event may name a currency the app does not take). */
const amountOf = (p: PaymentProblemDto) => (p.amount === null ? null : `${p.amount.toFixed(2)}${p.currency ? ` ${p.currency}` : ''}`);

/**
 * The Payments tab: the payment providers' events that booked nothing because they did not fit
 * their donation (another amount or currency, a refund of more than was paid), newest first, each
 * with why and a link to the donation's receipt; cards below 640 px.
 */
export function AdminPayments() {
  const list = trpc.donations.paymentProblems.useInfiniteQuery({ limit: PAGE }, { getNextPageParam: nextPageParam });
  return (
    <div className="admin-section">
      <h2>Payment problems</h2>
      <p className="muted">
        Events from the payment providers that booked nothing because they did not fit their donation: another amount or currency, or a refund of more than was
        paid. Newest first.
      </p>
      <PagedTable
        list={list}
        empty={<p className="muted empty-state">No payment problems.</p>}
        label="Payment problems"
        className="admin-table payment-problems-table"
        rowKey={(p) => `${p.provider}:${p.eventId}`}
        rowProps={(p) => ({ 'data-event': p.eventId })}
        columns={[
          { label: 'Received', head: true, headLabel: true, className: 'date-cell', cell: (p) => formatDateTime(p.receivedAt) },
          { label: 'Provider', cell: (p) => PROVIDER_LABEL[p.provider] ?? p.provider },
          {
            label: 'Event',
            wide: true,
            className: 'problem-event',
            cell: (p) => (
              <>
                {EVENT_LABEL[p.type] ?? p.type}
                <span className="problem-event-id">{p.eventId}</span>
              </>
            ),
          },
          { label: 'Problem', wide: true, className: 'problem-text', cell: (p) => p.problem },
          { label: 'Amount', num: true, cell: (p) => amountOf(p) ?? <span className="muted">None</span> },
          {
            label: 'Donation',
            cell: (p) =>
              p.donationId ? (
                <Link to={`/donations/${encodeURIComponent(p.donationId)}`}>
                  Receipt<span className="visually-hidden"> of the donation {p.donationId}</span>
                </Link>
              ) : (
                <span className="muted">None</span>
              ),
          },
        ]}
      />
    </div>
  );
}
