import { useId } from 'react';
import { M } from '../../../shared/messages';
import type { PreviewMeDto } from '../../../shared/schemas/previews';
import { relativeTime } from '../DraftBanner';

const ROLE_TEXT = {
  owner: 'the owner',
  viewer: 'a viewer: you can read it',
  commenter: 'a commenter: you can read it and give the owner feedback',
} as const;

/**
 * What a member of a draft's circle (or a link's holder) sees at its top (issue #30): "Draft:
 * only your circle can see this", when it is to be released (in the viewer's zone, with "in 3
 * days"), what they may do, and that the owner sees their visits.
 */
export function CircleBanner({ releaseAt, me }: { releaseAt: Date | null; me: PreviewMeDto }) {
  const headingId = useId();
  const at = releaseAt ? new Date(releaseAt) : null;
  return (
    <section className="draft-banner card" aria-labelledby={headingId}>
      <h2 id={headingId}>{M.draftBanner}</h2>
      {at ? (
        <p>
          Releases <time dateTime={at.toISOString()}>{at.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })}</time>, {relativeTime(at)}.
        </p>
      ) : (
        <p>No release time is set yet.</p>
      )}
      <p>
        {M.privatePreview}
        {me.via === 'link' ? ' through a link: you can read it.' : `${me.name ? ` for ${me.name}` : ''}, as ${ROLE_TEXT[me.role]}.`}
      </p>
      {me.visitsSeen && <p className="muted">{M.previewVisitsNotice}</p>}
    </section>
  );
}
