import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import type { CampaignDto } from '../../../shared/schemas/campaigns';
import { useSession } from '../../auth/useSession';
import { Field } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { ShareButton } from '../../components/ShareButton';
import { countdown, formatExecutionDate } from '../../lib/dates';
import { errorMessage, httpStatus } from '../../lib/errors';
import { lazySchema, validateLazy, type FieldErrors } from '../../lib/forms';
import { trpc } from '../../trpc';
import { SUPPORT_PANEL_ID } from './MoneyBox';

const IM_IN = 'I’m in';
const YOURE_IN = 'You’re in (withdraw)';
const SAVING = 'Saving…';
const SENDING = 'Sending…';

/** Server messages about the email field (the rest are shown as an alert above the button). */
const EMAIL_ERRORS = new Set<string>([M.guestSupportEmailRequired, M.emailRequired, M.emailInvalid]);

const supportSchema = lazySchema(() => import('../../../shared/schemas/supports').then((m) => m.SupportInput));

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const WEEK_MS = 7 * DAY_MS;

/**
 * The current time, ticking every `everyMs` while `active`: the countdown moves, and a campaign
 * whose date passes while the page is open turns past without a reload.
 */
function useNow(active: boolean, everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(t);
  }, [active, everyMs]);
  return now;
}

/**
 * After a support or a withdrawal: the campaign shows the new state at once (the server's own
 * figures), and every campaign answer is asked again (counts and coordination lines in lists).
 */
function useRefreshCampaign(campaignId: string) {
  const utils = trpc.useUtils();
  return (state?: { supported: boolean; supporters: number }) => {
    if (state) utils.campaigns.get.setData({ id: campaignId }, (old) => (old ? { ...old, ...state, support: state.supporters } : old));
    void utils.campaigns.invalidate();
    void utils.users.campaigns.invalidate();
    void utils.supports.list.invalidate({ campaignId });
  };
}

/**
 * The Support panel of a campaign that takes supporters (actionMode support or both): the
 * supporters so far, the execution date (with a countdown in its last week), and "I’m in": one
 * click when signed in (again to withdraw), an emailed confirmation link for a guest. A past
 * campaign only says that it has taken place.
 */
export function SupportPanel({ campaign: c }: { campaign: CampaignDto }) {
  const { isSignedIn, isLoading } = useSession();
  const date = c.executionDate;
  const soon = date !== null && !c.isPast && date.getTime() - Date.now() <= WEEK_MS + DAY_MS;
  const now = useNow(soon);
  const past = c.isPast || (date !== null && date.getTime() <= now);
  const left = date && !past ? countdown(date, now) : null;

  return (
    <section id={SUPPORT_PANEL_ID} className="card support-panel" aria-labelledby="support-heading">
      <h2 id="support-heading">Support</h2>
      <dl className="facts support-facts">
        <div>
          <dt>Supporters</dt>
          <dd>{c.supporters}</dd>
        </div>
        <div>
          <dt>{past ? 'Took place' : 'Takes place'}</dt>
          <dd>
            {date ? (
              <>
                <time dateTime={date.toISOString()}>{formatExecutionDate(date)}</time>
                {left && <span className="countdown">{left}</span>}
              </>
            ) : (
              'No date set yet'
            )}
          </dd>
        </div>
      </dl>
      {past ? (
        <div className="support-past">
          <p className="notice notice-info">{M.campaignPast}.</p>
          {isSignedIn && c.supported && <p className="support-was-in">You were in. Thank you for taking part!</p>}
        </div>
      ) : isLoading ? (
        <Loading />
      ) : isSignedIn ? (
        <MemberSupport campaign={c} />
      ) : (
        <GuestSupport campaign={c} />
      )}
    </section>
  );
}

