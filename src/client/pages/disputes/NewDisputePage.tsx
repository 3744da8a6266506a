import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { DISPUTE_REDIRECT_MS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { FieldError, FieldLabel } from '../../components/Field';
import { Notice } from '../../components/Notice';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import type { FieldErrors } from '../../lib/forms';
import { trpc } from '../../trpc';
import { defaultType, DisputeFields, focusFirstError, type DisputeValues } from './DisputeFields';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ORDER = ['campaign', 'type', 'reason', 'details'];

/** Which field a server message is about (the rest are shown as an alert above the button). */
const FIELD_OF: Record<string, string> = {
  [M.campaignRequired]: 'campaign',
  [M.campaignNotFound]: 'campaign',
  [M.disputeTypeRequired]: 'type',
  [M.disputeReasonRequired]: 'reason',
  [M.disputeReasonTooLong]: 'reason',
  [M.disputeDetailsTooLong]: 'details',
};

/** A pasted campaign link ('…/campaigns/<id>') or a bare id: the id. */
function campaignIdOf(text: string): string {
  const t = text.trim();
  return t.match(UUID)?.[0] ?? t;
}

/**
 * /disputes/new (?campaignId=&donationId=&payoutId= prefill): 'Raise a Dispute' with campaign,
 * type, reason and details. The spec's texts are checked here before sending and shown when the
 * server answers them; 'Dispute created.' then the list after 600 ms.
 */
export default function NewDisputePage() {
  usePageTitle('Raise a Dispute');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const id = useId();
  const donationId = params.get('donationId') || null;
  const payoutId = params.get('payoutId') || null;
  const [campaign, setCampaign] = useState(params.get('campaignId') ?? '');
  const [values, setValues] = useState<DisputeValues>({ type: defaultType({ donationId, payoutId }), reason: '', details: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const create = trpc.disputes.create.useMutation();

  const campaignId = campaignIdOf(campaign);
  const known = trpc.campaigns.get.useQuery({ id: campaignId }, { enabled: UUID.test(campaignId) && campaignId.length === 36, retry: false });

  useEffect(() => {
    if (!created) return;
    const t = setTimeout(() => void navigate('/myDisputes'), DISPUTE_REDIRECT_MS);
    return () => clearTimeout(t);
  }, [created, navigate]);

  function showErrors(next: FieldErrors) {
    setErrors(next);
    if (!focusFirstError(formRef.current, next, ORDER)) submitRef.current?.focus();
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (create.isPending || created) return;
    const found: FieldErrors = {};
    if (campaignId === '') found.campaign = M.campaignRequired;
    if (values.type === '') found.type = M.disputeTypeRequired;
    if (values.reason.trim() === '') found.reason = M.disputeReasonRequired;
    if (Object.keys(found).length) return showErrors(found);
    setErrors({});
    create.mutate(
      {
        campaignId,
        type: values.type || 'other',
        reason: values.reason.trim(),
        details: values.details.trim(),
        ...(donationId ? { donationId } : {}),
        ...(payoutId ? { payoutId } : {}),
      },
      {
        onSuccess() {
          void utils.disputes.mine.invalidate();
          setCreated(true);
        },
        onError(err) {
          const field = httpStatus(err) !== undefined ? FIELD_OF[err.message] : undefined;
          showErrors(field ? { [field]: err.message } : { form: errorMessage(err, M.disputeCreateFailed) });
        },
      },
    );
  }

  const campaignErrorId = `${id}-campaign-error`;
  const busy = create.isPending || created;
  return (
    <section className="page page-narrow">
      <h1>Raise a Dispute</h1>
      <p className="muted">
        Tell us what went wrong with a campaign, one of its donations or a payout. An admin reviews it; you can follow it in{' '}
        <Link to="/myDisputes">My disputes</Link>.
      </p>
      <form ref={formRef} className="card form dispute-form" onSubmit={onSubmit} noValidate>
        <div className="field">
          <FieldLabel htmlFor={`${id}-campaign`} label="Campaign" hint="its link or id" hintId={`${id}-campaign-hint`} required />
          <input
            id={`${id}-campaign`}
            name="campaign"
            type="text"
            required
            autoComplete="off"
            spellCheck={false}
            value={campaign}
            aria-invalid={errors.campaign ? true : undefined}
            aria-describedby={[`${id}-campaign-hint`, known.data ? `${id}-campaign-title` : '', errors.campaign ? campaignErrorId : '']
              .filter(Boolean)
              .join(' ')}
            onChange={(e) => setCampaign(e.target.value)}
          />
          {known.data && (
            <p id={`${id}-campaign-title`} className="field-hint field-note">
              <Link to={`/campaigns/${encodeURIComponent(known.data._id)}`}>{known.data.title}</Link>
            </p>
          )}
          <FieldError id={campaignErrorId} error={errors.campaign} />
        </div>
        {(donationId || payoutId) && (
          <p className="muted dispute-about">
            About {donationId ? 'donation' : 'payout'} <span className="receipt-ref">{donationId ?? payoutId}</span>
          </p>
        )}
        <DisputeFields values={values} errors={errors} onChange={setValues} allowBlankType />
        <Notice kind="error">{errors.form}</Notice>
        <Notice kind="success">{created ? M.disputeCreated : null}</Notice>
        <div className="form-actions">
          <button ref={submitRef} type="submit" className="button" disabled={busy}>
            {create.isPending ? 'Submitting…' : 'Submit'}
          </button>
        </div>
      </form>
    </section>
  );
}
