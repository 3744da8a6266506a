import { Link } from 'react-router-dom';

export interface PersonRef {
  _id: string;
  username: string | null;
  name: string | null;
  imageUrl?: string | null;
  avatarUrl?: string | null;
}

/** How a person is named in lists: their username, else their name. */
export function personName(p: Pick<PersonRef, 'username' | 'name'>): string {
  return p.username || p.name || 'Unnamed';
}

/** A round picture of a person, or their initial on a coloured disc. Decorative: the name is next to it. */
export function Avatar({ person, size = 32 }: { person: PersonRef; size?: number }) {
  const src = person.avatarUrl || person.imageUrl;
  const style = { width: size, height: size, fontSize: Math.round(size * 0.45) };
  if (src) return <img className="avatar" src={src} alt="" width={size} height={size} style={style} />;
  return (
    <span className="avatar avatar-initial" style={style} aria-hidden="true">
      {personName(person).charAt(0).toUpperCase()}
    </span>
  );
}

/** A link to the person's public profile (/profiles/{id}), optionally with the avatar inside it. */
export function OwnerLink({ person, avatar = false, size }: { person: PersonRef; avatar?: boolean; size?: number }) {
  return (
    <Link className="owner-link" to={`/profiles/${encodeURIComponent(person._id)}`}>
      {avatar && <Avatar person={person} size={size} />}
      <span>{personName(person)}</span>
    </Link>
  );
}
