import { Link } from 'react-router-dom';
import { InfoPage, InfoSection } from './InfoPage';

export default function AboutPage() {
  return (
    <InfoPage title="About Kindling" lead="Kindling is where people make cool things, show them to a small group first, and then bring them to everyone.">
      <InfoSection title="For creators">
        <p>
          Start a campaign to collect donations (once or monthly) or to gather people who will show up on a given day, or start a project and form a team around
          it. Keep it as a draft, show it to a circle of people you choose, listen to their feedback, and release it when it is ready, at a time you set.
        </p>
      </InfoSection>
      <InfoSection title="For people who give">
        <p>
          Give in a few seconds, once or every month, with or without an account. Every gift gets a receipt, every payout goes through a person who checks it,
          and if something is wrong you can raise a dispute that an administrator reviews.
        </p>
      </InfoSection>
      <InfoSection title="Where to start">
        <p>
          <Link to="/campaigns">Browse campaigns</Link>, <Link to="/projects">browse projects</Link>, or <Link to="/campaigns/new">start your own</Link>.
        </p>
      </InfoSection>
    </InfoPage>
  );
}
