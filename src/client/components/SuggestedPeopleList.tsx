import { Link } from 'react-router-dom';
import type { PublicUserDto } from '../../shared/schemas/user';
import { Notice } from './Notice';
import { Avatar, personName } from './OwnerLink';

export type SuggestedPerson = PublicUserDto & { sharedTags: string[] };

export interface InviteAction {
  onInvite: (person: SuggestedPerson) => void;
  /** An invite is on its way: the buttons wait. */
  busy: boolean;
  /** The error of the last invite, shown under the person it was for. */
  error: { personId: string; message: string } | null;
}

/**
 * Suggested people (a project's panel, a team's manage page): each with avatar, profile link,
 * name, the tags they share and, given `invite`, an Invite button described by the person's
 * name (`aria-describedby`) with the error of an invite that failed beneath it.
 */
export function SuggestedPeopleList({ people, invite }: { people: SuggestedPerson[]; invite?: InviteAction }) {
  return (
    <ul className="people-list">
      {people.map((u) => {
        const nameId = `suggested-person-${u._id}`;
        return (
          <li key={u._id} className="person">
            <Avatar person={u} size={40} />
            <div className="person-body">
              <span>
                <Link id={nameId} to={`/profiles/${encodeURIComponent(u._id)}`}>
                  {personName(u)}
                </Link>
                {u.name && u.username && u.name !== u.username && <span className="muted"> · {u.name}</span>}
              </span>
              {u.sharedTags.length > 0 && (
                <p className="shared-tags muted">
                  Shared tags: <span>{u.sharedTags.join(', ')}</span>
                </p>
              )}
              {invite && (
                <button type="button" className="button button-small" disabled={invite.busy} aria-describedby={nameId} onClick={() => invite.onInvite(u)}>
                  Invite
                </button>
              )}
              {invite?.error?.personId === u._id && <Notice kind="error">{invite.error.message}</Notice>}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
