import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from './OwnerLink';

export interface PersonLike {
  _id: string;
  username: string | null;
  name: string | null;
  imageUrl?: string | null;
  avatarUrl?: string | null;
  tags?: string[];
}

/** How a person is titled on their profile and in the directory: their name, else their username. */
export function displayName(p: Pick<PersonLike, 'username' | 'name'>): string {
  return p.name || p.username || 'Unnamed';
}

/** Tags of a person, each a link to the directory filtered by it. `label` names the list ('Tags'). */
export function ProfileTagList({ tags, limit, label = 'Tags' }: { tags: string[]; limit?: number; label?: string }) {
  const shown = limit === undefined ? tags : tags.slice(0, limit);
  if (!shown.length) return null;
  return (
    <ul className="tag-pills" aria-label={label}>
      {shown.map((t) => (
        <li key={t}>
          <Link className="tag-pill" to={`/profiles?tags=${encodeURIComponent(t)}`}>
            {t}
          </Link>
        </li>
      ))}
    </ul>
  );
}

interface PersonSummaryProps {
  person: PersonLike;
  /** How many tags to show (the directory shows up to 8); none when omitted. */
  tagLimit?: number;
  /** Something after the name (an id, a note). */
  extra?: ReactNode;
  /** Buttons at the end (Unfavorite, Unblock). */
  actions?: ReactNode;
  avatarSize?: number;
  /** An id for the name, so buttons can point at it with aria-describedby. */
  nameId?: string;
}

/** A person in a list: avatar, name linking to /profiles/{id}, '@username', tags, and actions. */
export function PersonSummary({ person, tagLimit, extra, actions, avatarSize = 48, nameId }: PersonSummaryProps) {
  const name = displayName(person);
  return (
    <div className="person-summary">
      <Avatar person={{ ...person, imageUrl: person.imageUrl ?? null, avatarUrl: person.avatarUrl ?? null }} size={avatarSize} />
      <div className="person-summary-body">
        <Link id={nameId} className="person-name" to={`/profiles/${encodeURIComponent(person._id)}`}>
          {name}
        </Link>
        {person.name && person.username && <span className="person-username muted">@{person.username}</span>}
        {extra}
        {tagLimit !== undefined && person.tags && <ProfileTagList tags={person.tags} limit={tagLimit} label={`Tags of ${name}`} />}
      </div>
      {actions && <div className="person-summary-actions">{actions}</div>}
    </div>
  );
}
