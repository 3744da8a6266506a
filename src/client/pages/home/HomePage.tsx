import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { useSession } from '../../auth/useSession';
import { Icon, type IconName } from '../../components/Icon';
import { usePageTitle } from '../../hooks/usePageTitle';
import { NewestCampaigns } from './NewestCampaigns';

/** The spec's three highlights, each with one sentence on what it means here. */
const HIGHLIGHTS: { icon: IconName; title: string; text: string }[] = [
  { icon: 'lock', title: M.highlightSecure, text: M.highlightSecureText },
  { icon: 'calendar', title: M.highlightCoordinated, text: M.highlightCoordinatedText },
  { icon: 'coins', title: M.highlightFunded, text: M.highlightFundedText },
];

/** /: the hero with the tagline and the next steps, the highlights, and the newest campaigns. */
export default function HomePage() {
  usePageTitle();
  const { isSignedIn, isLoading } = useSession();
  return (
    <div className="home">
      <section className="hero">
        <h1 className="hero-title">{M.brand}</h1>
        <p className="hero-tagline">{M.tagline}</p>
        {!isLoading && (
          <div className="hero-actions">
            {isSignedIn ? (
              <>
                <Link className="button button-large" to="/campaigns/new">
                  Start a campaign
                </Link>
                <Link className="button button-large button-secondary" to="/myCampaigns">
                  My campaigns
                </Link>
              </>
            ) : (
              <>
                <Link className="button button-large" to="/register">
                  Sign up
                </Link>
                <Link className="button button-large button-secondary" to="/login">
                  Log in
                </Link>
                <Link className="button button-large button-ghost" to="/campaigns">
                  Browse campaigns
                </Link>
              </>
            )}
          </div>
        )}
      </section>
      <section className="highlights" aria-label="Highlights">
        {HIGHLIGHTS.map((h) => (
          <article key={h.title} className="card highlight">
            <span className="highlight-icon" aria-hidden="true">
              <Icon name={h.icon} />
            </span>
            <h2>{h.title}</h2>
            <p className="muted">{h.text}</p>
          </article>
        ))}
      </section>
      <NewestCampaigns />
    </div>
  );
}
