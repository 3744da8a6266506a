import { useState } from 'react';
import { M } from '../../../shared/messages';
import { formatMoney } from '../../../shared/money';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

/**
 * Recent donors: the latest gifts with the name each donor chose to show (or Anonymous), the
 * amount when they showed their name, their message and when. The campaign's owner may hide one
 * (it leaves the list for everyone).
 */
export function RecentDonors({ campaignId, isOwner }: { campaignId: string; isOwner: boolean }) {
  const utils = trpc.useUtils();
  const list = trpc.donations.recentDonors.useQuery({ campaignId, limit: 10 });
  const hide = trpc.donations.setHidden.useMutation({ onSuccess: () => utils.donations.recentDonors.invalidate({ campaignId }) });
  const [said, setSaid] = useState('');

  return (
    <section className="card recent-donors" aria-labelledby="recent-donors-heading">
      <h2 id="recent-donors-heading">{M.recentDonorsHeading}</h2>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <Notice kind="error">{errorMessage(list.error, M.recentDonorsLoadFailed)}</Notice>
      ) : list.data.items.length === 0 ? (
        <p className="muted">{M.recentDonorsEmpty}</p>
      ) : (
        <ul className="recent-donor-list">
          {list.data.items.map((d) => (
            <li key={d._id} className="recent-donor">
              <p className="recent-donor-head">
                <span className={d.anonymous ? 'recent-donor-name muted' : 'recent-donor-name'}>{d.name}</span>
                {d.amount !== null && <span className="recent-donor-amount">{formatMoney(d.amount, d.currency)}</span>}
              </p>
              {d.message && <p className="recent-donor-message">{d.message}</p>}
              <p className="recent-donor-meta">
                <time dateTime={d.date.toISOString()}>{formatDateTime(d.date)}</time>
                {isOwner && (
                  <button
                    type="button"
                    className="button button-secondary button-small recent-donor-hide"
                    aria-label={`Hide the gift of ${d.name} from ${formatDateTime(d.date)}`}
                    disabled={hide.isPending}
                    onClick={() =>
                      hide.mutate(
                        { campaignId, donationId: d._id, hidden: true },
                        { onSuccess: () => setSaid('Hidden from Recent donors.'), onError: (err) => setSaid(errorMessage(err, M.requestFailed)) },
                      )
                    }
                  >
                    Hide
                  </button>
                )}
              </p>
            </li>
          ))}
        </ul>
      )}
      <p className="visually-hidden" role="status" aria-live="polite">
        {said}
      </p>
    </section>
  );
}
