import { InfoPage, InfoSection } from './InfoPage';

export default function TermsPage() {
  return (
    <InfoPage title="Terms" lead="The rules of using Kindling, in plain words.">
      <InfoSection title="Your account">
        <p>
          Keep your password to yourself: you are responsible for what is done with your account. Sign out of every other session by changing your password in
          Account.
        </p>
      </InfoSection>
      <InfoSection title="Campaigns and projects">
        <p>
          Describe honestly what you are raising money or people for, and use the money for it. Do not post what is illegal, hateful or someone else's work.
          Administrators may hide anything that breaks these rules and hold its payouts while a dispute is open.
        </p>
      </InfoSection>
      <InfoSection title="Giving">
        <p>
          A gift goes to the campaign, not to Kindling. A monthly gift can be cancelled at any time under My (Supported); a cancelled monthly gift is not
          charged again.
        </p>
      </InfoSection>
    </InfoPage>
  );
}
