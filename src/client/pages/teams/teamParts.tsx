import { useId, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { Link } from 'react-router-dom';
import { MAX_PAGE_SIZE } from '../../../shared/constants';
import type { TeamDto, TeamMemberDto } from '../../../shared/schemas/teams';
import { Avatar, personName } from '../../components/OwnerLink';
import { trpc } from '../../trpc';

/** Path of a team's page (and, with `/manage`, of its manage page). */
export const teamPath = (id: string, sub = '') => `/teams/${encodeURIComponent(id)}${sub}`;

export const ROLE_LABEL: Record<TeamMemberDto['role'], string> = { member: 'Member', manager: 'Manager' };
export const STATUS_LABEL: Record<TeamMemberDto['status'], string> = { invited: 'Invited', requested: 'Requested', active: 'Active' };

/** How a member is named: their username, else their name. */
export const memberName = (m: Pick<TeamMemberDto, 'username' | 'name'>) => personName(m);

/** A <label> tied to a select or a text area, with an optional hint (the Field pattern). */
function Labelled({ label, hint, children }: { label: string; hint?: string; children: (ids: { id: string; describedBy?: string }) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <div className="field-label">
        <label htmlFor={id}>{label}</label>
        {hint && (
          <span id={hintId} className="field-hint">
            {hint}
          </span>
        )}
      </div>
      {children({ id, describedBy: hintId })}
    </div>
  );
}

export function SelectField({ label, hint, children, ...select }: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> & { label: string; hint?: string }) {
  return (
    <Labelled label={label} hint={hint}>
      {({ id, describedBy }) => (
        <select id={id} aria-describedby={describedBy} {...select}>
          {children}
        </select>
      )}
    </Labelled>
  );
}

export function TextAreaField({ label, hint, ...area }: Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> & { label: string; hint?: string }) {
  return <Labelled label={label} hint={hint}>{({ id, describedBy }) => <textarea id={id} aria-describedby={describedBy} {...area} />}</Labelled>;
}

export interface ProjectOption {
  _id: string;
  title: string;
}

/**
 * The signed-in person's own projects, for the "assign to project" selects (teams attach only
 * to their owner's projects). The first 100 are loaded; a `wanted` project (the ?projectId= of
 * the page) that is not among them is asked for by id, so it is offered when it is one of mine.
 */
export function useMyProjects(wanted?: string | null) {
  const mine = trpc.projects.list.useQuery({ my: true, limit: MAX_PAGE_SIZE });
  const items: ProjectOption[] = mine.data?.items ?? [];
  const missing = Boolean(wanted && mine.data && !items.some((p) => p._id === wanted));
  const extra = trpc.projects.list.useQuery({ my: true, projectId: wanted ?? '', limit: 1 }, { enabled: missing });
  const options: ProjectOption[] = missing && extra.data ? [...extra.data.items, ...items] : items;
  return {
    options,
    /** Still asking (the list, or the wanted project). */
    isPending: mine.isPending || (missing && extra.isPending),
    error: mine.error ?? extra.error ?? null,
    has: (id: string | null | undefined) => Boolean(id && options.some((p) => p._id === id)),
  };
}

/** The 'None' option and one per project, for a select of my projects. */
export function ProjectOptions({ options }: { options: ProjectOption[] }) {
  return (
    <>
      <option value="">None</option>
      {options.map((p) => (
        <option key={p._id} value={p._id}>
          {p.title}
        </option>
      ))}
    </>
  );
}

/** A member's name as a link to their profile, with avatar and an "Owner" mark. */
export function MemberName({ member }: { member: TeamMemberDto }) {
  return (
    <span className="member-name">
      <Link className="owner-link" to={`/profiles/${encodeURIComponent(member.userId)}`}>
        <Avatar person={{ _id: member.userId, username: member.username, name: member.name, imageUrl: member.imageUrl }} size={28} />
        <span>{memberName(member)}</span>
      </Link>
      {member.isOwner && <span className="status-badge">Owner</span>}
    </span>
  );
}

/** The team's cover, or its initial on a placeholder. */
export function TeamCover({ team }: { team: Pick<TeamDto, 'name' | 'imageUrl'> }) {
  if (team.imageUrl) {
    return (
      <div className="cover team-cover">
        <img src={team.imageUrl} alt={`${team.name} cover`} />
      </div>
    );
  }
  return (
    <div className="cover cover-placeholder team-cover" role="img" aria-label={`${team.name} (no image)`}>
      <span aria-hidden="true">{team.name.trim().charAt(0).toUpperCase() || '?'}</span>
    </div>
  );
}
