import { useRef, useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { TEAM_ROLES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { TeamDto, TeamMemberDto } from '../../../shared/schemas/teams';
import { useSession } from '../../auth/useSession';
import { Field, SelectField } from '../../components/Field';
import { ImageUploadField, type UploadedImage } from '../../components/ImageUploadField';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { TagInput } from '../../components/TagInput';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { SuggestedPeopleList } from '../../components/SuggestedPeopleList';
import { useFormErrors } from '../../lib/forms';
import { trpc } from '../../trpc';
import {
  LoadMoreMembers,
  memberName,
  MemberName,
  MembersPending,
  ProjectOptions,
  ROLE_LABEL,
  STATUS_LABEL,
  teamPath,
  useMyProjects,
  useTeamMembers,
} from './teamParts';

type Role = TeamMemberDto['role'];

const NO_SUGGESTIONS = 'No suggestions yet. People whose tags match the looking-for tags (or the project’s tags) appear here.';

/**
 * /teams/{id}/manage (?projectId= preselects the project to attach and feeds the suggestions):
 * the owner's page. Everyone else is told that only the owner can do that.
 */
export default function ManageTeamPage() {
  const { id = '' } = useParams();
  const { user } = useSession();
  const team = trpc.teams.get.useQuery({ id }, { enabled: id !== '' });
  usePageTitle(team.data ? `Manage ${team.data.name}` : 'Manage team');

  if (team.isPending) return <Loading />;
  if (team.isError) {
    const notFound = httpStatus(team.error) === 404;
    return (
      <section className="page page-narrow">
        {notFound ? <h1>{M.notFound}</h1> : <Notice kind="error">{errorMessage(team.error, M.teamLoadFailed)}</Notice>}
        <p>
          <Link className="back-link" to="/teams">
            Back to teams
          </Link>
        </p>
      </section>
    );
  }
  if (!user || user._id !== team.data.ownerId._id) {
    return (
      <section className="page page-narrow">
        <div className="card center">
          <h1>Manage team</h1>
          <Notice kind="error">{M.teamOwnerOnly}</Notice>
          <Link className="button button-secondary" to={teamPath(team.data._id)}>
            Back to the team
          </Link>
        </div>
      </section>
    );
  }
  return <ManageView team={team.data} readAt={team.dataUpdatedAt} />;
}

/** `readAt`: when the team was read (its first page of members is as fresh as that). */
function ManageView({ team, readAt }: { team: TeamDto; readAt: number }) {
  const [params] = useSearchParams();
  const projectParam = (params.get('projectId') ?? '').trim() || null;
  return (
    <section className="page manage-team">
      <Link className="back-link" to={teamPath(team._id)}>
        View team page
      </Link>
      <div className="page-head">
        <h1>Manage {team.name}</h1>
      </div>
      <div className="manage-grid">
        <InviteSection team={team} />
        <AttachSection team={team} projectParam={projectParam} />
      </div>
      <MembersSection team={team} readAt={readAt} />
      <div className="manage-grid">
        <CoverSection team={team} />
        <TagsSection team={team} />
      </div>
      <SuggestedSection team={team} projectParam={projectParam} />
    </section>
  );
}

function InviteSection({ team }: { team: TeamDto }) {
  const utils = trpc.useUtils();
  const [who, setWho] = useState('');
  const [role, setRole] = useState<Role>('member');
  const { formRef, errors, show } = useFormErrors();
  const [done, setDone] = useState<string | null>(null);
  const invite = trpc.teams.invite.useMutation({
    onSuccess(m) {
      setWho('');
      setDone(m.status === 'active' ? `${memberName(m)} joined the team.` : `Invited ${memberName(m)}.`);
      return utils.teams.invalidate();
    },
  });

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (invite.isPending) return;
    setDone(null);
    invite.reset();
    const v = who.trim();
    if (!v) {
      show({ who: M.inviteIdentifierRequired });
      return;
    }
    show({});
    // spec section 5: an input containing @ is an email, anything else a username
    invite.mutate({ id: team._id, data: v.includes('@') ? { email: v, role } : { username: v, role } });
  }

  return (
    <section className="card manage-section" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite people</h2>
      <form ref={formRef} className="form invite-form" onSubmit={onSubmit} noValidate>
        <Field label="Email or username" required value={who} onChange={(e) => setWho(e.target.value)} error={errors.who} autoComplete="off" />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {TEAM_ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABEL[r]}
            </option>
          ))}
        </SelectField>
        <div className="form-actions">
          <button type="submit" className="button" disabled={invite.isPending}>
            Invite
          </button>
        </div>
        <Notice kind="error">{invite.isError ? errorMessage(invite.error, M.teamInviteFailed) : null}</Notice>
        <Notice kind="success">{done}</Notice>
      </form>
    </section>
  );
}

