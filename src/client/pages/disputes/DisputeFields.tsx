import { useId } from 'react';
import { type DISPUTE_STATUSES, DISPUTE_TYPES } from '../../../shared/constants';
import type { FieldErrors } from '../../lib/forms';

export type DisputeType = (typeof DISPUTE_TYPES)[number];
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const TYPE_LABEL: Record<DisputeType, string> = { donation: 'Donation', payout: 'Payout', other: 'Other' };
export const STATUS_LABEL: Record<DisputeStatus, string> = {
  open: 'Open',
  under_review: 'Under review',
  resolved: 'Resolved',
  rejected: 'Rejected',
};

/** The type a dispute starts with: what it names, else 'other' (the spec's default). */
export function defaultType(p: { donationId?: string | null; payoutId?: string | null }): DisputeType {
  return p.donationId ? 'donation' : p.payoutId ? 'payout' : 'other';
}

export interface DisputeValues {
  type: DisputeType | '';
  reason: string;
  details: string;
}

const REASON_MAX = 200;
const DETAILS_MAX = 5000;

/**
 * Type, reason and details of a dispute (the modal and /disputes/new): each labelled, each error
 * tied to its field (aria-describedby, aria-invalid). Fields carry `name`s so a form can focus
 * the first one in error.
 */
export function DisputeFields({
  values,
  errors,
  onChange,
  allowBlankType = false,
}: {
  values: DisputeValues;
  errors: FieldErrors;
  onChange(next: DisputeValues): void;
  /** /disputes/new offers an empty choice (so 'Type is required' can be reached). */
  allowBlankType?: boolean;
}) {
  const id = useId();
  const err = (name: string) => (errors[name] ? `${id}-${name}-error` : undefined);
  const describe = (...ids: (string | undefined)[]) => ids.filter(Boolean).join(' ') || undefined;
  return (
    <>
      <div className="field">
        <div className="field-label">
          <label htmlFor={`${id}-type`}>Type</label>
        </div>
        <select
          id={`${id}-type`}
          name="type"
          value={values.type}
          aria-invalid={errors.type ? true : undefined}
          aria-describedby={err('type')}
          onChange={(e) => onChange({ ...values, type: e.target.value as DisputeType | '' })}
        >
          {allowBlankType && <option value="">Choose a type</option>}
          {DISPUTE_TYPES.map((t) => (
            <option key={t} value={t}>
              {TYPE_LABEL[t]}
            </option>
          ))}
        </select>
        {errors.type && (
          <p id={err('type')} className="field-error">
            {errors.type}
          </p>
        )}
      </div>
      <div className="field">
        <div className="field-label">
          <label htmlFor={`${id}-reason`}>Reason</label>
          <span id={`${id}-reason-hint`} className="field-hint">
            in a few words
          </span>
        </div>
        <input
          id={`${id}-reason`}
          name="reason"
          type="text"
          maxLength={REASON_MAX}
          autoComplete="off"
          value={values.reason}
          aria-invalid={errors.reason ? true : undefined}
          aria-describedby={describe(`${id}-reason-hint`, err('reason'))}
          onChange={(e) => onChange({ ...values, reason: e.target.value })}
        />
        {errors.reason && (
          <p id={err('reason')} className="field-error">
            {errors.reason}
          </p>
        )}
      </div>
      <div className="field">
        <div className="field-label">
          <label htmlFor={`${id}-details`}>Details</label>
          <span id={`${id}-details-hint`} className="field-hint">
            optional
          </span>
        </div>
        <textarea
          id={`${id}-details`}
          name="details"
          rows={4}
          maxLength={DETAILS_MAX}
          value={values.details}
          aria-invalid={errors.details ? true : undefined}
          aria-describedby={describe(`${id}-details-hint`, err('details'))}
          onChange={(e) => onChange({ ...values, details: e.target.value })}
        />
        {errors.details && (
          <p id={err('details')} className="field-error">
            {errors.details}
          </p>
        )}
      </div>
    </>
  );
}

/** Focuses the first field (in this order) that has an error, inside `root`. */
export function focusFirstError(root: HTMLElement | null | undefined, errors: FieldErrors, order: string[]): boolean {
  const name = order.find((n) => errors[n]);
  const el = name ? root?.querySelector<HTMLElement>(`[name="${name}"]`) : null;
  el?.focus();
  return !!el;
}
