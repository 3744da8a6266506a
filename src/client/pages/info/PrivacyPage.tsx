import { InfoPage, InfoSection } from './InfoPage';

export default function PrivacyPage() {
  return (
    <InfoPage title="Privacy" lead="What Kindling keeps about you, and why.">
      <InfoSection title="What we keep">
        <p>
          Your email address, your username and what you choose to show on your profile; your gifts and receipts; and what you post. Card numbers are never
          stored by Kindling: the payment provider keeps them.
        </p>
      </InfoSection>
      <InfoSection title="Who sees it">
        <p>
          A campaign's owner sees the gifts to their campaign; your email address is never shown publicly. Drafts are seen only by the people their owner
          invited, and the owner sees when those people opened them.
        </p>
      </InfoSection>
      <InfoSection title="Cookies">
        <p>One cookie keeps you signed in, and one keeps the preview links you opened. There are no advertising or tracking cookies.</p>
      </InfoSection>
    </InfoPage>
  );
}