function AttachSection({ team, projectParam }: { team: TeamDto; projectParam: string | null }) {
  const utils = trpc.useUtils();
  const projects = useMyProjects(projectParam ?? team.projectId);
  // null: untouched, so the ?projectId= (when it is mine) or the current project is selected
  const [chosen, setChosen] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const attach = trpc.teams.update.useMutation({
    onSuccess(t) {
      utils.teams.get.setData({ id: t._id }, t);
      setChosen(null);
      setSaved(true);
      return utils.teams.invalidate();
    },
  });
  const initial = projectParam && projects.has(projectParam) ? projectParam : (team.projectId ?? '');
  const value = chosen ?? initial;
  const current = team.projectId && team.projectTitle ? { id: team.projectId, title: team.projectTitle } : null;

  return (
    <section className="card manage-section" aria-labelledby="attach-heading">
      <h2 id="attach-heading">Project</h2>
      <p className="team-current-project">
        {current ? (
          <>
            Attached to <Link to={`/projects/${encodeURIComponent(current.id)}`}>{current.title}</Link>
          </>
        ) : (
          <span className="muted">Not attached to a project.</span>
        )}
      </p>
      <form
        className="form attach-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (attach.isPending) return;
          setSaved(false);
          attach.mutate({ id: team._id, data: { projectId: value || null } });
        }}
      >
        <SelectField
          label="Assign to project"
          hint={projects.isPending ? 'loading your projects…' : undefined}
          value={value}
          onChange={(e) => {
            setSaved(false);
            setChosen(e.target.value);
          }}
        >
          <ProjectOptions options={projects.options} />
        </SelectField>
        <div className="form-actions">
          <button type="submit" className="button" disabled={attach.isPending}>
            Attach
          </button>
        </div>
        <Notice kind="error">
          {attach.isError ? errorMessage(attach.error, M.teamAttachFailed) : projects.error ? errorMessage(projects.error, M.requestFailed) : null}
        </Notice>
        <Notice kind="success">{saved ? 'Project saved.' : null}</Notice>
      </form>
    </section>
  );
}

type MemberAction = 'accept' | 'role' | 'remove';

