import { useId, useRef, useState, type FormEvent } from 'react';
import { PREVIEW_LINK_DAYS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { InviteInput, LinkInput, SettingsInput, type PreviewKind, type PreviewLinkDto, type PreviewMemberDto } from '../../../shared/schemas/previews';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { validate, type FieldErrors } from '../../lib/forms';
import { trpc } from '../../trpc';
import { ConfirmDialog } from '../ConfirmDialog';
import { Field, SelectField } from '../Field';
import { Loading } from '../Loading';
import { Notice } from '../Notice';
import { CopyField } from './CopyField';

type Item = { kind: PreviewKind; id: string };

const STATE_LABEL: Record<PreviewMemberDto['state'], string> = { invited: 'Invited', joined: 'Joined', revoked: 'Revoked' };
const LINK_STATE_LABEL: Record<PreviewLinkDto['state'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };
const ROLE_LABEL = { viewer: 'Viewer', commenter: 'Commenter' } as const;

/** How a member is named in the owner's list: their account, the name a guest typed, or the address invited. */
export function memberName(m: PreviewMemberDto): string {
  if (m.user) return m.user.name && m.user.name !== m.user.username ? `${m.user.name} (@${m.user.username})` : `@${m.user.username}`;
  if (m.guestName) return m.email ? `${m.guestName} (guest, ${m.email})` : `${m.guestName} (guest)`;
  return m.email ?? 'Guest';
}

const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`;

/** "Opened 3 times: first 5 Dec 2026, 14:05, last 6 Dec 2026, 09:12", or "Not opened yet". */
function visitsText(v: { views: number; firstViewAt?: Date | null; lastViewAt: Date | null }): string {
  if (v.views === 0) return 'Not opened yet';
  const first = v.firstViewAt ? `first ${formatDateTime(new Date(v.firstViewAt))}` : null;
  const last = v.lastViewAt ? `last ${formatDateTime(new Date(v.lastViewAt))}` : null;
  const when = [first, last].filter(Boolean).join(', ');
  return `Opened ${times(v.views)}${when ? `: ${when}` : ''}`;
}

/**
 * The owner's "Circle" panel on a draft (issue #30): invite by username or email (viewer or
 * commenter; an email invite's link is shown this once, with Copy, and was emailed too), the
 * members with their state, role, Revoke and who looked when; links with a label and an expiry
 * (the new address shown once), their state, expiry and views, Revoke; "Revoke all" after a
 * confirmation; the settings (the circle reads the feedback; the followers' email delay); and the
 * count of failed lookups. On a released item (`released`) it is the circle's history, read-only.
 */
export function CirclePanel({ kind, id, released }: Item & { released: boolean }) {
  const headingId = useId();
  const circle = trpc.previews.circle.useQuery({ kind, id });
  if (circle.isPending) return <Loading />;
  if (circle.isError) return <Notice kind="error">{errorMessage(circle.error, M.requestFailed)}</Notice>;
  const c = circle.data;
  // after release the history is shown only when there was a circle at all
  if (released && c.members.length === 0 && c.links.length === 0) return null;
  return (
    <section className="card circle-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Circle</h2>
      {released ? (
        <p className="muted">{M.previewNotDraft}. What happened while it was a draft:</p>
      ) : (
        <p className="muted">The people you invite, and whoever holds one of your links, see this draft before anyone else. Nobody else can find it.</p>
      )}
      {!released && <InviteForm kind={kind} id={id} />}
      <MemberList kind={kind} id={id} members={c.members} released={released} />
      <Links kind={kind} id={id} links={c.links} released={released} />
      {!released && <RevokeAll kind={kind} id={id} />}
      {!released && <SettingsForm kind={kind} id={id} settings={c.settings} />}
      <p className="circle-failed">
        Preview addresses opened with a wrong, expired or revoked token: <strong>{c.failedLookups}</strong>
      </p>
    </section>
  );
}

function useInvalidate({ kind, id }: Item) {
  const utils = trpc.useUtils();
  return () => utils.previews.circle.invalidate({ kind, id });
}

function InviteForm({ kind, id }: Item) {
  const [who, setWho] = useState('');
  const [role, setRole] = useState<'viewer' | 'commenter'>('viewer');
  const [errors, setErrors] = useState<FieldErrors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const refresh = useInvalidate({ kind, id });
  const invite = trpc.previews.invite.useMutation({
    onSuccess: () => {
      setWho('');
      void refresh();
    },
  });

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const v = validate(InviteInput, { who, role });
    setErrors(v.errors);
    if (!v.ok) {
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    invite.mutate({ kind, id, data: v.data });
  }

  const done = invite.data;
  return (
    <div className="circle-block">
      <h3>Invite</h3>
      <form ref={formRef} className="form circle-form" onSubmit={submit} noValidate>
        <Field
          label="Username or email"
          hint="An email address gets a link"
          value={who}
          onChange={(e) => {
            setWho(e.target.value);
            invite.reset();
          }}
          autoComplete="off"
          spellCheck={false}
          error={errors.who}
        />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as 'viewer' | 'commenter')}>
          <option value="viewer">Viewer (reads)</option>
          <option value="commenter">Commenter (reads and gives feedback)</option>
        </SelectField>
        <div className="form-actions">
          <button type="submit" className="button" disabled={invite.isPending}>
            {invite.isPending ? 'Inviting…' : 'Invite'}
          </button>
        </div>
      </form>
      <Notice kind="error">{invite.isError ? errorMessage(invite.error, M.requestFailed) : null}</Notice>
      {done && (
        <div className="circle-result">
          <Notice kind="success">
            {done.url
              ? `Invited ${memberName(done.member)}. The invite was also emailed. This link is shown only now: it lets whoever holds it in.`
              : `Invited ${memberName(done.member)}. They were emailed and open this page signed in.`}
          </Notice>
          {done.url && <CopyField label="Invite link" value={done.url} />}
        </div>
      )}
    </div>
  );
}

function MemberList({ kind, id, members, released }: Item & { members: PreviewMemberDto[]; released: boolean }) {
  return (
    <div className="circle-block">
      <h3>Members</h3>
      {members.length === 0 ? (
        <p className="muted">Nobody invited yet.</p>
      ) : (
        <ul className="circle-list">
          {members.map((m) => (
            <MemberRow key={m._id} kind={kind} id={id} m={m} released={released} />
          ))}
        </ul>
      )}
    </div>
  );
}

function MemberRow({ kind, id, m, released }: Item & { m: PreviewMemberDto; released: boolean }) {
  const roleId = useId();
  const refresh = useInvalidate({ kind, id });
  const setRole = trpc.previews.setRole.useMutation({ onSettled: () => void refresh() });
  const revoke = trpc.previews.revokeMember.useMutation({ onSettled: () => void refresh() });
  const name = memberName(m);
  const active = m.state !== 'revoked' && !released;
  const failed = setRole.error ?? revoke.error;
  return (
    <li className="circle-row">
      <div className="circle-row-head">
        <span className="circle-name">{name}</span>
        <span className="status-badge">{STATE_LABEL[m.state]}</span>
      </div>
      <p className="circle-meta">
        {!active && `${ROLE_LABEL[m.role]} · `}
        {m.state === 'revoked' ? 'No longer sees the draft' : visitsText(m)}
        {m.state === 'revoked' && m.views > 0 ? ` · ${visitsText(m)}` : ''}
      </p>
      {active && (
        <div className="circle-row-actions">
          <div className="field field-inline">
            <label htmlFor={roleId}>
              Role<span className="visually-hidden"> of {name}</span>
            </label>
            <select
              id={roleId}
              value={setRole.isPending ? setRole.variables.data.role : m.role}
              disabled={setRole.isPending}
              onChange={(e) => setRole.mutate({ kind, id, memberId: m._id, data: { role: e.target.value as 'viewer' | 'commenter' } })}
            >
              <option value="viewer">{ROLE_LABEL.viewer}</option>
              <option value="commenter">{ROLE_LABEL.commenter}</option>
            </select>
          </div>
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={revoke.isPending}
            onClick={() => revoke.mutate({ kind, id, memberId: m._id })}
          >
            Revoke<span className="visually-hidden"> {name}</span>
          </button>
        </div>
      )}
      <Notice kind="error">{failed ? errorMessage(failed, M.requestFailed) : null}</Notice>
    </li>
  );
}

function LinkForm({ kind, id }: Item) {
  const formRef = useRef<HTMLFormElement>(null);
  const [label, setLabel] = useState('');
  const [days, setDays] = useState(String(PREVIEW_LINK_DAYS.default));
  const [errors, setErrors] = useState<FieldErrors>({});
  const refresh = useInvalidate({ kind, id });
  const create = trpc.previews.createLink.useMutation({
    onSuccess: () => {
      setLabel('');
      setDays(String(PREVIEW_LINK_DAYS.default));
      void refresh();
    },
  });

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const v = validate(LinkInput, { label, days: days.trim() === '' ? Number.NaN : days });
    setErrors(v.errors);
    if (!v.ok) {
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    create.mutate({ kind, id, data: v.data });
  }

  const done = create.data;
  return (
    <>
      <form ref={formRef} className="form circle-form" onSubmit={submit} noValidate>
        <Field
          label="Label"
          hint="For you: “Newsletter friends”"
          value={label}
          maxLength={60}
          onChange={(e) => {
            setLabel(e.target.value);
            create.reset();
          }}
          autoComplete="off"
          error={errors.label}
        />
        <Field
          label="Expires in (days)"
          hint={`${PREVIEW_LINK_DAYS.min} to ${PREVIEW_LINK_DAYS.max}`}
          type="number"
          inputMode="numeric"
          min={PREVIEW_LINK_DAYS.min}
          max={PREVIEW_LINK_DAYS.max}
          value={days}
          onChange={(e) => setDays(e.target.value)}
          error={errors.days}
        />
        <div className="form-actions">
          <button type="submit" className="button" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create link'}
          </button>
        </div>
      </form>
      <Notice kind="error">{create.isError ? errorMessage(create.error, M.requestFailed) : null}</Notice>
      {done && (
        <div className="circle-result">
          <Notice kind="success">{`Link “${done.link.label}” created. Its address is shown only now: copy it to share it.`}</Notice>
          <CopyField label="Link address" value={done.url} />
        </div>
      )}
    </>
  );
}

/** The links: a new one (while a draft) and the list with state, expiry, views and Revoke. */
function Links({ kind, id, links, released }: Item & { links: PreviewLinkDto[]; released: boolean }) {
  if (released && links.length === 0) return null;
  return (
    <div className="circle-block">
      <h3>Links</h3>
      {!released && <p className="muted">Anyone who has a link sees the draft until it expires or you revoke it. Their visits are counted, without names.</p>}
      {!released && <LinkForm kind={kind} id={id} />}
      {links.length === 0 ? (
        <p className="muted">No links yet.</p>
      ) : (
        <ul className="circle-list" aria-label="Your links">
          {links.map((l) => (
            <LinkRow key={l._id} kind={kind} id={id} l={l} released={released} />
          ))}
        </ul>
      )}
    </div>
  );
}

function LinkRow({ kind, id, l, released }: Item & { l: PreviewLinkDto; released: boolean }) {
  const refresh = useInvalidate({ kind, id });
  const revoke = trpc.previews.revokeLink.useMutation({ onSettled: () => void refresh() });
  const ends =
    l.state === 'revoked' && l.revokedAt
      ? `Revoked ${formatDateTime(new Date(l.revokedAt))}`
      : `${l.state === 'expired' ? 'Expired' : 'Expires'} ${formatDateTime(new Date(l.expiresAt))}`;
  return (
    <li className="circle-row">
      <div className="circle-row-head">
        <span className="circle-name">{l.label}</span>
        {/* after release a link just opens the public page: its state is history only when it had ended before */}
        {!(released && l.state === 'active') && <span className="status-badge">{LINK_STATE_LABEL[l.state]}</span>}
      </div>
      <p className="circle-meta">
        {ends} · {visitsText(l)}
      </p>
      {l.state === 'active' && !released && (
        <div className="circle-row-actions">
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={revoke.isPending}
            onClick={() => revoke.mutate({ kind, id, linkId: l._id })}
          >
            Revoke<span className="visually-hidden"> link {l.label}</span>
          </button>
        </div>
      )}
      <Notice kind="error">{revoke.isError ? errorMessage(revoke.error, M.requestFailed) : null}</Notice>
    </li>
  );
}

function RevokeAll({ kind, id }: Item) {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const refresh = useInvalidate({ kind, id });
  const revoke = trpc.previews.revokeAll.useMutation({
    onSuccess: () => {
      setOpen(false);
      void refresh();
    },
  });
  const r = revoke.data;
  return (
    <div className="circle-block">
      <button
        ref={buttonRef}
        type="button"
        className="button button-danger"
        onClick={() => {
          revoke.reset();
          setOpen(true);
        }}
      >
        Revoke all
      </button>
      {r && (
        <Notice kind="success">{`Revoked ${r.links} ${r.links === 1 ? 'link' : 'links'} and ${r.invites} emailed ${r.invites === 1 ? 'invite' : 'invites'}.`}</Notice>
      )}
      {open && (
        <ConfirmDialog
          title="Revoke every link and invite?"
          message="Every link and every emailed invite of this draft stops working at once. Guests without an account leave the circle; people invited by username keep their place."
          confirmLabel="Revoke all"
          busyLabel="Revoking…"
          busy={revoke.isPending}
          error={revoke.isError ? errorMessage(revoke.error, M.requestFailed) : null}
          onConfirm={() => revoke.mutate({ kind, id })}
          onClose={() => setOpen(false)}
          fallbackFocus={() => buttonRef.current}
        />
      )}
    </div>
  );
}

function SettingsForm({ kind, id, settings }: Item & { settings: { circleReadsFeedback: boolean; followersDelayHours: number } }) {
  const checkId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [reads, setReads] = useState(settings.circleReadsFeedback);
  const [hours, setHours] = useState(String(settings.followersDelayHours));
  const [errors, setErrors] = useState<FieldErrors>({});
  const utils = trpc.useUtils();
  const save = trpc.previews.updateSettings.useMutation({
    onSuccess: (next) => {
      utils.previews.circle.setData({ kind, id }, (old) => (old ? { ...old, settings: next } : old));
      void utils.previews.feedback.invalidate({ kind, id });
    },
  });

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const v = validate(SettingsInput, { circleReadsFeedback: reads, followersDelayHours: hours.trim() === '' ? Number.NaN : hours });
    setErrors(v.errors);
    if (!v.ok) {
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    save.mutate({ kind, id, data: v.data });
  }

  return (
    <div className="circle-block">
      <h3>Settings</h3>
      <form ref={formRef} className="form circle-form" onSubmit={submit} noValidate>
        <div className="checkbox">
          <input
            id={checkId}
            type="checkbox"
            checked={reads}
            onChange={(e) => {
              setReads(e.target.checked);
              save.reset();
            }}
          />
          <label htmlFor={checkId}>Let the circle read the feedback</label>
        </div>
        <Field
          label="Followers' email delay (hours)"
          hint="0 to 720"
          type="number"
          inputMode="numeric"
          min={0}
          max={720}
          value={hours}
          onChange={(e) => {
            setHours(e.target.value);
            save.reset();
          }}
          error={errors.followersDelayHours}
        />
        <p className="muted circle-note">At release your circle is emailed at once; the people who saved or follow it, this many hours later.</p>
        <div className="form-actions">
          <button type="submit" className="button button-secondary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>
      <Notice kind="error">{save.isError ? errorMessage(save.error, M.requestFailed) : null}</Notice>
      {save.isSuccess && <Notice kind="success">Settings saved.</Notice>}
    </div>
  );
}
