import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { trpc } from '../../trpc';
import { InfoPage, InfoSection } from './InfoPage';

/** The fees as this site is configured: the platform's fee and the payment provider's. */
export default function FeesPage() {
  const fees = trpc.donations.info.useQuery();
  return (
    <InfoPage title="Fees" lead="What giving and receiving money on Kindling costs, as this site is set up.">
      {fees.isPending ? (
        <Loading />
      ) : fees.error ? (
        <Notice kind="error">The fees could not be loaded. Please try again.</Notice>
      ) : (
        <>
          <InfoSection title="Platform fee">
            <p>
              Kindling keeps <strong className="fee-figure">{fees.data.platformFeePercent}%</strong> of each payout to a campaign's owner. Donors pay nothing on
              top of their gift to Kindling.
            </p>
          </InfoSection>
          <InfoSection title="Payment processing">
            {fees.data.testMode ? (
              <p>This site takes test payments only: no real money moves and no processing fee is charged.</p>
            ) : fees.data.provider === 'stripe' ? (
              <p>
                Card payments are processed by Stripe, which charges its own processing fee per payment (its published pricing for your country applies). That
                fee is part of each gift, not added to it.
              </p>
            ) : (
              <p>Card payments are processed by {fees.data.provider}, which charges its own processing fee per payment.</p>
            )}
          </InfoSection>
          <InfoSection title="Refunds and disputes">
            <p>
              A refunded gift is returned in full to the donor. When a donor disputes a card payment with their bank, the disputed amount is held in the
              campaign's balance until the bank decides, and the provider's dispute fee, when it charges one, is taken from that balance.
            </p>
          </InfoSection>
        </>
      )}
    </InfoPage>
  );
}