/** Every member row (the owner sees them all), 50 at a time with 'Load more members', each with its actions. */
function MembersSection({ team, readAt }: { team: TeamDto; readAt: number }) {
  const utils = trpc.useUtils();
  const { query, members } = useTeamMembers(team, readAt);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const update = trpc.teams.updateMember.useMutation();
  const remove = trpc.teams.removeMember.useMutation();

  async function run(m: TeamMemberDto, action: MemberAction) {
    if (busy) return;
    setBusy(m.userId);
    setError(null);
    try {
      if (action === 'remove') await remove.mutateAsync({ id: team._id, memberId: m.userId });
      else
        await update.mutateAsync({
          id: team._id,
          memberId: m.userId,
          data: action === 'accept' ? { status: 'active' } : { role: m.role === 'member' ? 'manager' : 'member' },
        });
      await utils.teams.invalidate();
    } catch (err) {
      setError(errorMessage(err, action === 'remove' ? M.teamRemoveMemberFailed : M.teamUpdateMemberFailed));
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card manage-section" aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <p className="muted">
        {team.memberCount} active {team.memberCount === 1 ? 'member' : 'members'}
      </p>
      {!query.data ? (
        <MembersPending query={query} />
      ) : (
        <div className="table-wrap">
          <table className="table members-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => {
                const nameId = `member-${m.userId}`;
                const disabled = busy !== null;
                return (
                  <tr key={m.userId} aria-busy={busy === m.userId || undefined}>
                    <th scope="row" id={nameId}>
                      <MemberName member={m} />
                    </th>
                    <td>{ROLE_LABEL[m.role]}</td>
                    <td>{STATUS_LABEL[m.status]}</td>
                    <td className="actions-cell">
                      {!m.isOwner && (
                        <>
                          {m.status === 'requested' && (
                            <button
                              type="button"
                              className="button button-small"
                              disabled={disabled}
                              aria-describedby={nameId}
                              onClick={() => void run(m, 'accept')}
                            >
                              Accept
                            </button>
                          )}
                          <button
                            type="button"
                            className="button button-small button-secondary"
                            disabled={disabled}
                            aria-describedby={nameId}
                            onClick={() => void run(m, 'role')}
                          >
                            {m.role === 'member' ? 'Make manager' : 'Make member'}
                          </button>
                          <button
                            type="button"
                            className="button button-small button-danger"
                            disabled={disabled}
                            aria-describedby={nameId}
                            onClick={() => void run(m, 'remove')}
                          >
                            Remove
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <LoadMoreMembers query={query} />
      <Notice kind="error">{error}</Notice>
    </section>
  );
}

function CoverSection({ team }: { team: TeamDto }) {
  const utils = trpc.useUtils();
  // what the field shows while the new cover is being saved
  const [pending, setPending] = useState<UploadedImage[] | null>(null);
  const [uploading, setUploading] = useState(false);
  const [saved, setSaved] = useState(false);
  const save = trpc.teams.update.useMutation({
    onSuccess(t) {
      utils.teams.get.setData({ id: t._id }, t);
      setSaved(true);
      return utils.teams.invalidate();
    },
    onSettled() {
      setPending(null);
    },
  });

  function onChange(images: UploadedImage[]) {
    setSaved(false);
    setPending(images);
    save.mutate({ id: team._id, data: { imageUrl: images[0]?.url ?? null } });
  }

  return (
    <section className="card manage-section" aria-labelledby="cover-heading">
      <h2 id="cover-heading">Cover</h2>
      <ImageUploadField label="Cover image" kind="cover" multiple={false} images={pending ?? team.images} onChange={onChange} onBusyChange={setUploading} />
      {(uploading || save.isPending) && <p className="muted">{save.isPending ? 'Saving…' : M.uploading}</p>}
      <Notice kind="error">{save.isError ? errorMessage(save.error, M.teamSaveFailed) : null}</Notice>
      <Notice kind="success">{saved && !save.isPending ? 'Cover saved.' : null}</Notice>
    </section>
  );
}

/** Looking-for tags: each added or removed chip is one addTag / removeTag call, in order. */
function TagsSection({ team }: { team: TeamDto }) {
  const utils = trpc.useUtils();
  const addTag = trpc.teams.addTag.useMutation();
  const removeTag = trpc.teams.removeTag.useMutation();
  const [shown, setShown] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // changes run one after another, each against what the one before left
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const pending = useRef(0);
  const tags = shown ?? team.tags;

  function onChange(next: string[]) {
    const before = tags;
    setShown(next);
    setError(null);
    const added = next.filter((t) => !before.includes(t));
    const removed = before.filter((t) => !next.includes(t));
    pending.current += 1;
    queue.current = queue.current.then(async () => {
      try {
        let latest: string[] | null = null;
        for (const tag of added) latest = (await addTag.mutateAsync({ id: team._id, tag })).tags;
        for (const tag of removed) latest = (await removeTag.mutateAsync({ id: team._id, tag })).tags;
        if (latest) {
          const result = latest;
          utils.teams.get.setData({ id: team._id }, (old) => (old ? { ...old, tags: result } : old));
        }
      } catch (err) {
        setError(errorMessage(err, M.teamUpdateTagsFailed));
      } finally {
        pending.current -= 1;
        if (pending.current === 0) {
          setShown(null);
          void utils.teams.invalidate();
        }
      }
    });
  }

  return (
    <section className="card manage-section" aria-labelledby="tags-heading">
      <h2 id="tags-heading">Looking-for tags</h2>
      <TagInput label="Looking for" hint="skills or roles, Enter or comma adds" tags={tags} onChange={onChange} />
      <Notice kind="error">{error}</Notice>
    </section>
  );
}

function SuggestedSection({ team, projectParam }: { team: TeamDto; projectParam: string | null }) {
  const utils = trpc.useUtils();
  const suggested = trpc.teams.suggested.useQuery({ id: team._id, projectId: projectParam ?? undefined });
  const invite = trpc.teams.invite.useMutation({ onSuccess: () => utils.teams.invalidate() });
  const [target, setTarget] = useState<string | null>(null);

  return (
    <section className="card manage-section suggestions" aria-labelledby="team-suggested-heading">
      <h2 id="team-suggested-heading">Suggested people</h2>
      {suggested.isPending ? (
        <Loading />
      ) : suggested.isError ? (
        <Notice kind="error">{errorMessage(suggested.error, M.requestFailed)}</Notice>
      ) : suggested.data.items.length === 0 ? (
        <p className="muted">{NO_SUGGESTIONS}</p>
      ) : (
        <SuggestedPeopleList
          people={suggested.data.items}
          invite={{
            busy: invite.isPending,
            // by username as a member (the id when the person has no username)
            onInvite: (u) => {
              setTarget(u._id);
              invite.mutate({ id: team._id, data: u.username ? { username: u.username, role: 'member' } : { userId: u._id, role: 'member' } });
            },
            error: invite.isError && target ? { personId: target, message: errorMessage(invite.error, M.teamInviteFailed) } : null,
          }}
        />
      )}
      {invite.isSuccess && invite.data && <Notice kind="success">{`Invited ${memberName(invite.data)}.`}</Notice>}
    </section>
  );
}
