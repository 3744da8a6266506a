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
 * with why and a link to the donation's receipt.
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
        label="Payment problems table"
        className="admin-table payment-problems-table"
        columns={[
          { label: 'Received' },
          { label: 'Provider' },
          { label: 'Event' },
          { label: 'Problem' },
          { label: 'Amount', num: true },
          { label: 'Donation' },
        ]}
        row={(p) => (
          <tr key={`${p.provider}:${p.eventId}`} data-event={p.eventId}>
            <th scope="row" className="date-cell">
              {formatDateTime(p.receivedAt)}
            </th>
            <td>{PROVIDER_LABEL[p.provider] ?? p.provider}</td>
            <td className="problem-event">
              {EVENT_LABEL[p.type] ?? p.type}
              <span className="problem-event-id">{p.eventId}</span>
            </td>
            <td className="problem-text">{p.problem}</td>
            <td className="num">{amountOf(p) ?? <span className="muted">None</span>}</td>
            <td>
              {p.donationId ? (
                <Link to={`/donations/${encodeURIComponent(p.donationId)}`}>
                  Receipt<span className="visually-hidden"> of the donation {p.donationId}</span>
                </Link>
              ) : (
                <span className="muted">None</span>
              )}
            </td>
          </tr>
        )}
      />
    </div>
  );
}
