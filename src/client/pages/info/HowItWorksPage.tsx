import { Link } from 'react-router-dom';
import { InfoPage, InfoSection } from './InfoPage';

export default function HowItWorksPage() {
  return (
    <InfoPage title="How it works" lead="A campaign collects money, people, or both; a project gathers a team. Here is what each word on a campaign means.">
      <InfoSection title="Mode: donations, support, or both">
        <p>
          A campaign's mode says what it asks for. <strong>Donations</strong>: people give money, once or every month, towards the goal.{' '}
          <strong>Support</strong>: people say "I'm in" to take part on the campaign's date; no money changes hands. <strong>Both</strong>: people can do
          either.
        </p>
      </InfoSection>
      <InfoSection title="Donors and supporters">
        <p>
          <strong>Donors</strong> gave money. <strong>Supporters</strong> said they are in. A donation-only campaign has no supporters, and a support-only
          campaign raises no money.
        </p>
      </InfoSection>
      <InfoSection title="The date a campaign takes place">
        <p>
          A campaign can have a date (its "execution date"): the day it happens. Until then it takes donations and supporters; after it, it is marked past and
          takes no more. Supporters get a reminder before the day.
        </p>
      </InfoSection>
      <InfoSection title="Drafts and the preview circle">
        <p>
          A campaign or project can start as a draft that only you see. Invite people by username or email, or make a link for anyone who has it, collect their
          private feedback, and release it now or at a time you choose. The people who helped hear first when it goes live.
        </p>
      </InfoSection>
      <InfoSection title="Money">
        <p>
          Gifts go to the campaign's balance. The owner asks for a payout; an administrator approves it, and the platform fee is taken then (see{' '}
          <Link to="/fees">Fees</Link>). Refunds and disputes are handled as described in <Link to="/trust">Trust and safety</Link>.
        </p>
      </InfoSection>
    </InfoPage>
  );
}
