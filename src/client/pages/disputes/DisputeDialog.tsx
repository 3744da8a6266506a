import { useEffect, useRef, useState } from 'react';
import { DISPUTE_MODAL_CLOSE_MS } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Notice } from '../../components/Notice';
import { errorMessage, httpStatus } from '../../lib/errors';
import type { FieldErrors } from '../../lib/forms';
import { trpc } from '../../trpc';
import { defaultType, DisputeFields, focusFirstError, type DisputeValues } from './DisputeFields';

export interface DisputeTarget {
  campaignId?: string | null;
  donationId?: string | null;
  payoutId?: string | null;
}

/** Which field a server message is about (the rest are shown as an alert in the dialog). */
const FIELD_OF: Record<string, 'type' | 'reason' | 'details'> = {
  [M.disputeTypeRequired]: 'type',
  [M.disputeReasonRequired]: 'reason',
  [M.disputeReasonTooLong]: 'reason',
  [M.disputeDetailsTooLong]: 'details',
};

/**
 * The 'Raise a dispute' modal (spec section 2): type, reason, details. 'Missing campaign id'
 * when opened without a campaign, 'Please provide a reason' for a blank reason; on success
 * 'Dispute submitted', then it closes after 500 ms.
 */
export function DisputeDialog({
  campaignId,
  donationId,
  payoutId,
  onClose,
  onSubmitted,
}: DisputeTarget & {
  onClose(): void;
  /** The dispute was taken (before the dialog closes). */
  onSubmitted?(): void;
}) {
  const utils = trpc.useUtils();
  const [values, setValues] = useState<DisputeValues>({ type: defaultType({ donationId, payoutId }), reason: '', details: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const fieldsRef = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  const create = trpc.disputes.create.useMutation();

  useEffect(() => {
    if (!submitted) return;
    const t = setTimeout(() => onCloseRef.current(), DISPUTE_MODAL_CLOSE_MS);
    return () => clearTimeout(t);
  }, [submitted]);

  function submit() {
    if (create.isPending || submitted) return;
    if (!campaignId) {
      setErrors({ form: M.disputeMissingCampaign });
      return;
    }
    if (values.reason.trim() === '') {
      const next = { reason: M.disputeProvideReason };
      setErrors(next);
      focusFirstError(fieldsRef.current, next, ['reason']);
      return;
    }
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
          setSubmitted(true);
          onSubmitted?.();
        },
        onError(err) {
          const field = httpStatus(err) !== undefined ? FIELD_OF[err.message] : undefined;
          if (field) {
            const next = { [field]: err.message };
            setErrors(next);
            focusFirstError(fieldsRef.current, next, [field]);
          } else {
            setErrors({ form: errorMessage(err, M.disputeCreateFailed) });
          }
        },
      },
    );
  }

  return (
    <ConfirmDialog
      title="Raise a dispute"
      message="Tell us what went wrong. An admin reviews it; you can follow it under My disputes."
      confirmLabel="Submit"
      busyLabel={submitted ? 'Submitted' : 'Submitting…'}
      tone="primary"
      busy={create.isPending || submitted}
      error={errors.form}
      onConfirm={submit}
      onClose={onClose}
    >
      <div ref={fieldsRef} className="dispute-fields">
        <DisputeFields values={values} errors={errors} onChange={setValues} />
        <Notice kind="success">{submitted ? M.disputeSubmitted : null}</Notice>
      </div>
    </ConfirmDialog>
  );
}