/** Signed in: "I’m in" supports at once; "You’re in (withdraw)" takes it back. */
function MemberSupport({ campaign: c }: { campaign: CampaignDto }) {
  const ids = useId();
  const refresh = useRefreshCampaign(c._id);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const support = trpc.supports.support.useMutation();
  const withdraw = trpc.supports.withdraw.useMutation();
  const busy = support.isPending || withdraw.isPending;

  const onError = (err: unknown) => {
    setError(errorMessage(err, M.requestFailed));
    // e.g. the date passed meanwhile (409): the page catches up with the campaign
    if (httpStatus(err) === 409 || httpStatus(err) === 404) refresh();
  };

  function toggle() {
    // aria-disabled rather than disabled: the button keeps the focus while the request runs
    if (busy) return;
    setError(null);
    setSaid('');
    if (c.supported) {
      withdraw.mutate(
        { campaignId: c._id },
        {
          onSuccess(state) {
            refresh(state);
            setSaid('You withdrew your support.');
          },
          onError,
        },
      );
    } else {
      support.mutate(
        { campaignId: c._id },
        {
          onSuccess(r) {
            if (r.kind !== 'supported') return;
            refresh({ supported: r.supported, supporters: r.supporters });
            setSaid('You’re in. Thank you!');
          },
          onError,
        },
      );
    }
  }

  return (
    <div className="support-action">
      {c.supported ? (
        <p className="support-in" id={`${ids}-in`}>
          <span aria-hidden="true">✓ </span>You support this campaign.
        </p>
      ) : (
        <p className="support-lead muted" id={`${ids}-lead`}>
          Pledge to take part; you can withdraw any time before the date.
        </p>
      )}
      <Notice kind="error">{error}</Notice>
      <button
        type="button"
        className={c.supported ? 'button button-secondary button-block' : 'button button-block button-large'}
        aria-disabled={busy ? true : undefined}
        aria-describedby={c.supported ? `${ids}-in` : `${ids}-lead`}
        onClick={toggle}
      >
        {c.supported ? YOURE_IN : IM_IN}
      </button>
      {c.supported && (
        <div className="share-prompt">
          <ShareButton title={c.title} className="button button-secondary button-small" label="Share this campaign" />
        </div>
      )}
      <p className="visually-hidden" role="status" aria-live="polite">
        {busy ? SAVING : said}
      </p>
    </div>
  );
}

/** Signed out: an email, then a confirmation link (only confirmed supports count). */
function GuestSupport({ campaign: c }: { campaign: CampaignDto }) {
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [sent, setSent] = useState<{ message: string; to: string } | null>(null);
  /** After a failed submit: what to move the focus to (the email field, or the button). */
  const [focusFor, setFocusFor] = useState<FieldErrors | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  /** A submit waiting for the schema (only the first, and only on a slow connection): another one waits for it. */
  const checking = useRef(false);
  const submitRef = useRef<HTMLButtonElement>(null);
  const sentRef = useRef<HTMLParagraphElement>(null);
  const support = trpc.supports.support.useMutation();
  const busy = support.isPending;

  useEffect(() => {
    if (sent) sentRef.current?.focus();
  }, [sent]);

  useEffect(() => {
    if (!focusFor || busy) return;
    if (focusFor.email) formRef.current?.querySelector<HTMLInputElement>('[name="email"]')?.focus();
    else submitRef.current?.focus();
    setFocusFor(null);
  }, [focusFor, busy]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || checking.current) return;
    checking.current = true;
    const v = email.trim() === '' ? undefined : await validateLazy(supportSchema, { email });
    checking.current = false;
    if (v === null) {
      setErrors({ form: M.requestFailed });
      setFocusFor({});
      return;
    }
    const found: FieldErrors = v === undefined ? { email: M.guestSupportEmailRequired } : v.errors;
    setErrors(found);
    if (!v?.ok || !v.data.email) {
      setFocusFor(found);
      return;
    }
    const to = v.data.email;
    support.mutate(
      { campaignId: c._id, email: to },
      {
        onSuccess(r) {
          setSent({ message: r.kind === 'pending' ? r.message : M.supportCheckEmail, to });
        },
        onError(err) {
          const message = errorMessage(err, M.requestFailed);
          const next = httpStatus(err) !== undefined && EMAIL_ERRORS.has(message) ? { email: message } : { form: message };
          setErrors(next);
          setFocusFor(next);
        },
      },
    );
  }

  if (sent) {
    return (
      <div className="support-sent">
        <p ref={sentRef} tabIndex={-1} className="notice notice-success" role="status">
          {sent.message}
        </p>
        <p className="support-sent-note">
          The link went to <strong className="support-email">{sent.to}</strong>. It works once, for 7 days.
        </p>
        <div className="share-prompt">
          <ShareButton title={c.title} className="button button-small" label="Share this campaign" />
        </div>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => {
            support.reset();
            setSent(null);
            setErrors({});
          }}
        >
          Use another email
        </button>
      </div>
    );
  }

  return (
    <form
      ref={formRef}
      className="form support-form"
      onSubmit={(e) => void onSubmit(e)}
      onFocus={supportSchema.prefetch}
      onPointerDown={supportSchema.prefetch}
      noValidate
    >
      <Field
        label="Email"
        hint="we send you a link to confirm"
        type="email"
        name="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={errors.email}
      />
      <Notice kind="error">{errors.form}</Notice>
      <button ref={submitRef} type="submit" className="button button-block button-large" aria-disabled={busy ? true : undefined}>
        {IM_IN}
      </button>
      <p className="field-note muted">
        <Link to="/login">Log in</Link> to support with one click.
      </p>
      <p className="visually-hidden" role="status" aria-live="polite">
        {busy ? SENDING : ''}
      </p>
    </form>
  );
}
