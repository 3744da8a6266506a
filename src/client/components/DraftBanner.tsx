import { useId, useState, type FormEvent } from 'react';
import { M } from '../../shared/messages';
import { errorMessage } from '../lib/errors';
import { trpc } from '../trpc';
import { Notice } from './Notice';

interface DraftItem {
  _id: string;
  visibility: 'draft' | 'scheduled' | 'released';
  releaseAt: Date | null;
}

/** The viewer's time zone as the browser names it, with its offset now ("Europe/Berlin, UTC+01:00"). */
function zoneLabel(at = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const minutes = -at.getTimezoneOffset();
  const sign = minutes >= 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  const offset = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return zone ? `${zone}, ${offset}` : offset;
}

/** "in 3 days", "in 5 hours", "in 2 minutes" (or "now") from here to `at`. */
export function relativeTime(at: Date, now = Date.now()): string {
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const seconds = Math.round((at.getTime() - now) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  return rtf.format(0, 'minute');
}

/** A Date as a datetime-local input's value, in the viewer's zone ("2026-12-05T14:30"). */
function localInputValue(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * The owner's banner on a draft (campaign or project): "Draft: only your circle can see this",
 * the release time when one is set (in the viewer's zone, with "in 3 days"), and the actions:
 * release now, schedule or move the release (a date and time in the viewer's zone, the zone
 * shown), cancel the schedule. Shown only to the owner (nobody else gets a draft).
 */
export function DraftBanner({ kind, item }: { kind: 'campaign' | 'project'; item: DraftItem }) {
  const utils = trpc.useUtils();
  const headingId = useId();
  const inputId = useId();
  const hintId = useId();
  const releaseAt = item.releaseAt ? new Date(item.releaseAt) : null;
  const [when, setWhen] = useState(() => localInputValue(releaseAt ?? new Date(Date.now() + 86_400_000)));
  const [formError, setFormError] = useState<string | null>(null);
  const onSuccess = (next: unknown) => {
    setFormError(null);
    if (kind === 'campaign') {
      utils.campaigns.get.setData({ id: item._id }, next as never);
      void utils.campaigns.list.invalidate();
    } else {
      utils.projects.get.setData({ id: item._id }, next as never);
      void utils.projects.list.invalidate();
    }
  };
  const campaignUpdate = trpc.campaigns.update.useMutation({ onSuccess });
  const projectUpdate = trpc.projects.update.useMutation({ onSuccess });
  const update = kind === 'campaign' ? campaignUpdate : projectUpdate;
  const send = (data: { visibility?: 'released'; releaseAt?: string | null }) => update.mutate({ id: item._id, data });

  function schedule(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const at = new Date(when);
    if (!when || Number.isNaN(at.getTime())) return setFormError(M.releaseAtInvalid);
    if (at.getTime() <= Date.now()) return setFormError(M.releaseAtPast);
    send({ releaseAt: at.toISOString() });
  }

  const busy = update.isPending;
  return (
    <section className="draft-banner card" aria-labelledby={headingId}>
      <h2 id={headingId}>{M.draftBanner}</h2>
      {releaseAt ? (
        <p>
          Releases{' '}
          <time dateTime={releaseAt.toISOString()}>
            {releaseAt.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })} ({zoneLabel(releaseAt)})
          </time>
          , {relativeTime(releaseAt)}.
        </p>
      ) : (
        <p>Nobody else can find it, donate or support until you release it.</p>
      )}
      <div className="form-actions">
        <button type="button" className="button" disabled={busy} onClick={() => send({ visibility: 'released' })}>
          {M.releaseNow}
        </button>
        {releaseAt && (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => send({ releaseAt: null })}>
            {M.cancelSchedule}
          </button>
        )}
      </div>
      <form className="form draft-schedule" onSubmit={schedule} noValidate>
        <div className="field">
          <label htmlFor={inputId}>Release date and time</label>
          <input
            id={inputId}
            type="datetime-local"
            value={when}
            onChange={(e) => setWhen(e.target.value)}
            aria-describedby={hintId}
            aria-invalid={formError ? true : undefined}
          />
          <span id={hintId} className="field-hint">
            Your time zone: {zoneLabel()}
          </span>
        </div>
        <button type="submit" className="button button-secondary" disabled={busy}>
          {releaseAt ? 'Change schedule' : M.scheduleRelease}
        </button>
      </form>
      <Notice kind="error">{formError ?? (update.isError ? errorMessage(update.error, M.releaseFailed) : null)}</Notice>
    </section>
  );
}
