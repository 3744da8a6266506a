import { Link } from 'react-router-dom';
import { InfoPage, InfoSection } from './InfoPage';

export default function TrustPage() {
  return (
    <InfoPage title="Trust and safety" lead="How Kindling keeps money where it belongs and what to do when something looks wrong.">
      <InfoSection title="Every payout is checked">
        <p>
          Money given to a campaign stays in its balance until the owner asks for a payout and an administrator approves it. Every movement of money is recorded
          in a ledger that always adds up, and nothing in it is ever changed or deleted.
        </p>
      </InfoSection>
      <InfoSection title="Receipts">
        <p>Every gift gets a receipt, also without an account: the email after giving links to it.</p>
      </InfoSection>
      <InfoSection title="Raising a dispute">
        <p>
          If a campaign is not what it says, or a gift went wrong, raise a dispute from your receipt or from the campaign. An administrator reviews it; a
          dispute about payouts holds them until it is settled. The campaign's owner is told a dispute was raised, never by whom. You can follow yours under{' '}
          <Link to="/myDisputes">My disputes</Link>.
        </p>
      </InfoSection>
      <InfoSection title="Blocking and adult content">
        <p>
          You can block a person: you stop seeing their comments and neither of you can invite the other. Campaigns for adults are shown only to people who have
          turned on adult access.
        </p>
      </InfoSection>
    </InfoPage>
  );
}
